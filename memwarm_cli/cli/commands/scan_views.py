"""`memwarm scan`'s views over the plans: a table on a terminal (cli/terminal/table.py), tab-separated
lines in a pipe, and JSON.

The plain view's columns are fixed (PLAIN_COLUMNS) and documented in the README. JSON writes each file
on one line, made as it is written (startup/scan_record.file_record_lines): `scan --all --json` on a
million notes holds the plan's names, never its rows or its text.
"""

from __future__ import annotations

from collections.abc import Iterator

from memwarm_cli.cli.terminal.output import guarded_lines, make_console
from memwarm_cli.cli.terminal.view_format import JsonView, View, Views
from memwarm_cli.startup.scan_record import (
    SCAN_SCHEMA_VERSION,
    file_record_lines,
    file_records,
    iter_file_records,
    scan_record,
)
from memwarm_cli.textsafe import escape_text, escape_unsafe

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memwarm_cli.cli.commands.scan import ScanResult
    from memwarm_cli.cli.terminal.table import Styles

PLAIN_COLUMNS = (
    "agent",
    "stamp",
    "clock",
    "kind",
    "path",
    "status",
    "detail",
    "bytes",
    "mtime",
    "chars_read",
    "chars_trimmed",
    "chars_capped",
    "chars_block",
)


def _records(result: ScanResult, files: Any) -> Iterator[dict[str, Any]]:
    """Each agent's scan record, made when asked for; `files` makes its files[] (scan_record.py)."""
    for plan in result.plans:
        yield scan_record(plan, result.config, files)


def _text(value: Any) -> str:
    return "-" if value is None else str(value)


def _plain_lines(record: dict[str, Any]) -> Iterator[str]:
    """One TSV line per file. `path` and `detail` come escaped in the record; the agent id is escaped
    here; the rest is memwarm's own vocabulary, numbers and dates."""
    agent = escape_text(record["agentId"])
    for file in record["files"]:
        chars = file["chars"]
        yield (
            f"{agent}\t{_text(file['stamp'])}\t{_text(file['clock'])}\t{_text(file['kind'])}\t"
            f"{file['path']}\t{file['status']}\t{_text(file['detail'])}\t{_text(file['bytes'])}\t"
            f"{_text(file['mtime'])}\t{_text(chars['read'])}\t{_text(chars['trimmed'])}\t"
            f"{_text(chars['capped'])}\t{_text(chars['block'])}"
        )


class ScanPlain(View["ScanResult"]):
    """One TSV line per file (PLAIN_COLUMNS); each agent's summary on stderr as `# ` lines unless `-q`."""

    name = "plain"

    def render(self, result: ScanResult) -> Iterator[str]:
        yield from guarded_lines(["\t".join(PLAIN_COLUMNS)], tsv=True)
        for record in _records(result, iter_file_records):
            yield from guarded_lines(_plain_lines(record), tsv=True)

    def summary(self, result: ScanResult) -> Iterator[str]:
        if result.quiet:
            return
        for record in _records(result, _no_files):
            for line in summary_lines(record):
                yield f"# {line}"


def _no_files(_plan: Any, _tz: Any) -> list[Any]:
    return []


def _quoted(value: Any) -> str:
    """A configured value in a sentence: a string in quotes, anything else as JSON; escaped."""
    if isinstance(value, str):
        return f'"{escape_text(value)}"'
    # json (~1 ms): only for a configured value that is not a string; scan's plain and table views
    # load no json otherwise (test_imports)
    import json

    return escape_text(json.dumps(value, ensure_ascii=False))


def summary_lines(record: dict[str, Any]) -> list[str]:
    """The human summary under the table (and on stderr, prefixed with #, in plain mode).

    Outside text (the workspace, configured values and the notes and reasons that quote them) is escaped
    part by part; `listingError` comes escaped in the record.
    """
    zone = record["timezone"]
    zone_text = escape_text(zone["used"])
    if zone["fellBack"]:
        zone_text += f" (fell back: {escape_text(zone['reason'])})"
    elif zone["configured"] != zone["used"]:
        zone_text += f" (configured {_quoted(zone['configured'])})"
    days = ", ".join(f"{d['stamp']} ({d['clock']})" for d in record["window"]["days"])
    limits = ", ".join(
        f"{name}={limit['value']} [{limit['source']}"
        + (f"; {escape_text(limit['note'])}" if limit["note"] else "")
        + "]"
        for name, limit in record["limits"].items()
    )
    budget = record["budget"]
    prelude = record["prelude"]
    counts = ", ".join(f"{status} {count}" for status, count in record["counts"].items()) or "no files"
    gate_text = ", ".join(
        f"/{action} " + ("applied" if g["applied"] else f"not applied ({escape_text(g['reason'])})")
        for action, g in record["gate"].items()
    )
    lines = [
        f"agent {escape_text(record['agentId'])}: workspace {escape_text(record['workspace'])}"
        + ("" if record["workspaceExists"] else " (does not exist)"),
        f"window: {days}; time zone {zone_text}",
        f"limits: {limits}",
        f"budget: {budget['used']} of {budget['max']} chars used, {budget['remaining']} left",
        "prelude: "
        + (f"{prelude['length']} chars" if prelude["loaded"] else "none (no daily memory loaded)")
        + ("; additional-memory truncation marker emitted" if prelude["markerEmitted"] else ""),
        f"files: {counts}",
        f"gate: {gate_text}",
    ]
    if record["listingError"]:
        lines.append(f"memory/ could not be listed: {record['listingError']}")
    return lines


