"""The tables of `scan`, `status` and `context` for a terminal, drawn here rather than by rich.table.

Rich measures and lays out every cell of every row (about 1.25 ms a row: minutes for `scan --all` on
100k notes). Here each cell is measured once, the wrapping columns share what the fixed ones leave
(words break at spaces, names only after `/` and `-`), and every line is a plain string: linear, a few
microseconds a row. A column of long texts (status's reasons, context's details) may send a cell that
would take more than FOOTNOTE_LINES lines, or that holds a word wider than the column, below the table
as a numbered footnote (`[1]` in the cell), so nothing is cut mid-word at 60 or 80 columns. Rich still
decides the width and the colours (cli/terminal/output.make_console) and spells the styles' escape
codes.

Cells hold only escaped text (textsafe's policy: the record escapes names and details, the caller agent
ids), so nothing in them moves the cursor; the widths count terminal cells (wide and zero-width
characters too). Only the table views import this module, and each makes a Rich console anyway
(make_console), so Rich is imported here at the top: it costs them nothing more.
"""

from __future__ import annotations

import io
import operator
import re
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Literal

from rich.cells import cell_len, chop_cells
from rich.console import Console
from rich.text import Text

from memwarm_cli.frozen_records import record
from memwarm_cli.textsafe import escape_unsafe

# Rich's HEAVY_HEAD box: a heavy header, light body.
_HEAD_TOP = ("┏", "━", "┳", "┓")
_HEAD_ROW = ("┃", "┃", "┃")
_HEAD_BOTTOM = ("┡", "━", "╇", "┩")
_BODY_ROW = ("│", "│", "│")
_BOTTOM = ("└", "─", "┴", "┘")
_SECTION = ("├", "─", "┼", "┤")
SECTION = None  # a row of `None`: a rule between two sections of the table
FOOTNOTE_LINES = 3  # a footnote column's cell taller than this goes below the table

_NARROWEST = 4  # a wrapping column is never narrower than this, whatever the terminal
WIDE_TABLE = 120  # from this width on: the mtime and every character count
STATUS_STYLES = {
    "included": "green",
    "truncated": "yellow",
    "shrunk": "yellow",
    "budget-exhausted": "red",
    "missing": "dim",
    "outside-window": "dim",
}


def cell_width(text: str) -> int:
    if text.isascii():
        return len(text)
    return cell_len(text)


@record
class Column:
    header: str
    right: bool = False  # right-aligned (numbers)
    # Several lines: "fold" cuts anywhere; "words" breaks at spaces, and after `/` and `-` inside a word
    # too long for a line (a name, a path); what is still too long is shortened with `…`, never cut.
    wrap: Literal["fold", "words"] | None = None
    min_width: int = 0  # a wrapping column is not narrowed below this
    styled: bool = False  # takes the row's style (the status)
    # A "words" column whose cells, when too long for it (FOOTNOTE_LINES lines, or a word wider than the
    # column), become `[n]` and are written below the table.
    footnotes: bool = False


_AFTER_SEPARATOR = re.compile(r"(?<=[/-])")  # a path or a name breaks after `/` and `-`


def pieces(word: str) -> list[str]:
    """`word` cut after each `/` and `-`: the parts a line may end with (`2026-`, `11-`, `notes.md`)."""
    return [piece for piece in _AFTER_SEPARATOR.split(word) if piece] or [""]


_PART = re.compile(r"[^ /-]*[/-]?")  # a part of a line no wrap breaks: up to a space, or after `/`, `-`


@lru_cache(maxsize=4096)  # a status column repeats a handful of texts on 100k rows
def longest_piece(text: str) -> int:
    """The width of the widest part of `text` that no wrap may break (words, cut after `/` and `-`)."""
    if text.isascii():
        return max(map(len, _PART.findall(text)))
    return max(cell_width(piece) for word in text.split(" ") for piece in pieces(word))


