"""`memwarm scan`: every file the startup prelude considered, what happened to it and why.

Views over the same plan the prelude prints: a Rich table on a terminal, tab-separated lines in a pipe,
or JSON. The plain view's columns are fixed (PLAIN_COLUMNS) and documented in the README.
"""

from __future__ import annotations

from enum import StrEnum
from typing import TYPE_CHECKING, Annotated, Any

import typer

from memwarm_cli.cli.global_options import global_options
from memwarm_cli.cli.options import AgentOption, AtOption, WorkspaceOption

if TYPE_CHECKING:
    from rich.console import Console

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


def scan_command(
    ctx: typer.Context,
    agent: AgentOption = None,
    all_agents: Annotated[
        bool, typer.Option("--all-agents", help="One section per configured agent.")
    ] = False,
    workspace: WorkspaceOption = None,
    at: AtOption = None,
    show_all: Annotated[
        bool,
        typer.Option("--all", help="Also list every other *.md in memory/ (outside the window, misnamed)."),
    ] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
    output_format: Annotated[
        ScanFormat | None,
        typer.Option(
            "--format", "-f", help="table (default on a terminal), plain (default in a pipe) or json."
        ),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary or notes on stderr.")] = False,
) -> None:
    """Explain every candidate memory file and where the character budget went."""
    from memwarm_cli.agents import resolve_agents, select_agent
    from memwarm_cli.cli.output import stdout_is_terminal, warn, write_json
    from memwarm_cli.config import load_config
    from memwarm_cli.errors import UsageError
    from memwarm_cli.startup.clock import parse_instant
    from memwarm_cli.startup.scan_record import scan_record
    from memwarm_cli.startup.session import plan_for_agent

    if all_agents and agent is not None:
        raise UsageError("--agent and --all-agents exclude each other")
    if json_output and output_format not in (None, ScanFormat.json):
        raise UsageError("--json and --format exclude each other")
    fmt = ScanFormat.json if json_output else output_format
    if fmt is None:
        fmt = ScanFormat.table if stdout_is_terminal() else ScanFormat.plain

    at_ms = parse_instant(at)
    loaded = load_config(global_options(ctx).config_path)
    if not quiet:
        for warning in loaded.warnings:
            warn(warning.message)
    agents = (
        resolve_agents(loaded.data, loaded.env)
        if all_agents
        else [select_agent(loaded.data, loaded.env, agent)]
    )
    records = [
        scan_record(
            plan_for_agent(loaded, chosen, at_ms, workspace_override=workspace, include_others=show_all),
            loaded.data,
        )
        for chosen in agents
    ]
    if fmt is ScanFormat.json:
        write_json(records if all_agents else records[0])
    elif fmt is ScanFormat.plain:
        _write_plain(records, quiet)
    else:
        _write_tables(records)


def _cell(value: Any) -> str:
    if value is None:
        return "-"
    return str(value).replace("\t", " ").replace("\n", " ")


def _plain_row(record: dict[str, Any], file: dict[str, Any]) -> list[str]:
    chars = file["chars"]
    return [
        record["agent"],
        file["stamp"],
        file["clock"],
        file["kind"],
        file["path"],
        file["status"],
        file["detail"],
        file["bytes"],
        file["mtime"],
        chars["read"],
        chars["trimmed"],
        chars["capped"],
        chars["block"],
    ]


def _write_plain(records: list[dict[str, Any]], quiet: bool) -> None:
    from memwarm_cli.cli.output import write_stderr, write_stdout

    lines = ["\t".join(PLAIN_COLUMNS)]
    for record in records:
        lines += ["\t".join(_cell(v) for v in _plain_row(record, file)) for file in record["files"]]
    write_stdout("\n".join(lines) + "\n")
    if not quiet:
        for record in records:
            for line in summary_lines(record):
                write_stderr(f"# {line}")


def summary_lines(record: dict[str, Any]) -> list[str]:
    """The human summary under the table (and on stderr, prefixed with #, in plain mode)."""
    from memwarm_cli.textsafe import escape_name

    zone = record["timezone"]
    zone_text = zone["used"]
    if zone["fellBack"]:
        zone_text += f" (fell back: {zone['reason']})"
    elif zone["configured"] != zone["used"]:
        zone_text += f" (configured {zone['configured']!r})"
    days = ", ".join(f"{d['stamp']} ({d['clock']})" for d in record["window"]["days"])
    limits = ", ".join(
        f"{name}={limit['value']} [{limit['source']}{'; ' + limit['note'] if limit['note'] else ''}]"
        for name, limit in record["limits"].items()
    )
    budget = record["budget"]
    prelude = record["prelude"]
    counts = ", ".join(f"{status} {count}" for status, count in record["counts"].items()) or "no files"
    gate = record["gate"]
    gate_text = ", ".join(
        f"/{action} {'applied' if g['applied'] else 'not applied (' + g['reason'] + ')'}"
        for action, g in gate.items()
    )
    lines = [
        f"agent {record['agent']}: workspace {escape_name(record['workspace'])}"
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


_STATUS_STYLE = {
    "included": "green",
    "truncated": "yellow",
    "shrunk": "yellow",
    "budget-exhausted": "red",
    "missing": "dim",
    "outside-window": "dim",
}


def _write_tables(records: list[dict[str, Any]]) -> None:
    from memwarm_cli.cli.output import render_to_stdout

    def render(console: Console) -> None:
        for index, record in enumerate(records):
            if index:
                console.print()
            _render_table(console, record)

    render_to_stdout(render)


def _render_table(console: Console, record: dict[str, Any]) -> None:
    from rich.markup import escape
    from rich.table import Table
    from rich.text import Text

    wide = console.width >= 120
    table = Table(title=f"agent {escape(record['agent'])}", title_justify="left", expand=True, pad_edge=False)
    table.add_column("date", no_wrap=True)
    table.add_column("file in memory/", overflow="fold", ratio=3, min_width=16)
    table.add_column("kind", no_wrap=True, max_width=7)
    table.add_column("bytes", justify="right", no_wrap=True)
    if wide:
        table.add_column("modified", no_wrap=True)
    table.add_column("status", overflow="fold", ratio=2, min_width=14)
    table.add_column("chars read/trim/cap/block" if wide else "block", justify="right", no_wrap=True)
    for file in record["files"]:
        chars = file["chars"]
        stamp = file["stamp"] or "-"
        if file["clock"] == "utc":
            stamp += " utc"
        style = "" if console.no_color else _STATUS_STYLE.get(file["status"], "")
        status = Text(file["statusText"], style=style)
        if file["detail"]:
            status.append(f" ({file['detail']})")
        char_text = (
            "/".join(_cell(chars[k]) for k in ("read", "trimmed", "capped", "block"))
            if wide
            else _cell(chars["block"])
        )
        name = file["path"].removeprefix("memory/")
        cells: list[Any] = [stamp, Text(name), file["kind"] or "-", _cell(file["bytes"])]
        if wide:
            mtime = file["mtime"]
            cells.append(mtime[:16].replace("T", " ") if mtime else "-")
        cells += [status, char_text]
        table.add_row(*cells)
    console.print(table)
    for line in summary_lines(record):
        console.print(Text(line))
