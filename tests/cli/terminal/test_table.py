"""scan's table, drawn without rich.table: widths in terminal cells, wrapping, styles, and its cost."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from rich.cells import cell_len
from rich.console import Console

from memwarm_cli.cli.terminal.table import (
    Column,
    Styles,
    draw_table,
    elide_middle,
    fold,
    longest_piece,
    pieces,
    share_widths,
    wrap_words,
)
from tests.conftest import RunCli, write_memory_note
from tests.terminal_safety import HOSTILE, assert_safe_output

COLUMNS = [
    Column("date"),
    Column("file in memory/", wrap="fold", min_width=16),
    Column("bytes", right=True),
    Column("status", wrap="words", min_width=14, styled=True),
]
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def console(width: int, *, colour: bool = True) -> Console:
    return Console(
        file=io.StringIO(), width=width, force_terminal=colour, color_system="standard" if colour else None
    )


def draw(width: int, rows: list[tuple[list[str], str]], *, colour: bool = True) -> list[str]:
    shape = console(width, colour=colour)
    return list(draw_table(width, "agent main", COLUMNS, rows, Styles(shape)))


def test_a_table_that_fits_keeps_every_cell_on_one_line() -> None:
    lines = draw(120, [(["2026-04-11", "2026-04-11.md", "6", "included"], "green")])
    assert len(lines) == 6  # title, top rule, header, rule, one row, bottom rule
    assert _SGR.sub("", lines[4]) == "│ 2026-04-11 │ 2026-04-11.md   │     6 │ included │"
    assert "\x1b[32mincluded\x1b[0m" in lines[4]  # the status, coloured
    assert lines[0] == "\x1b[3magent main\x1b[0m"


@pytest.mark.parametrize("width", [40, 60, 80, 100])
def test_every_line_is_as_wide_as_the_table_whatever_the_cells(width: int) -> None:
    rows = [
        (["2026-04-11", "2026-04-11-" + "日本語のメモ" * 4 + ".md", "123", "included"], "green"),
        (["-", "notes " * 12, "-", "name is not YYYY-MM-DD.md or YYYY-MM-DD-<slug>.md"], ""),
        (
            ["2026-04-10", "a\\x1b[31mb\\u202ec.md", "-", "symlink escaping the workspace (points to /x)"],
            "red",
        ),
    ]
    lines = [_SGR.sub("", line) for line in draw(width, rows)[1:]]
    widths = {cell_len(line) for line in lines}
    assert len(widths) == 1, lines
    if width >= 60:
        assert widths == {width} or max(widths) <= width


def test_cells_that_slipped_through_unescaped_are_guarded() -> None:
    lines = draw(80, [(["2026-04-11", f"x{HOSTILE}.md", "1", f"included ({HOSTILE})"], "green")])
    assert_safe_output(_SGR.sub("", "\n".join(lines)))
    assert len({cell_len(_SGR.sub("", line)) for line in lines[1:]}) == 1


def test_no_colour_means_no_style_on_the_cells() -> None:
    lines = draw(80, [(["2026-04-11", "2026-04-11.md", "6", "included"], "")], colour=False)
    assert not any("\x1b" in line for line in lines)


def test_widths_fixed_columns_keep_theirs_and_wrapping_ones_share_the_rest() -> None:
    content = [10, 60, 5, 40]
    assert share_widths(content, COLUMNS, 200) == [10, 60, 5, 40]  # everything fits
    widths = share_widths(content, COLUMNS, 80)
    assert widths[0] == 10 and widths[2] == 5 and sum(widths) + 13 == 80
    assert widths[1] >= 16 and widths[3] >= 14
    narrow = share_widths(content, COLUMNS, 40)
    assert narrow[1] < 16 and narrow[3] < 14 and min(narrow[1], narrow[3]) >= 4


def test_a_fixed_column_header_wraps_before_the_table_overflows() -> None:
    columns = [Column("chars read/trim/cap/block", right=True), Column("status", wrap="words")]
    assert share_widths([7, 30], columns, 62) == [25, 30]  # 2 x 3 + 1 cells of frame
    assert share_widths([7, 30], columns, 61) == [19, 30]  # "chars" over "read/trim/cap/block"


def test_wrapping_counts_terminal_cells() -> None:
    assert wrap_words("outside the date window", 14) == ("outside the", "date window")
    assert all(cell_len(piece) <= 5 for piece in fold("日本語のメモ.md", 5))
    assert "".join(fold("日本語のメモ.md", 5)) == "日本語のメモ.md"
    assert cell_len(elide_middle("日本語のメモです.md", 7)) <= 7


def test_words_break_after_dashes_and_slashes_never_inside_a_part() -> None:
    assert wrap_words("2026-11-27-billing-export.md", 20) == ("2026-11-27-billing-", "export.md")
    assert wrap_words("points to /home/user/very/long/path", 12) == (
        "points to /",
        "home/user/",
        "very/long/",
        "path",
    )
    # A part longer than a line: shortened in the middle in a table cell, folded in prose.
    assert wrap_words("YYYY-MM-DD-<slug>.md", 8, elide=True) == ("YYYY-MM-", "DD-", "<slu….md")
    assert wrap_words("YYYY-MM-DD-<slug>.md", 8) == ("YYYY-MM-", "DD-", "<slug>.m", "d")
    assert pieces("2026-04-11-a/b.md") == ["2026-", "04-", "11-", "a/", "b.md"]
    assert longest_piece("points to /home/averylongdirectory/x") == len("averylongdirectory/")


def test_twenty_thousand_rows_are_drawn_one_line_each() -> None:
    """What they cost (rich.table took about 1.25 ms a row, two minutes for 100k; a few us a row here) is
    measured by bench/bench_costs.py: a wall-clock bound does not hold on a loaded machine."""
    rows = [
        (
            [f"2026-01-{i % 28 + 1:02d}", f"2026-01-01-note-{i:05d}.md", str(i), "outside the date window"],
            "dim",
        )
        for i in range(20_000)
    ]
    lines = draw(100, rows)
    assert len(lines) == 5 + 20_000


# --- `memwarm scan` at 60, 80 and 120 columns ---------------------------------------------------------

AT = (
    "2026-04-12T02:00:00Z"  # 21:00 on the 11th in Chicago: the UTC day (the 12th) is outside the local window
)
LONG_SLUG = "2026-04-11-quarterly-planning-notes-with-the-whole-team.md"
NO_SEPARATORS = "2026-04-11-averyveryverylongslugwithoutanyseparatorsatall.md"


@pytest.fixture
def scan_case(tmp_path: Path) -> list[str]:
    ws, outside = tmp_path / "ws", tmp_path / "outside" / "a-rather-deep" / "directory-tree"
    write_memory_note(ws, LONG_SLUG, "planning", mtime=1_775_900_000)
    write_memory_note(ws, NO_SEPARATORS, "long", mtime=1_775_800_000)
    write_memory_note(ws, "2026-04-10.md", "x" * 5000)  # truncated to maxFileChars
    write_memory_note(ws, "2026-04-12.md", "utc")  # dated by the UTC day only
    write_memory_note(ws, "notes-without-date.md", "misnamed")
    outside.mkdir(parents=True)
    (outside / "target.md").write_text("outside", encoding="utf-8")
    (ws / "memory" / "2026-04-11.md").symlink_to(outside / "target.md")
    config = tmp_path / "openclaw.json"
    config.write_text(json.dumps({"agents": {"defaults": {"userTimezone": "America/Chicago"}}}))
    return ["--config", str(config), "scan", "--all", "--at", AT, "-w", str(ws), "--format", "table"]


def _rows(lines: list[str]) -> tuple[list[str], list[list[list[str]]]]:
    """The header's cells, and per row the lines of each of its cells (a row's first line has its
    bytes; the lines after it, with that cell empty, continue it)."""
    body = [[cell.strip() for cell in line.strip("│┃").split("│")] for line in lines if line.startswith("│")]
    header = [c.strip() for c in next(line for line in lines if line.startswith("┃")).strip("┃").split("┃")]
    bytes_at = header.index("bytes")
    rows: list[list[list[str]]] = []
    for cells in body:
        if cells[bytes_at]:
            rows.append([[cell] if cell else [] for cell in cells])
        else:
            for parts, cell in zip(rows[-1], cells, strict=True):
                if cell:
                    parts.append(cell)
    return header, rows


def _joined(parts: list[str]) -> str:
    """A wrapped cell's lines as one text: after `-` or `/` the line broke inside a word, else at a space."""
    text = ""
    for part in parts:
        text += part if not text or text.endswith(("-", "/")) else " " + part
    return text


