"""`memwarm init-backends`' views: the plan of a `--dry-run` (nothing on stdout for a real run: its log
is on stderr, cli/commands/init_backends_progress.py), and `--json`'s report."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from memwarm_cli.cli.terminal.view_format import JsonView, View, Views

if TYPE_CHECKING:
    from memwarm_cli.backends.init.init_report import AgentOutcome, InitReport, SessionExportOutcome


class InitText(View["InitReport"]):
    """A dry run's plan, per agent; a real run writes nothing on stdout."""

    name = "text"

    def render(self, result: InitReport) -> Iterator[str]:
        from memwarm_cli.cli.terminal.output import guarded_lines

        if result.dry_run:
            for outcome in result.agents:
                yield from guarded_lines(_plan_lines(outcome))


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


def _report(result: InitReport) -> dict[str, Any]:
    return result.to_json()


INIT_VIEWS: Views[InitReport] = Views(InitText(), JsonView(_report), pipe="text")