@lru_cache(maxsize=4096)  # the status column repeats a handful of texts thousands of times
def wrap_words(text: str, width: int, *, elide: bool = False) -> tuple[str, ...]:
    """`text` wrapped to `width` cells at spaces, and inside a word too long for a line after its `/`
    and `-`. A part still too long is shortened in the middle with `…` (`elide`: a table cell, which
    must not break a name mid-token), else folded (prose, where every character must stay)."""
    lines: list[str] = []
    line = ""
    for word in text.split(" "):
        candidate = f"{line} {word}" if line else word
        if cell_width(candidate) <= width:
            line = candidate
            continue
        if cell_width(word) <= width:
            lines.append(line)
            line = word
            continue
        separator = " " if line else ""
        for piece in pieces(word):
            candidate = f"{line}{separator}{piece}"
            separator = ""
            if cell_width(candidate) <= width:
                line = candidate
                continue
            if line:
                lines.append(line)
            if cell_width(piece) <= width:
                line = piece
            elif elide:
                line = elide_middle(piece, width)
            else:
                folded = fold(piece, width)
                lines.extend(folded[:-1])
                line = folded[-1]
    lines.append(line)
    return tuple(lines)


def elide_middle(text: str, width: int) -> str:
    """`text` in `width` cells, its middle replaced by `…` (the start and the end say most of a name)."""
    if cell_width(text) <= width:
        return text
    if width <= 1:
        return "…"[:width]
    head_cells = width // 2
    tail_cells = width - 1 - head_cells
    head = fold(text, head_cells)[0]
    tail = ""
    for char in reversed(text):
        if cell_width(char + tail) > tail_cells:
            break
        tail = char + tail
    return f"{head}…{tail}"


def fold(text: str, width: int) -> list[str]:
    """`text` cut into lines of at most `width` cells (never inside a wide character)."""
    if text.isascii():
        return [text[i : i + width] for i in range(0, len(text), width)] or [""]
    return chop_cells(text, width) or [""]


