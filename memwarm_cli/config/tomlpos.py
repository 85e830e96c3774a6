"""Positions of keys in a TOML document (tomllib reports none).

The document has already been parsed by tomllib, so this scanner may assume valid TOML: it follows
table headers, arrays of tables, dotted keys, inline tables and arrays, and skips strings and comments.
The result is reconciled with the parsed value, so a key the scanner missed still gets a position (its
parent's) and the tree always matches the data.
"""

from __future__ import annotations

import re

from memwarm_cli.config.positions import LineIndex, Loc, PNode

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_WS = re.compile(r"[ \t]*")
_WS_NL_COMMENTS = re.compile(r"(?:[ \t\r\n]+|#[^\n]*)*")
_SCALAR = re.compile(r"[^,\]}\s#]+(?:[ T][0-9][^,\]}\s#]*)?")
_BASIC_ESCAPES = {"b": "\b", "t": "\t", "n": "\n", "f": "\f", "r": "\r", '"': '"', "\\": "\\", "e": "\x1b"}


def uniform_tree(value: Any, loc: Loc) -> PNode:
    """A position tree that puts every value at `loc` (used when nothing better is known)."""
    if isinstance(value, dict):
        return PNode(loc, {k: uniform_tree(v, loc) for k, v in value.items()})
    if isinstance(value, list):
        return PNode(loc, [uniform_tree(v, loc) for v in value])
    return PNode(loc)


def reconcile(value: Any, node: PNode | None, fallback: Loc) -> PNode:
    """A tree shaped exactly like `value`, taking positions from `node` where it has them."""
    loc = node.loc if node is not None else fallback
    if isinstance(value, dict):
        return PNode(loc, {k: reconcile(v, node.child(k) if node else None, loc) for k, v in value.items()})
    if isinstance(value, list):
        return PNode(loc, [reconcile(v, node.child(i) if node else None, loc) for i, v in enumerate(value)])
    return PNode(loc)


