"""A small JSON5 reader that can report where every key and value stands.

Accepts what the `json5` npm package (OpenClaw's parser) accepts: comments, trailing commas, unquoted
identifier keys, single-quoted strings with line continuations, hex numbers, leading/trailing decimal
points, `+`, `Infinity` and `NaN`. Errors read like the npm package's (`invalid character 'x'`,
`invalid end of input`) and carry a 1-based line and column; the character is quoted as it is (the views
escape it), and where a value is followed by something that starts another key or item, the message
adds " (missing comma before it?)"; an unterminated string names where it started, and a string ended
by a quote inside it (`'it's'`) says so. Token scanning uses regular expressions,
so it is several times faster than the pure-Python `json5` package and needs no compiled extension.
"""

from __future__ import annotations

import functools
import re

from memwarm_cli.config.positions import Duplicate, LineIndex, Loc, LoneSurrogate, ParseNote, PNode
from memwarm_cli.jsstring import JS_WHITESPACE, js_int, well_formed_with_escapes

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# JSON5 WhiteSpace (TAB, VT, FF, SP, NBSP, BOM, every Zs) plus LineTerminator (LF, CR, LS, PS) is
# exactly the set JS `trim()` strips.
_WS_CHARS = re.escape(JS_WHITESPACE)
# Whitespace and complete comments; an unterminated `/*` is left for the caller to report. An ASCII text
# (nearly every config) is skipped by the ASCII spelling, which matches it exactly as the full one does:
# the full one's two non-ASCII sets cost ~0.25 ms to compile (re builds a 64K-character map of each), a
# share of every start that only a config holding non-ASCII text needs to pay.
_SKIP_ASCII = re.compile(r"(?:[\t-\r ]+|//[^\n\r]*|/\*.*?\*/)*", re.S)


@functools.cache
def _unicode_skip() -> re.Pattern[str]:
    return re.compile(rf"(?:[{_WS_CHARS}]+|//[^\n\r\u2028\u2029]*|/\*.*?\*/)*", re.S)


_SIMPLE_DQ = re.compile(r'"([^"\\\n\r]*)"')
_SIMPLE_SQ = re.compile(r"'([^'\\\n\r]*)'")
# The other expressions are compiled where first needed (compiling them all cost every start ~0.5 ms,
# the prelude's too, whose config may hold no number, unquoted key, escape or error): those of rare
# parts by re.compile at the use, whose cache keeps them, those of common parts by a cached function.
_HEX4 = r"[0-9a-fA-F]{4}"
_HEX2 = r"[0-9a-fA-F]{2}"


@functools.cache  # once, for the many numbers of a big config
def _number_pattern() -> re.Pattern[str]:
    return re.compile(
        r"[+-]?(?:Infinity|NaN|0[xX][0-9a-fA-F]+|(?:(?:0|[1-9][0-9]*)(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    )


@functools.cache  # once, for the many unquoted keys of a big config
def _ident_pattern() -> re.Pattern[str]:
    return re.compile(r"(?:[$_]|[^\W\d]|\\u[0-9a-fA-F]{4})(?:[$_\u200c\u200d\w]|\\u[0-9a-fA-F]{4})*")


_LITERALS: dict[str, tuple[str, Any]] = {"t": ("true", True), "f": ("false", False), "n": ("null", None)}
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "'": "'", '"': '"', "\\": "\\"}
_LINE_BREAKS = "\n\r\u2028\u2029"


class Json5Error(ValueError):
    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"{message} at {line}:{column}")
        self.message = message
        self.line = line
        self.column = column


def _describe_char(ch: str) -> str:
    """The character in quotes, as it is: the one escaping is the view's (textsafe), so a backslash
    or a line break is shown once escaped, never twice. (The npm package escapes it itself: `'\\'`.)"""
    return f'"{ch}"' if ch == "'" else f"'{ch}'"


# What may start an object key, or any value: after a complete value, one of these means a comma is
# likely missing (`{a: 1 b: 2}`, `[1 2]`).
# Spelled so: as `["']|[$_\\]|[^\W\d]` the compiler merges the sets into one negated Unicode set and
# takes ~20 ms over it (the same characters either way).
_KEY_START = r"""[^\W\d]|["'$_\\]"""
_VALUE_START = r"""[\[{"'+\-.0-9]|true\b|false\b|null\b|Infinity\b|NaN\b"""


