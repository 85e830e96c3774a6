"""`memwarm scan`: every file the startup prelude considered, what happened to it and why.

Views over the same plan the prelude prints: a table on a terminal (cli/terminal/table.py), tab-separated
lines in a pipe, or JSON (one line per file). The plain view's columns are fixed (PLAIN_COLUMNS) and
documented in the README. Typer-free, so cli/fastpath.py can run it too; the Typer command is
cli/commands/scan_cmd.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memwarm_cli.textsafe import escape_text

if TYPE_CHECKING:
    from rich.console import Console

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


class ScanFormat(StrEnum):
    table = "table"
    plain = "plain"
    json = "json"


SCAN_FORMATS = tuple(ScanFormat)


def run_scan(
    config_path: str | None,
    agent: str | None = None,
    all_agents: bool = False,
    workspace: Path | None = None,
    at: str | None = None,
    show_all: bool = False,
    json_output: bool = False,
    output_format: str | None = None,
    quiet: bool = False,
) -> None:
    """Explain every candidate memory file and where the character budget went."""
    from memwarm_cli.agents import resolve_agents, select_agent
    from memwarm_cli.cli.terminal.invocation import load_for_command
    from memwarm_cli.cli.terminal.output import stdout_is_terminal, write_json
    from memwarm_cli.cli.terminal.view_format import chosen_format
    from memwarm_cli.errors import UsageError
    from memwarm_cli.startup.clock import parse_instant
    from memwarm_cli.startup.scan_record import file_record_lines, file_records, scan_record
    from memwarm_cli.startup.session import plan_for_agent

    if all_agents and agent is not None:
        raise UsageError("--agent and --all-agents exclude each other")
    chosen = chosen_format(json_output, output_format, SCAN_FORMATS)
    if chosen is None:
        fmt = ScanFormat.table if stdout_is_terminal() else ScanFormat.plain
    else:
        fmt = ScanFormat(chosen)

    at_ms = parse_instant(at)
    loaded = load_for_command(config_path, quiet=quiet)
    agents = (
        resolve_agents(loaded.data, loaded.env)
        if all_agents
        else [select_agent(loaded.data, loaded.env, agent)]
    )
    # JSON gets each file as its JSON text at once (file_record_lines): 100k rows are not built twice.
    files = file_record_lines if fmt is ScanFormat.json else file_records
    records = [
        scan_record(
            plan_for_agent(loaded, chosen, at_ms, workspace_override=workspace, include_others=show_all),
            loaded.data,
            files,
        )
        for chosen in agents
    ]
    if fmt is ScanFormat.json:
        write_json(records if all_agents else records[0], rows_key="files", row_text=str)
    elif fmt is ScanFormat.plain:
        _write_plain(records, quiet)
    else:
        _write_tables(records)


def _text(value: Any) -> str:
    return "-" if value is None else str(value)


def _plain_lines(record: dict[str, Any]) -> Iterator[str]:
    """One TSV line per file. `path` and `detail` come escaped in the record; the agent id is escaped
    here; the rest is memwarm's own vocabulary, numbers and dates."""
    agent = escape_text(record["agent"])
    for file in record["files"]:
        chars = file["chars"]
        yield (
            f"{agent}\t{_text(file['stamp'])}\t{_text(file['clock'])}\t{_text(file['kind'])}\t"
            f"{file['path']}\t{file['status']}\t{_text(file['detail'])}\t{_text(file['bytes'])}\t"
            f"{_text(file['mtime'])}\t{_text(chars['read'])}\t{_text(chars['trimmed'])}\t"
            f"{_text(chars['capped'])}\t{_text(chars['block'])}"
        )


def _write_plain(records: list[dict[str, Any]], quiet: bool) -> None:
    from memwarm_cli.cli.terminal.output import write_lines, write_stderr

    lines = ["\t".join(PLAIN_COLUMNS)]
    for record in records:
        lines.extend(_plain_lines(record))
    write_lines(lines, tsv=True)
    if not quiet:
        for record in records:
            for line in summary_lines(record):
                write_stderr(f"# {line}")


def _quoted(value: Any) -> str:
    """A configured value in a sentence: a string in quotes, anything else as JSON; escaped."""
    if isinstance(value, str):
        return f'"{escape_text(value)}"'
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
        f"agent {escape_text(record['agent'])}: workspace {escape_text(record['workspace'])}"
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


def _write_tables(records: list[dict[str, Any]]) -> None:
    from memwarm_cli.cli.terminal.output import make_console, write_stdout
    from memwarm_cli.cli.terminal.table import WIDE_TABLE, Styles, wrap_words
    from memwarm_cli.textsafe import escape_unsafe

    console = make_console()
    styles = Styles(console)
    lines: list[str] = []
    for index, record in enumerate(records):
        if index:
            lines.append("")
        lines.extend(draw_record_table(console, styles, record))
        if console.width < WIDE_TABLE:
            lines.extend(legend_lines(record, console.width))
        for line in summary_lines(record):  # wrapped at spaces to the terminal, as Rich would
            lines.extend(wrap_words(escape_unsafe(line), console.width))
    # Not write_lines: the table's lines hold its escape codes, its cells are guarded in scan_table.
    write_stdout("".join(line + "\n" for line in lines))


def draw_record_table(console: Console, styles: Styles, record: dict[str, Any]) -> Iterator[str]:
    """One agent's table. Wide (WIDE_TABLE columns and more): the date, kind, mtime, every character
    count and each status's description. Narrower: only what the file name does not say already (its
    date and kind are in it), the status as its code (legend_lines explains the codes) and the block's
    characters, so names and statuses keep room to wrap between their parts, never inside one."""
    from memwarm_cli.cli.terminal.table import STATUS_STYLES, WIDE_TABLE, Column, draw_table

    wide = console.width >= WIDE_TABLE
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
    colour = not console.no_color

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

    yield from draw_table(console, f"agent {escape_text(record['agent'])}", columns, rows(), styles)


def legend_lines(record: dict[str, Any], width: int) -> list[str]:
    """What the narrow table's status codes mean: each code shown, in the order of the rows, its
    meaning wrapped under itself."""
    from memwarm_cli.cli.terminal.table import wrap_words

    meanings: dict[str, str] = {}
    for file in record["files"]:
        meanings.setdefault(file["status"], file["statusText"])
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