class _Scanner:
    def __init__(self, text: str, file: str) -> None:
        self.text = text
        self.file = file
        self.lines = LineIndex(text)
        self.root = PNode(Loc(file, 1, 1), {})

    def loc(self, offset: int) -> Loc:
        line, column = self.lines.position(offset)
        return Loc(self.file, line, column)

    # -- keys and strings ---------------------------------------------------------------------------------

    def key_parts(self, pos: int) -> tuple[list[tuple[str, int]], int]:
        """A (dotted) key: its parts with their offsets, and the offset after it."""
        text = self.text
        parts: list[tuple[str, int]] = []
        while True:
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            start = pos
            if text.startswith('"', pos):
                key, pos = self.basic_string(pos)
            elif text.startswith("'", pos):
                end = text.index("'", pos + 1)
                key, pos = text[pos + 1 : end], end + 1
            else:
                m = _BARE_KEY.match(text, pos)
                if m is None:
                    raise ValueError("key expected")
                key, pos = m.group(), m.end()
            parts.append((key, start))
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            if text.startswith(".", pos):
                pos += 1
                continue
            return parts, pos

    def basic_string(self, pos: int) -> tuple[str, int]:
        text = self.text
        out: list[str] = []
        i = pos + 1
        while True:
            ch = text[i]
            if ch == '"':
                return "".join(out), i + 1
            if ch == "\\":
                e = text[i + 1]
                if e in _BASIC_ESCAPES:
                    out.append(_BASIC_ESCAPES[e])
                    i += 2
                elif e == "u":
                    out.append(chr(int(text[i + 2 : i + 6], 16)))
                    i += 6
                elif e == "U":
                    out.append(chr(int(text[i + 2 : i + 10], 16)))
                    i += 10
                elif e == "x":
                    out.append(chr(int(text[i + 2 : i + 4], 16)))
                    i += 4
                else:
                    raise ValueError("bad escape")
                continue
            out.append(ch)
            i += 1

    def skip_string(self, pos: int) -> int:
        text = self.text
        for quote in ('"""', "'''"):
            if text.startswith(quote, pos):
                i = pos + 3
                while True:
                    if quote == '"""' and text[i] == "\\":
                        i += 2
                        continue
                    if text.startswith(quote, i):
                        # up to two extra quotes may close the string ("""a"""" is `a"`)
                        end = i + 3
                        while end < len(text) and text[end] == quote[0] and end < i + 5:
                            end += 1
                        return end
                    i += 1
        if text.startswith('"', pos):
            return self.basic_string(pos)[1]
        return text.index("'", pos + 1) + 1

    # -- values ---------------------------------------------------------------------------------------------

    def value(self, pos: int) -> tuple[dict[str, PNode] | list[PNode] | None, int]:
        text = self.text
        ch = text[pos]
        if ch == "[":
            items: list[PNode] = []
            pos += 1
            while True:
                pos = _WS_NL_COMMENTS.match(text, pos).end()  # type: ignore[union-attr]
                if text[pos] == "]":
                    return items, pos + 1
                start = pos
                sub, pos = self.value(pos)
                items.append(PNode(self.loc(start), sub))
                pos = _WS_NL_COMMENTS.match(text, pos).end()  # type: ignore[union-attr]
                if text[pos] == ",":
                    pos += 1
        if ch == "{":
            table: dict[str, PNode] = {}
            holder = PNode(self.loc(pos), table)
            pos += 1
            while True:
                pos = _WS_NL_COMMENTS.match(text, pos).end()  # type: ignore[union-attr]
                if text[pos] == "}":
                    return table, pos + 1
                pos = self.key_value(holder, pos)
                pos = _WS_NL_COMMENTS.match(text, pos).end()  # type: ignore[union-attr]
                if text[pos] == ",":
                    pos += 1
        if ch in "\"'":
            return None, self.skip_string(pos)
        m = _SCALAR.match(text, pos)
        if m is None:
            raise ValueError("value expected")
        return None, m.end()

    def key_value(self, table: PNode, pos: int) -> int:
        parts, pos = self.key_parts(pos)
        if not self.text.startswith("=", pos):
            raise ValueError("= expected")
        pos = _WS.match(self.text, pos + 1).end()  # type: ignore[union-attr]
        parent = self.descend(table, parts[:-1])
        key, key_offset = parts[-1]
        sub, pos = self.value(pos)
        if isinstance(parent.children, dict):
            parent.children[key] = PNode(self.loc(key_offset), sub)
        return pos

    def descend(self, node: PNode, parts: list[tuple[str, int]]) -> PNode:
        """Walk (creating) the tables named by `parts`; arrays of tables lead into their last item."""
        for key, offset in parts:
            children = node.children
            if not isinstance(children, dict):
                children = {}
                node.children = children
            child = children.get(key)
            if child is None:
                child = PNode(self.loc(offset), {})
                children[key] = child
            if isinstance(child.children, list) and child.children:
                child = child.children[-1]
            node = child
        return node

    def scan(self) -> PNode:
        text = self.text
        current = self.root
        pos = 0
        n = len(text)
        while True:
            pos = _WS_NL_COMMENTS.match(text, pos).end()  # type: ignore[union-attr]
            if pos >= n:
                return self.root
            if text.startswith("[[", pos):
                parts, pos = self.key_parts(pos + 2)
                parent = self.descend(self.root, parts[:-1])
                key, offset = parts[-1]
                if not isinstance(parent.children, dict):
                    parent.children = {}
                holder = parent.children.get(key)
                if holder is None or not isinstance(holder.children, list):
                    holder = PNode(self.loc(offset), [])
                    parent.children[key] = holder
                item = PNode(self.loc(offset), {})
                assert isinstance(holder.children, list)
                holder.children.append(item)
                current = item
                pos = text.index("]]", pos) + 2
            elif text.startswith("[", pos):
                parts, pos = self.key_parts(pos + 1)
                current = self.descend(self.root, parts)
                pos = text.index("]", pos) + 1
            else:
                pos = self.key_value(current, pos)


def locate_toml(text: str, file: str, value: Any) -> PNode:
    """Where each key of a (valid) TOML document stands, shaped like `value`."""
    root_loc = Loc(file, 1, 1)
    try:
        scanned = _Scanner(text, file).scan()
    except (ValueError, IndexError, KeyError, RecursionError):
        return uniform_tree(value, root_loc)
    return reconcile(value, scanned, root_loc)