class _Reader:
    __slots__ = ("file", "index", "lone", "notes", "skipper", "text", "track")

    def __init__(self, text: str, file: str, track: bool) -> None:
        self.text = text
        self.skipper = _SKIP_ASCII if text.isascii() else _unicode_skip()
        self.file = file
        self.track = track
        self.index: LineIndex | None = None
        self.notes: list[ParseNote] = []
        # The lone surrogates the last string held (escaped), until its entry notes them.
        self.lone = ""

    # -- positions and errors -------------------------------------------------------------------------

    def position(self, offset: int) -> tuple[int, int]:
        if self.index is None:
            self.index = LineIndex(self.text)
        return self.index.position(offset)

    def loc(self, offset: int) -> Loc:
        line, column = self.position(offset)
        return Loc(self.file, line, column)

    def fail(self, offset: int, hint: str = "") -> Json5Error:
        text = self.text
        if offset >= len(text):
            line, column = self.position(len(text))
            return Json5Error(f"invalid end of input{hint}", line, column)
        line, column = self.position(offset)
        return Json5Error(f"invalid character {_describe_char(text[offset])}{hint}", line, column)

    def after_value(self, pos: int, starts: str) -> Json5Error:
        """The error for what follows a complete value where `,` or the closing bracket belongs; when
        it starts another key (`starts`: a key, or a value in an array), a comma is likely missing."""
        text = self.text
        quote = text[pos - 1] if pos > 0 else ""
        if quote in ("'", '"') and pos < len(text) and (text[pos].isalnum() or text[pos] == quote):
            # `'it's'`: the string ended at a quote inside it, and its rest follows with no space.
            other = '"' if quote == "'" else "'"
            hint = (
                f" (a {quote} inside a {quote}-quoted string ends it: put a backslash before it, or quote "
                f"the string with {other})"
            )
            return self.fail(pos, hint)
        missing = re.compile(starts).match(text, pos) is not None
        return self.fail(pos, " (missing comma before it?)" if missing else "")

    def unterminated(self, start: int) -> str:
        """The hint for a string that reaches a line break or the end: where it started (a line break
        inside a string must be escaped: `\\n`, or a backslash ending the line)."""
        line, column = self.position(start)
        return f" (unterminated string starting at {line}:{column})"

    def skip(self, pos: int) -> int:
        pos = self.skipper.match(self.text, pos).end()  # type: ignore[union-attr]
        text = self.text
        if pos < len(text) and text[pos] == "/":
            nxt = text[pos + 1 : pos + 2]
            if nxt == "*":
                raise self.fail(len(text))  # unterminated block comment
            raise self.fail(pos + 1)
        return pos

    def well_formed(self, text: str) -> str:
        """A string with escapes decoded: surrogate pairs joined, lone surrogates U+FFFD (as Node writes
        them to file names, argv and env), remembered in `lone` for the entry to note."""
        text, lone = well_formed_with_escapes(text)
        self.lone += lone
        return text

    def note_lone(self, loc: Loc, key_lone: str = "") -> None:
        """Note the lone surrogates the entry at `loc` held (its key's and its string value's)."""
        lone, self.lone = key_lone + self.lone, ""
        if lone:
            self.notes.append(LoneSurrogate(loc, lone))

    # -- values -----------------------------------------------------------------------------------------

    def value(self, pos: int) -> tuple[Any, dict[str, PNode] | list[PNode] | None, int]:
        text = self.text
        if pos >= len(text):
            raise self.fail(pos)
        ch = text[pos]
        if ch == "{":
            return self.obj(pos + 1)
        if ch == "[":
            return self.arr(pos + 1)
        if ch == '"' or ch == "'":
            s, end = self.string(pos)
            return s, None, end
        if ch in _LITERALS:
            word, val = _LITERALS[ch]
            if text.startswith(word, pos):
                return val, None, pos + len(word)
            raise self.fail(self._mismatch(pos, word))
        m = _number_pattern().match(text, pos)
        if m is None:
            if ch in "+-.":
                raise self.fail(pos + 1)
            if ch == "I" or ch == "N":
                raise self.fail(self._mismatch(pos, "Infinity" if ch == "I" else "NaN"))
            raise self.fail(pos)
        return _number(m.group()), None, m.end()

    def _mismatch(self, pos: int, word: str) -> int:
        text = self.text
        i = 0
        while i < len(word) and pos + i < len(text) and text[pos + i] == word[i]:
            i += 1
        return pos + i

    def string(self, pos: int) -> tuple[str, int]:
        text = self.text
        quote = text[pos]
        m = (_SIMPLE_DQ if quote == '"' else _SIMPLE_SQ).match(text, pos)
        if m is not None:
            return m.group(1), m.end()
        parts: list[str] = []
        i = pos + 1
        n = len(text)
        while True:
            if i >= n:
                raise self.fail(i, self.unterminated(pos))
            ch = text[i]
            if ch == quote:
                return self.well_formed("".join(parts)), i + 1
            if ch == "\\":
                i += 1
                if i >= n:
                    raise self.fail(i)
                e = text[i]
                if e in _ESCAPES:
                    parts.append(_ESCAPES[e])
                    i += 1
                elif e == "0":
                    if i + 1 < n and text[i + 1].isdigit() and text[i + 1] in "0123456789":
                        raise self.fail(i + 1)
                    parts.append("\0")
                    i += 1
                elif e == "x":
                    hm = re.compile(_HEX2).match(text, i + 1)
                    if hm is None:
                        raise self.fail(self._first_non_hex(i + 1, 2))
                    parts.append(chr(int(hm.group(), 16)))
                    i = hm.end()
                elif e == "u":
                    hm = re.compile(_HEX4).match(text, i + 1)
                    if hm is None:
                        raise self.fail(self._first_non_hex(i + 1, 4))
                    parts.append(chr(int(hm.group(), 16)))
                    i = hm.end()
                elif e == "\r":
                    i += 2 if text[i + 1 : i + 2] == "\n" else 1
                elif e in "\n\u2028\u2029":
                    i += 1
                elif e in "123456789":
                    raise self.fail(i)
                else:
                    parts.append(e)
                    i += 1
                continue
            if ch == "\n" or ch == "\r":
                raise self.fail(i, self.unterminated(pos))
            j = i + 1
            while j < n and text[j] not in (quote, "\\", "\n", "\r"):
                j += 1
            parts.append(text[i:j])
            i = j

    def _first_non_hex(self, start: int, count: int) -> int:
        text = self.text
        i = start
        while i < start + count and i < len(text) and text[i] in "0123456789abcdefABCDEF":
            i += 1
        return i

    def key(self, pos: int) -> tuple[str, int]:
        text = self.text
        if pos >= len(text):
            raise self.fail(pos)
        ch = text[pos]
        if ch == '"' or ch == "'":
            return self.string(pos)
        m = _ident_pattern().match(text, pos)
        if m is None:
            raise self.fail(pos)
        raw = m.group()
        if "\\" in raw:
            raw = self.well_formed(re.sub(r"\\u([0-9a-fA-F]{4})", lambda h: chr(int(h.group(1), 16)), raw))
        return raw, m.end()

    def obj(self, pos: int) -> tuple[dict[str, Any], dict[str, PNode] | None, int]:
        text = self.text
        result: dict[str, Any] = {}
        children: dict[str, PNode] | None = {} if self.track else None
        pos = self.skip(pos)
        while True:
            if pos < len(text) and text[pos] == "}":
                return result, children, pos + 1
            key_start = pos
            key, pos = self.key(pos)
            key_lone, self.lone = self.lone, ""
            pos = self.skip(pos)
            if pos >= len(text) or text[pos] != ":":
                raise self.fail(pos)
            pos = self.skip(pos + 1)
            value, sub, pos = self.value(pos)
            result[key] = value
            if children is not None:
                key_loc = self.loc(key_start)
                if key in children:
                    self.notes.append(Duplicate(key_loc, children[key].loc, key))
                children[key] = PNode(key_loc, sub)
                self.note_lone(key_loc, key_lone)
            pos = self.skip(pos)
            if pos < len(text) and text[pos] == ",":
                pos = self.skip(pos + 1)
                continue
            if pos < len(text) and text[pos] == "}":
                return result, children, pos + 1
            raise self.after_value(pos, _KEY_START)

    def arr(self, pos: int) -> tuple[list[Any], list[PNode] | None, int]:
        text = self.text
        result: list[Any] = []
        children: list[PNode] | None = [] if self.track else None
        pos = self.skip(pos)
        while True:
            if pos < len(text) and text[pos] == "]":
                return result, children, pos + 1
            start = pos
            value, sub, pos = self.value(pos)
            result.append(value)
            if children is not None:
                item_loc = self.loc(start)
                children.append(PNode(item_loc, sub))
                self.note_lone(item_loc)
            pos = self.skip(pos)
            if pos < len(text) and text[pos] == ",":
                pos = self.skip(pos + 1)
                continue
            if pos < len(text) and text[pos] == "]":
                return result, children, pos + 1
            raise self.after_value(pos, _VALUE_START)


