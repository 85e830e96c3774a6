"""Source positions of config values: a tree parallel to the parsed data.

For an object entry the position is where its key stands; for an array item, where the item starts;
for the root, where the document's value starts. Each position names the file it comes from, so values
merged in by `$include` keep pointing at the included file.
"""

from __future__ import annotations

from bisect import bisect_right

from memwarm_cli.frozen_records import record


def join_path(path: str, key: str | int) -> str:
    """The dotted path of a child: `parent.key`, `parent[i]` for array items, `key` at the top."""
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


@record
class Loc:
    file: str
    line: int  # 1-based
    column: int  # 1-based, in characters


@record
class Duplicate:
    """A key given twice in one object: the later value wins, as in JSON5 (and PyYAML)."""

    later: Loc
    earlier: Loc
    key: str


@record
class LoneSurrogate:
    """A key or value that held lone surrogates (`"\\ud800"` is valid JSON5), read as U+FFFD.

    `loc` is the entry's (the same object as its PNode's), `escapes` the surrogates as `\\udXXX`.
    """

    loc: Loc
    escapes: str


# What a parser noticed about a document besides its values (config check reports them as warnings).
ParseNote = Duplicate | LoneSurrogate


class PNode:
    """Position of one value, and of its children (dict for objects, list for arrays, None for scalars)."""

    __slots__ = ("children", "loc", "notes")

    def __init__(self, loc: Loc, children: dict[str, PNode] | list[PNode] | None = None) -> None:
        self.loc = loc
        self.children = children
        # Only on a parsed document's root: keys given twice in one object, lone surrogates replaced.
        self.notes: list[ParseNote] | None = None

    def child(self, key: str | int) -> PNode | None:
        children = self.children
        if isinstance(key, int):
            if isinstance(children, list) and 0 <= key < len(children):
                return children[key]
            return None
        if isinstance(children, dict):
            return children.get(key)
        return None

    def __repr__(self) -> str:
        return f"PNode({self.loc.line}:{self.loc.column}, {self.children!r})"


class LineIndex:
    """Offset → (line, column), counting `\\n` as the only line break (as the `json5` npm package does)."""

    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        starts = [0]
        find = text.find
        i = find("\n")
        while i != -1:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self._starts = starts

    def position(self, offset: int) -> tuple[int, int]:
        line = bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1
