"""What `init-backends` exchanges with its caller: the run's options, its events, the outcome per agent
and the report, plus OpenClaw's log-line wording for them.

Events are sent from worker threads: sinks must be thread-safe.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Literal

from memwarm_cli.backends.settings.setting_use import ConfiguredSetting
from memwarm_cli.exitcodes import ExitCode, signal_exit
from memwarm_cli.frozen_records import record

Status = Literal["armed", "fresh", "degraded", "failed", "skipped", "busy", "planned"]
STATUSES: tuple[Status, ...] = ("armed", "fresh", "degraded", "failed", "skipped", "busy", "planned")


@record
class InitOptions:
    agents: tuple[str, ...] = ()  # requested ids (normalized like the gateway); empty: every agent
    dry_run: bool = False
    force: bool = False
    embed: bool | None = None  # None: embed when searchMode is not "search"
    probe: bool = False
    concurrency: int | None = None  # None: usable CPUs, at most the number of agents to prepare
    timeout_ms: int | None = None  # overrides every qmd command timeout (the probe's too, unless set)
    probe_query: str | None = None  # None: a word from the agent's newest note (search_probe.py)
    probe_timeout_ms: int | None = None  # None: --timeout if given, else search_probe's default
    at_ms: int | None = None  # the clock session-export retention uses (epoch ms); None: now


@record
class CommandRecord:
    argv: tuple[str, ...]
    exit_code: int | None
    duration_ms: int
    timed_out: bool = False
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "argv": list(self.argv),
            "exitCode": self.exit_code,
            "durationMs": self.duration_ms,
            "timedOut": self.timed_out,
            "error": self.error,
        }


@record
class CollectionOutcome:
    name: str
    path: str
    pattern: str
    kind: str
    action: str  # kept, added, rebound, missing, conflict, failed; dry run: keep, add, rebind, missing
    detail: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": self.path,
            "pattern": self.pattern,
            "kind": self.kind,
            "action": self.action,
            "detail": self.detail,
        }


@record
class ProbeOutcome:
    answered: bool
    latency_ms: int
    hits: int | None
    error: str | None
    mode: str = "search"  # the agent's searchMode: search, vsearch or query
    query: str = ""
    timeout_ms: int = 0
    timed_out: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "answered": self.answered,
            "mode": self.mode,
            "query": self.query,
            "latencyMs": self.latency_ms,
            "hits": self.hits,
            "timeoutMs": self.timeout_ms,
            "timedOut": self.timed_out,
            "error": self.error,
        }


@record
class NamedNote:
    name: str
    reason: str

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "reason": self.reason}


@record
class SessionExportOutcome:
    """The session export pass of one agent (with --dry-run: what it would do)."""

    sessions_dir: str
    export_dir: str
    collection: str
    retention_days: int | None
    at_ms: int  # the clock retention used
    exported: tuple[str, ...]  # every export the pass keeps (name.md)
    written: tuple[str, ...]  # exports written (dry run: that would be written)
    deleted: tuple[str, ...]  # stale exports deleted (dry run: that would be deleted)
    created_export_dir: bool
    expired: tuple[str, ...] = ()  # transcripts outside the retention window
    unreadable: tuple[NamedNote, ...] = ()  # transcripts that could not be read
    left_alone: tuple[NamedNote, ...] = ()  # stale-looking *.md entries memwarm does not remove
    error: str | None = None  # why the pass failed (then `written`/`deleted` are what happened before)
    error_code: str | None = None  # Node's code, e.g. ERR_FS_EISDIR
    # Secrets in clear in the kept exports (and so in the index), by format: the release's redaction
    # leaves them, memwarm keeps its bytes (backends/sessions/redaction/clear_secrets.py).
    in_clear: tuple[tuple[str, int], ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "sessionsDir": self.sessions_dir,
            "exportDir": self.export_dir,
            "collection": self.collection,
            "retentionDays": self.retention_days,
            "atMs": self.at_ms,
            "exported": list(self.exported),
            "written": list(self.written),
            "deleted": list(self.deleted),
            "createdExportDir": self.created_export_dir,
            "expired": list(self.expired),
            "unreadable": [note.to_json() for note in self.unreadable],
            "leftAlone": [note.to_json() for note in self.left_alone],
            "error": self.error,
            "errorCode": self.error_code,
            "inClear": dict(self.in_clear),
        }


@record
class PlannedCommand:
    argv: tuple[str, ...]
    cwd: str
    env: Mapping[str, str]  # only what memwarm sets on top of the inherited environment
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"argv": list(self.argv), "cwd": self.cwd, "env": dict(self.env), "note": self.note}


@record
class AgentOutcome:
    agent_id: str
    status: Status
    reason: str | None
    workspace: Path
    index_path: Path
    backend: str
    backend_source: str
    qmd_source: str
    search_mode: str | None
    collections: tuple[CollectionOutcome, ...] = ()
    commands: tuple[CommandRecord, ...] = ()
    probe: ProbeOutcome | None = None
    planned: tuple[PlannedCommand, ...] = ()
    duration_ms: int = 0
    warnings: tuple[str, ...] = ()
    sessions: SessionExportOutcome | None = None
    gateway_updates_on_boot: bool = True
    not_reproduced: tuple[ConfiguredSetting, ...] = ()  # settings the gateway acts on and memwarm not

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "agentId": self.agent_id,
            "status": self.status,
            "reason": self.reason,
            "workspace": str(self.workspace),
            "indexPath": str(self.index_path),
            "backend": self.backend,
            "backendSource": self.backend_source,
            "qmdSource": self.qmd_source,
            "searchMode": self.search_mode,
            "collections": [c.to_json() for c in self.collections],
            "commands": [c.to_json() for c in self.commands],
            "probe": self.probe.to_json() if self.probe else None,
            "durationMs": self.duration_ms,
            "warnings": list(self.warnings),
            "sessions": self.sessions.to_json() if self.sessions else None,
            "gatewayUpdatesOnBoot": self.gateway_updates_on_boot,
            "notReproduced": [setting.to_json() for setting in self.not_reproduced],
        }
        if self.planned:
            data["planned"] = [p.to_json() for p in self.planned]
        return data


INIT_SCHEMA_VERSION = 1  # `init-backends --json` (a real run and --dry-run alike)


@record
class InitReport:
    agents: tuple[AgentOutcome, ...]
    duration_ms: int
    dry_run: bool
    signum: int | None  # SIGINT/SIGTERM when the run was interrupted
    config_path: str
    state_dir: str
    concurrency: int = 1

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = dict.fromkeys(STATUSES, 0)
        for agent in self.agents:
            counts[agent.status] += 1
        return counts

    @property
    def exit_code(self) -> ExitCode:
        """129/130/143 when interrupted; 1 any failed; 4 none failed but some degraded; 7 every agent
        skipped (nothing to warm, a dry run aside); else 0."""
        if self.signum is not None:
            return signal_exit(self.signum)
        counts = self.counts()
        if counts["failed"]:
            return ExitCode.FINDINGS
        if counts["degraded"]:
            return ExitCode.DEGRADED
        if not self.dry_run and counts["skipped"] == len(self.agents):
            return ExitCode.NOTHING_WARMED
        return ExitCode.OK

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": INIT_SCHEMA_VERSION,
            "command": "init-backends",
            "configPath": self.config_path,
            "stateDir": self.state_dir,
            "dryRun": self.dry_run,
            "interrupted": signal.Signals(self.signum).name if self.signum is not None else None,
            "exitCode": int(self.exit_code),
            "durationMs": self.duration_ms,
            "concurrency": self.concurrency,
            "summary": self.counts(),
            "agents": [a.to_json() for a in self.agents],
        }


# --------------------------------------------------------------------------------------------------------
# Events


@record
class LogEvent:
    """A line for the log: an agent's (shown as `[<id>] <message>`) or the run's (agent_id None)."""

    message: str
    agent_id: str | None = None


@record
class StepEvent:
    """An agent starts a step; the step before it (if any) is over."""

    agent_id: str
    step: str  # "probing qmd", "collections", "qmd update", "waiting for the embed lock", "qmd embed", ...
    timeout_ms: int | None = None  # each qmd command of the step is killed after this (None: no command)


@record
class RunStartEvent:
    agents: int  # selected agents (skipped ones included)
    agent_ids: tuple[str, ...]  # the selected agents, in config order
    runnable: int  # agents with work to do (memory search on, backend qmd)
    concurrency: int


@record
class AgentStartEvent:
    agent_id: str


@record
class AgentDoneEvent:
    outcome: AgentOutcome


Event = LogEvent | StepEvent | RunStartEvent | AgentStartEvent | AgentDoneEvent
EventSink = Callable[[Event], None]


def ignore_events(_event: Event) -> None:
    return None


# --------------------------------------------------------------------------------------------------------
# Wording


def final_log_line(outcome: AgentOutcome) -> str:
    """OpenClaw's start-up wording for one agent (`armed` / `failed`), with memwarm's extra states."""
    agent = f'agent "{outcome.agent_id}"'
    prefix = "qmd memory startup initialization"
    if outcome.status in ("armed", "fresh", "degraded"):
        notes = []
        if outcome.status == "fresh":
            notes.append("fresh: nothing changed since the last run")
        if outcome.sessions is not None and outcome.status != "fresh":
            notes.append(sessions_note(outcome.sessions))
        if outcome.probe is not None and outcome.probe.answered:
            notes.append(probe_note(outcome.probe))
        tail = f" ({'; '.join(notes)})" if notes else ""
        if outcome.status == "degraded":
            # Not "armed": OpenClaw's wording for a manager it opened, but this agent's vector search
            # will not answer (memwarm's own status, so memwarm's own line).
            return f"{prefix} degraded for {agent}: {outcome.reason}{tail}"
        return f"{prefix} armed for {agent}{tail}"
    if outcome.status == "failed":
        return f"{prefix} failed for {agent}: {outcome.reason or 'unknown error'}"
    if outcome.status == "busy":
        return f"{prefix} skipped for {agent}: busy ({outcome.reason})"
    if outcome.status == "planned":
        return f"{prefix} planned for {agent} (dry run)"
    return f"{prefix} skipped for {agent}: {outcome.reason}"


def probe_note(probe: ProbeOutcome) -> str:
    """`probe: answered in 85 ms, a match`: what `--probe` found, for the human log line.

    Only answered probes get here (an unanswered one fails or degrades the agent, and its reason says
    so). The mode is named when it is not BM25's `search`: `probe (vsearch): answered in ...`.
    """
    if probe.hits is None:
        found = ""
    else:
        found = (
            ", no match" if probe.hits == 0 else ", a match" if probe.hits == 1 else f", {probe.hits} matches"
        )
    mode = "" if probe.mode == "search" else f" ({probe.mode})"
    return f"probe{mode}: answered in {probe.latency_ms} ms{found}"


def sessions_note(sessions: SessionExportOutcome) -> str:
    """`sessions: 12 exported, 2 written, 1 deleted[, 3 secrets in clear]` for the human log line."""
    in_clear = sum(count for _, count in sessions.in_clear)
    clear = f", {in_clear} secret{'s' if in_clear != 1 else ''} in clear" if in_clear else ""
    return (
        f"sessions: {len(sessions.exported)} exported, {len(sessions.written)} written, "
        f"{len(sessions.deleted)} deleted{clear}"
    )


def summary_line(report: InitReport) -> str:
    counts = report.counts()
    parts = []
    for status in STATUSES:
        if counts[status]:
            ids = ", ".join(f'"{a.agent_id}"' for a in report.agents if a.status == status)
            parts.append(f"{counts[status]} {status} ({ids})")
    total = len(report.agents)
    noun = "agent" if total == 1 else "agents"
    body = "; ".join(parts) if parts else "nothing to do"
    tail = ""
    if report.signum is not None:
        tail = f"; interrupted by {signal.Signals(report.signum).name}"
    return f"init-backends: {total} {noun} in {report.duration_ms / 1000:.2f}s: {body}{tail}"