# The largest integer a double holds exactly, with every integer below it (Number.MAX_SAFE_INTEGER + 1).


def _number(token: str) -> int | float:
    """A number literal as JS reads it: always a double (ints are kept as int while exact)."""
    sign = -1 if token[0] == "-" else 1
    body = token[1:] if token[0] in "+-" else token
    if body == "Infinity":
        return sign * float("inf")
    if body == "NaN":
        return float("nan")
    if body[:2] in ("0x", "0X"):
        return js_int(sign * int(body, 16))  # base 16 has no digit limit
    if "." in body or "e" in body or "E" in body:
        return sign * float(body)
    if sign < 0 and body == "0":
        return -0.0
    if len(body) > 16:
        # No leading zeros, so more than 16 digits is above 2**53; float() rounds as JS does and,
        # unlike int(), takes any number of digits (int() refuses more than 4300).
        return sign * float(body)
    return js_int(sign * int(body))


def parse_json5(text: str, file: str = "<string>", *, track: bool = False) -> tuple[Any, PNode | None]:
    """Parse a JSON5 document. With `track`, also return the position tree (see positions.py)."""
    reader = _Reader(text, file, track)
    pos = reader.skip(0)
    start = pos
    value, children, pos = reader.value(pos)
    pos = reader.skip(pos)
    if pos < len(text):
        raise reader.fail(pos)
    node = PNode(reader.loc(start), children) if track else None
    if node is not None:
        reader.note_lone(node.loc)
        if reader.notes:
            node.notes = reader.notes
    return value, node


def loads(text: str) -> Any:
    """Parse a JSON5 document into plain Python values."""
    return parse_json5(text)[0]
