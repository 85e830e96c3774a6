"""`memwarm init-backends`' views: the plan of a `--dry-run` (nothing on stdout for a real run: its log
is on stderr, cli/commands/init_backends_progress.py), and `--json`'s report; and the same two for a run
on a release without the qmd backend, every agent `retired` (RETIRED_INIT_VIEWS)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from memwarm_cli.backends.init.init_report import INIT_SCHEMA_VERSION, STATUSES
from memwarm_cli.cli.terminal.output import guarded_lines
from memwarm_cli.cli.terminal.view_format import JsonView, View, Views
from memwarm_cli.startup.clock import iso_utc
from memwarm_cli.textsafe import escape_text, shell_quote

if TYPE_CHECKING:
    from memwarm_cli.backends.init.init_report import AgentOutcome, InitReport, SessionExportOutcome
    from memwarm_cli.backends.retired import RetiredBackends
    from memwarm_cli.profiles.choice import OpenClawChoice


class InitRun(NamedTuple):
    """What a run's views show: its report, and the release the agents were prepared for."""

    report: InitReport
    openclaw: OpenClawChoice


class InitText(View[InitRun]):
    """A dry run's plan, per agent; a real run writes nothing on stdout."""

    name = "text"

    def render(self, result: InitRun) -> Iterator[str]:
        if result.report.dry_run:
            for outcome in result.report.agents:
                yield from guarded_lines(_plan_lines(outcome))


def _plan_lines(outcome: AgentOutcome) -> list[str]:
    """The plan as a human reads it: outside text escaped, commands and env as words a shell reads back."""
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
    lines += [f"  sessions: in clear: {label}: {count}" for label, count in sessions.in_clear]
    return lines


def _report(result: InitRun) -> dict[str, Any]:
    return result.report.to_json()


INIT_VIEWS: Views[InitRun] = Views(InitText(), JsonView(_report), pipe="text")


# ---- a release without the qmd backend (backends/retired.py): every agent `retired`, nothing run


class RetiredRun(NamedTuple):
    retired: RetiredBackends
    dry_run: bool
    openclaw: OpenClawChoice


class RetiredInitText(View[RetiredRun]):
    """A dry run's plan: each agent's line, as a skipped agent's (a real run writes nothing on stdout)."""

    name = "text"

    def render(self, result: RetiredRun) -> Iterator[str]:
        if result.dry_run:
            lines = [
                f'agent "{escape_text(a.agent_id)}": retired: {escape_text(a.reason)}'
                for a in result.retired.agents
            ]
            yield from guarded_lines(lines)


def retired_summary(retired: RetiredBackends, dry_run: bool) -> str:
    """`init-backends: 2 agents: 2 retired ("a", "b"): OpenClaw 2026.9.6 (P3) has no qmd backend, ...`"""
    total = len(retired.agents)
    noun = "agent" if total == 1 else "agents"
    ids = ", ".join(f'"{a.agent_id}"' for a in retired.agents)
    run = "nothing to plan (dry run)" if dry_run else "nothing was run"
    return (
        f"init-backends: {total} {noun}: {total} retired ({ids}): {retired.release} has no qmd backend, {run}"
    )


def _retired_report(result: RetiredRun) -> dict[str, Any]:
    """The shape of a run's report (init_report.InitReport.to_json), every agent `retired`."""
    retired = result.retired
    return {
        "schema": INIT_SCHEMA_VERSION,
        "command": "init-backends",
        "configPath": retired.config_path,
        "stateDir": retired.state_dir,
        "dryRun": result.dry_run,
        "interrupted": None,
        "exitCode": int(retired.exit_code),
        "durationMs": 0,
        "concurrency": 0,
        "summary": {**dict.fromkeys(STATUSES, 0), "retired": len(retired.agents)},
        "retired": retired.why_json(),
        "agents": [
            {
                "agentId": agent.agent_id,
                "status": "retired",
                "reason": agent.reason,
                "workspace": str(agent.workspace),
                "indexPath": str(agent.index_path),
                "qmdDir": str(agent.qmd_dir),
                "qmdDirExists": agent.qmd_dir_exists,
                "indexExists": agent.index_exists,
            }
            for agent in retired.agents
        ],
    }


RETIRED_INIT_VIEWS: Views[RetiredRun] = Views(RetiredInitText(), JsonView(_retired_report), pipe="text")