def share_widths(
    content: list[int], columns: Sequence[Column], total: int, unbreakable: Sequence[int] | None = None
) -> list[int]:
    """Column widths for a table `total` cells wide, from the widest cell of each column.

    Every column is as wide as its header and its widest cell if that fits. Otherwise a fixed column's
    header wraps at its spaces (down to its longest word: never below its cells), and the wrapping
    columns share what is left (3:2 for the first two), never below their minimum nor below their
    widest `unbreakable` part (a word, a name's part between `-` and `/`), unless the terminal is too
    narrow for even that.
    """
    natural = [max(size, cell_width(c.header)) for size, c in zip(content, columns, strict=True)]
    frame = 3 * len(columns) + 1  # "│ " before each cell, " " after it, and the closing "│"
    if sum(natural) + frame <= total:
        return natural
    flexible = [i for i, column in enumerate(columns) if column.wrap]
    widths = [
        natural[i] if i in flexible else max(content[i], *map(cell_width, c.header.split(" ")))
        for i, c in enumerate(columns)
    ]
    room = total - frame - sum(w for i, w in enumerate(widths) if i not in flexible)
    if sum(natural[i] for i in flexible) <= room:
        return widths
    floors = {
        i: min(natural[i], max(columns[i].min_width, unbreakable[i] if unbreakable else 0)) for i in flexible
    }
    if sum(floors.values()) > room:  # a narrow terminal: below the minimums rather than off the screen
        floors = {i: min(natural[i], max(_NARROWEST, room // len(flexible))) for i in flexible}
    space = room
    first, *rest = flexible
    share = max(floors[first], min(natural[first], room * 3 // 5))
    for i in rest:
        widths[i] = max(floors[i], min(natural[i], room - share))
        room -= widths[i]
    widths[first] = max(floors[first], min(natural[first], room))
    # A third wrapping column (or a floor above its share) can leave the sum over the room: taken back
    # from the column with the most above its floor, cell by cell.
    excess = sum(widths[i] for i in flexible) - space
    while excess > 0:
        widest = max(flexible, key=lambda i: widths[i] - floors[i])
        slack = widths[widest] - floors[widest]
        if slack <= 0:
            break
        taken = min(excess, slack)
        widths[widest] -= taken
        excess -= taken
    return widths


class Styles:
    """The escape codes around a styled piece of text, spelled by Rich once per style."""

    def __init__(self, console: Console) -> None:
        self._console = console
        self._codes: dict[str, tuple[str, str]] = {}

    @property
    def colour(self) -> bool:
        """Whether the console shows colours (a terminal, and no NO_COLOR)."""
        return not self._console.no_color

    def apply(self, style: str, text: str) -> str:
        if not style or not text:
            return text
        codes = self._codes.get(style)
        if codes is None:
            codes = self._codes[style] = self._spell(style)
        return f"{codes[0]}{text}{codes[1]}"

    def _spell(self, style: str) -> tuple[str, str]:
        shape = self._console
        scratch = Console(
            file=io.StringIO(),
            width=shape.width,
            color_system="auto" if shape.color_system is not None else None,
            force_terminal=shape.is_terminal,
            no_color=shape.no_color,
        )
        with scratch.capture() as capture:
            scratch.print(Text("\ue000", style=style), end="")  # a private-use stand-in for the text
        before, _, after = capture.get().partition("\ue000")
        return before, after


def draw_table(
    total: int,
    title: str,
    columns: Sequence[Column],
    rows: Iterable[tuple[list[str], str] | None],
    styles: Styles,
) -> Iterator[str]:
    """The lines of a table at most `total` cells wide under `title`: `rows` gives each row's cells and
    its style, or SECTION for a rule between sections. The footnotes (if any) follow the table, wrapped
    to `total`."""
    body = [None if row is None else _measured(*row) for row in rows]
    widths = _widths(total, columns, body)
    notes: list[str] = []
    if any(c.footnotes for c in columns):
        # The widths change once cells leave for the footnotes: again, until every cell fits (it
        # does after a round or two; each round only adds footnotes).
        for _ in range(3):
            body, added = _footnoted(body, columns, widths, notes)
            if not added:
                break
            widths = _widths(total, columns, body)
    # A line of ASCII cells is one str.format call (the styled cell comes padded and styled).
    fields = [
        "{}" if c.styled else f"{{:{'>' if c.right else '<'}{w}}}"
        for c, w in zip(columns, widths, strict=True)
    ]
    template = "│ " + " │ ".join(fields) + " │"

    yield styles.apply("italic", escape_unsafe(title))
    yield _rule(_HEAD_TOP, widths)
    header = _measured([column.header for column in columns], "bold")
    for line in _row_lines(header, columns, widths, header=True):
        yield _line(
            _HEAD_ROW,
            [_pad(cell, width, False, "bold", styles) for cell, width in zip(line, widths, strict=True)],
        )
    yield _rule(_HEAD_BOTTOM, widths)
    for row in body:
        if row is None:
            yield _rule(_SECTION, widths)
            continue
        for line in _row_lines(row, columns, widths):
            cells = [
                _pad(cell, width, c.right, row.style, styles) if c.styled or not row.ascii else cell
                for cell, c, width in zip(line, columns, widths, strict=True)
            ]
            yield template.format(*cells) if row.ascii else _line(_BODY_ROW, cells)
    yield _rule(_BOTTOM, widths)
    yield from footnote_lines(notes, total)


def _widths(total: int, columns: Sequence[Column], body: Sequence[_Row | None]) -> list[int]:
    rows = [row for row in body if row is not None]
    content = [max((row.sizes[i] for row in rows), default=1) for i in range(len(columns))]
    frame = 3 * len(columns) + 1
    unbreakable = None
    if sum(max(size, cell_width(c.header)) for size, c in zip(content, columns, strict=True)) + frame > total:
        # some cells must wrap: their parts that a wrap may not break are measured (only then)
        unbreakable = [
            max((longest_piece(row.cells[i]) for row in rows), default=0)
            if c.wrap == "words" and not c.footnotes
            else 0
            for i, c in enumerate(columns)
        ]
    return share_widths(content, columns, total, unbreakable)


def _footnoted(
    body: list[_Row | None], columns: Sequence[Column], widths: list[int], notes: list[str]
) -> tuple[list[_Row | None], bool]:
    """The body with each footnote column's cell that does not fit its width replaced by `[n]` (its
    text appended to `notes`), and whether any was."""
    before = len(notes)
    markers = {f"[{number}]" for number in range(1, before + 1)}
    out: list[_Row | None] = []
    for row in body:
        if row is None:
            out.append(row)
            continue
        cells = list(row.cells)
        for i, column in enumerate(columns):
            cell, width = cells[i], widths[i]
            if not column.footnotes or row.sizes[i] <= width or cell in markers:
                continue
            if longest_piece(cell) <= width and len(wrap_words(cell, width)) <= FOOTNOTE_LINES:
                continue
            notes.append(cell)
            cells[i] = f"[{len(notes)}]"
        out.append(row if cells == row.cells else _measured(cells, row.style))
    return out, len(notes) > before


def footnote_lines(notes: Sequence[str], width: int) -> Iterator[str]:
    """`[n] text` per footnote, wrapped at spaces (and after `/`, `-`) under itself."""
    indent = len(f"[{len(notes)}] ")
    for number, text in enumerate(notes, start=1):
        marker = f"[{number}]"
        for index, line in enumerate(wrap_words(text, max(width - indent, 10))):
            yield f"{marker:<{indent}}{line}" if index == 0 else " " * indent + line


@record
class _Row:
    cells: list[str]  # guarded: nothing in them a terminal acts on
    sizes: list[int]  # their widths in terminal cells
    style: str
    ascii: bool


def _measured(cells: list[str], style: str) -> _Row:
    joined = "".join(cells)
    if joined.isascii() and joined.isprintable():  # the usual row: safe, and one cell per character
        return _Row(cells, list(map(len, cells)), style, True)
    # The writers' guard, here (the lines get escape codes of our own later): before measuring.
    safe = [escape_unsafe(cell) for cell in cells]
    return _Row(safe, [cell_width(cell) for cell in safe], style, "".join(safe).isascii())


def _row_lines(
    row: _Row, columns: Sequence[Column], widths: list[int], *, header: bool = False
) -> Iterator[list[str]]:
    """The row's cells, line by line: one line when every cell fits (the usual case), else as many as
    its tallest cell (headers wrap at spaces, cells as their column says)."""
    if all(map(operator.le, row.sizes, widths)):
        yield row.cells
        return
    parts = [
        _cell_lines(cell, size, "words" if header else column.wrap, width)
        for cell, size, column, width in zip(row.cells, row.sizes, columns, widths, strict=True)
    ]
    for index in range(max(map(len, parts))):
        yield [part[index] if index < len(part) else "" for part in parts]


def _cell_lines(cell: str, size: int, wrap: str | None, width: int) -> Sequence[str]:
    if wrap is None or size <= width:
        return (cell,)
    return wrap_words(cell, width, elide=True) if wrap == "words" else fold(cell, width)


def _pad(text: str, width: int, right: bool, style: str, styles: Styles) -> str:
    gap = " " * max(0, width - cell_width(text))
    shown = styles.apply(style, text)
    return gap + shown if right else shown + gap


def _line(box: tuple[str, str, str], cells: list[str]) -> str:
    left, middle, right = box
    return f"{left} " + f" {middle} ".join(cells) + f" {right}"


def _rule(box: tuple[str, str, str, str], widths: list[int]) -> str:
    left, fill, cross, right = box
    return left + cross.join(fill * (w + 2) for w in widths) + right
