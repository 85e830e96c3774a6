"""`memwarm init-backends`: pre-warm every agent's qmd index, as the gateway's start-up would.

Log lines go to stderr with OpenClaw's wording, then one summary line; `--json` prints the report on
stdout; `--dry-run` prints the plan on stdout. The log's order and the progress display, shown only
when stderr is a terminal, are cli/commands/init_backends_progress.py's. SIGINT/SIGTERM stop the
children, release the locks and exit 130/143. Typer-free, so cli/fastpath.py can run it too; the Typer
command is cli/commands/init_backends_cmd.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memwarm_cli.backends.init.init_report import AgentOutcome, InitReport, SessionExportOutcome


def run_init_backends_command(
    config_path: str | None,
    agent: Sequence[str] | None = None,
    dry_run: bool = False,
    force: bool = False,
    embed: bool | None = None,
    probe: bool = False,
    probe_query: str | None = None,
    probe_timeout: float | None = None,
    concurrency: int | None = None,
    timeout: float | None = None,
    at: str | None = None,
    json_output: bool = False,
    quiet: bool = False,
) -> int:
    """Prepare each agent's qmd index where the gateway looks for it; returns the exit code."""
    from memwarm_cli.backends.init.init_report import InitOptions
    from memwarm_cli.backends.init.init_run import run_init_backends
    from memwarm_cli.backends.qmd.process import timeout_ms_from_seconds
    from memwarm_cli.cancel import CancelToken
    from memwarm_cli.cli.commands.init_backends_progress import InitRenderer
    from memwarm_cli.cli.terminal.interrupts import signals_cancel
    from memwarm_cli.cli.terminal.invocation import load_for_command
    from memwarm_cli.cli.terminal.output import write_json
    from memwarm_cli.errors import UsageError
    from memwarm_cli.jsstring import js_trim
    from memwarm_cli.startup.clock import parse_instant

    for flag, seconds in (("--timeout", timeout), ("--probe-timeout", probe_timeout)):
        if seconds is not None and not math.isfinite(seconds):
            raise UsageError(f"{flag}: {seconds} is not a finite number of seconds")
    if probe_query is not None and not js_trim(probe_query):
        raise UsageError("--probe-query: the query is empty")
    at_ms = parse_instant(at)
    loaded = load_for_command(config_path, quiet=quiet)

    options = InitOptions(
        agents=tuple(agent or ()),
        dry_run=dry_run,
        force=force,
        embed=embed,
        probe=probe or probe_query is not None or probe_timeout is not None,
        concurrency=concurrency,
        timeout_ms=timeout_ms_from_seconds(timeout) if timeout is not None else None,
        probe_query=probe_query,
        probe_timeout_ms=timeout_ms_from_seconds(probe_timeout) if probe_timeout is not None else None,
        at_ms=at_ms,
    )
    token = CancelToken()
    renderer = InitRenderer(quiet=quiet)
    with signals_cancel(token), renderer.live():
        report = run_init_backends(loaded, options, token=token, on_event=renderer.handle)

    renderer.finish(report)  # the summary line first: it still reaches stderr if stdout cannot be written
    if dry_run and not json_output:
        _print_plan(report)
    if json_output:
        write_json(report.to_json())
    return int(report.exit_code)


def _print_plan(report: InitReport) -> None:
    from memwarm_cli.cli.terminal.output import write_lines

    lines: list[str] = []
    for outcome in report.agents:
        lines.extend(_plan_lines(outcome))
    write_lines(lines)


def _plan_lines(outcome: AgentOutcome) -> list[str]:
    """The plan as a human reads it: outside text escaped, commands and env as words a shell reads back."""
    from memwarm_cli.textsafe import escape_text, shell_quote

    head = f'agent "{escape_text(outcome.agent_id)}"'
    if outcome.status != "planned":
        return [f"{head}: {outcome.status}: {escape_text(outcome.reason or '')}"]
    lines = [
        f"{head}: index {escape_text(str(outcome.index_path))} (backend from {outcome.backend_source})",
        f"  cwd: {escape_text(str(outcome.workspace))}",
    ]
    if outcome.planned:
        env = outcome.planned[0].env
        lines.append("  env: " + " ".join(f"{escape_text(k)}={shell_quote(v)}" for k, v in env.items()))
    for collection in outcome.collections:
        where = f"{escape_text(collection.path)} ({escape_text(collection.pattern)})"
        lines.append(f"  collection {escape_text(collection.name)}: {collection.action} {where}")
    if outcome.sessions is not None:
        lines.extend(_session_lines(outcome.sessions))
    for command in outcome.planned:
        note = f"  # {escape_text(command.note)}" if command.note else ""
        lines.append(f"  $ {' '.join(shell_quote(word) for word in command.argv)}{note}")
    return lines


def _session_lines(sessions: SessionExportOutcome) -> list[str]:
    """The session export a dry run would do: every export it would write and every stale one it
    would delete (names escaped: they come from the user's transcripts)."""
    from memwarm_cli.startup.clock import iso_utc
    from memwarm_cli.textsafe import escape_text

    window = "every transcript"
    if sessions.retention_days is not None:
        window = f"transcripts of the last {sessions.retention_days} days before {iso_utc(sessions.at_ms)}"
    create = " (created)" if sessions.created_export_dir else ""
    exported, written, deleted = len(sessions.exported), len(sessions.written), len(sessions.deleted)
    counts = f"exports {exported}, to write {written}, to delete {deleted}"
    where = f"{escape_text(str(sessions.sessions_dir))} -> {escape_text(str(sessions.export_dir))}"
    lines = [f"  sessions: {where}{create}: {window}; {counts}"]
    lines += [f"  sessions: write {escape_text(name)}" for name in sessions.written]
    lines += [f"  sessions: delete {escape_text(name)}" for name in sessions.deleted]
    for note in (*sessions.unreadable, *sessions.left_alone):
        lines.append(f"  sessions: skip {escape_text(note.name)}: {escape_text(note.reason)}")
    return lines