@pytest.mark.parametrize("width", [60, 80, 120])
def test_scan_table_breaks_no_name_mid_token_at_any_width(
    run_cli: RunCli, scan_case: list[str], width: int
) -> None:
    result = run_cli(scan_case, env={"COLUMNS": str(width)})
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert all(cell_len(line) <= width for line in lines), [line for line in lines if cell_len(line) > width]
    header, rows = _rows(lines)
    names = {_joined(row[header.index("file in memory/")]) for row in rows}
    expected = {"2026-04-11.md", LONG_SLUG, "2026-04-10.md", "2026-04-12.md", "notes-without-date.md"}
    assert expected <= names  # each whole: broken only after `-`, put back together exactly
    (elided,) = names - expected  # a part too long for the column (if it is) loses its middle, only that
    head, _, tail = elided.partition("…")
    assert NO_SEPARATORS.startswith(head) and NO_SEPARATORS.endswith(tail) and len(head) >= 4
    status_at = next(i for i, name in enumerate(header) if name.startswith("status"))
    statuses = {_joined(row[header.index("file in memory/")]): _joined(row[status_at]) for row in rows}
    link_target = str(Path(scan_case[-3]).parent / "outside" / "a-rather-deep" / "directory-tree")
    if width >= 120:  # wide: every column, and each status described
        assert header[:5] == ["date", "file in memory/", "kind", "bytes", "modified"]
        assert statuses["2026-04-10.md"] == "included, truncated to maxFileChars"
        assert statuses["2026-04-11.md"].startswith("symlink escaping the workspace (points to /")
        assert "statuses:" not in result.stdout
    else:  # narrow: no column the file name already says (date, kind), status codes and a legend
        assert header == ["file in memory/", "bytes", "status", "block"]
        assert statuses["2026-04-10.md"] == "truncated"
        assert statuses["2026-04-12.md"] == "included (utc)"
        assert statuses["notes-without-date.md"] == "name-mismatch"
        # The detail is a path: it breaks after its `/`; one of pytest's long directory names may be
        # too long for the column, and shortened in its middle.
        shown = statuses["2026-04-11.md"]
        full = f"symlink-escape (points to {link_target}/target.md)"
        head, _, tail = shown.partition("…")
        assert shown == full or (full.startswith(head) and full.endswith(tail) and len(shown) < len(full))
        assert shown.startswith("symlink-escape (points to /") and shown.endswith("/target.md)")
        legend = result.stdout.split("statuses:\n", 1)[1]
        flat = " ".join(legend.split())
        for code, meaning in [
            ("truncated", "included, truncated to maxFileChars"),
            ("symlink-escape", "symlink escaping the workspace"),
            ("name-mismatch", "name is not YYYY-MM-DD.md or YYYY-MM-DD-<slug>.md"),
            ("(utc)", "dated by the UTC day only, outside the local date window"),
            ("included", "in the prelude, whole"),  # never the tautological `included included`
        ]:
            assert f"{code} {meaning}" in flat
        assert "included included" not in flat