class ScanTable(View["ScanResult"]):
    """One table per agent, then (narrower than WIDE_TABLE) the legend of its status codes and its
    summary, wrapped to the terminal."""

    name = "table"
    needs_terminal = True

    def render(self, result: ScanResult) -> Iterator[str]:
        # table and the Rich it imports (~25 ms): only this view draws one, not scan's pipe or JSON
        from memwarm_cli.cli.terminal.table import WIDE_TABLE, Styles, wrap_words

        console = make_console()
        styles = Styles(console)
        width = console.width
        # The table's lines hold its escape codes (not guarded again); its cells are guarded in there.
        for index, record in enumerate(_records(result, file_records)):
            if index:
                yield "\n"
            for line in draw_record_table(width, styles, record):
                yield line + "\n"
            if width < WIDE_TABLE:
                for line in legend_lines(record, width):
                    yield line + "\n"
            for line in summary_lines(record):  # wrapped at spaces to the terminal, as Rich would
                for part in wrap_words(escape_unsafe(line), width):
                    yield part + "\n"


def draw_record_table(width: int, styles: Styles, record: dict[str, Any]) -> Iterator[str]:
    """One agent's table. Wide (WIDE_TABLE columns and more): the date, kind, mtime, every character
    count and each status's description. Narrower: only what the file name does not say already (its
    date and kind are in it), the status as its code (legend_lines explains the codes) and the block's
    characters, so names and statuses keep room to wrap between their parts, never inside one."""
    # table (with Rich, ~25 ms): only for ScanTable, as above
    from memwarm_cli.cli.terminal.table import STATUS_STYLES, WIDE_TABLE, Column, draw_table

    wide = width >= WIDE_TABLE
    file_column = Column("file in memory/", wrap="words", min_width=16)
    if wide:
        columns = [
            Column("date"),
            file_column,
            Column("kind"),
            Column("bytes", right=True),
            Column("modified"),
            Column("status", wrap="words", min_width=14, styled=True),
            Column("chars read/trim/cap/block", right=True),
        ]
    else:
        columns = [
            file_column,
            Column("bytes", right=True),
            Column("status", wrap="words", min_width=8, styled=True),
            Column("block", right=True),
        ]
    colour = styles.colour

    def rows() -> Iterator[tuple[list[str], str]]:
        for file in record["files"]:
            chars = file["chars"]
            name = file["path"].removeprefix("memory/")
            detail = f" ({file['detail']})" if file["detail"] else ""
            utc = file["clock"] == "utc"
            if wide:
                mtime = file["mtime"]
                cells = [
                    (file["stamp"] or "-") + (" utc" if utc else ""),
                    name,
                    file["kind"] or "-",
                    _text(file["bytes"]),
                    mtime[:16].replace("T", " ") if mtime else "-",
                    file["statusText"] + detail,
                    "/".join(_text(chars[k]) for k in ("read", "trimmed", "capped", "block")),
                ]
            else:
                status = file["status"] + (" (utc)" if utc else "") + detail
                cells = [name, _text(file["bytes"]), status, _text(chars["block"])]
            yield cells, STATUS_STYLES.get(file["status"], "") if colour else ""

    yield from draw_table(width, f"agent {escape_text(record['agentId'])}", columns, rows(), styles)


# Statuses whose statusText (JSON's, fixed) is the code itself, as the legend explains them.
LEGEND_MEANINGS = {
    "included": "in the prelude, whole",
    "missing": "no such file: a day of the window without a note",
    "unreadable": "could not be read (permissions, an I/O error)",
}


def legend_lines(record: dict[str, Any], width: int) -> list[str]:
    """What the narrow table's status codes mean: each code shown, in the order of the rows, its
    meaning wrapped under itself."""
    # table (with Rich, ~25 ms): only for ScanTable, as above
    from memwarm_cli.cli.terminal.table import wrap_words

    meanings: dict[str, str] = {}
    for file in record["files"]:
        text = file["statusText"]
        # A legend that repeats the code (`included  included`) says nothing: the longer meaning.
        meanings.setdefault(
            file["status"], LEGEND_MEANINGS.get(text, text) if text == file["status"] else text
        )
    if any(file["clock"] == "utc" for file in record["files"]):
        meanings["(utc)"] = "dated by the UTC day only, outside the local date window"
    if not meanings:
        return []
    indent = 2 + max(map(len, meanings)) + 2
    lines = ["statuses:"]
    for code, meaning in meanings.items():
        wrapped = wrap_words(meaning, max(width - indent, 10))
        lines.append(f"  {code:<{indent - 4}}  {wrapped[0]}")
        lines.extend(" " * indent + more for more in wrapped[1:])
    return lines


def _json_data(result: ScanResult) -> Any:
    """One agent's record, or with `--all-agents` an object holding every agent's (`schema` on top)."""
    records = _records(result, file_record_lines)
    if result.all_agents:
        return {"schema": SCAN_SCHEMA_VERSION, "agents": list(records)}
    return next(records)


SCAN_VIEWS: Views[ScanResult] = Views(
    ScanTable(), ScanPlain(), JsonView(_json_data, rows_key="files", row_text=str), pipe="plain"
)
