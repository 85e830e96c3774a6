"""`init-backends`: prepare every qmd agent's index the way the gateway's start-up does, on demand.

Per agent, in config order (memory-backends.md §2 Version B, §5.1-§5.5, issue 4):
1. memory search disabled or backend not qmd: skipped, with the reason;
2. the workspace must exist, and the qmd command must start (`qmd binary unavailable (<cmd>): <error>`);
3. per-agent dirs, the shared-models symlink, the per-agent lock (held by another run: "busy");
4. the fingerprint: nothing changed and the index is there → "fresh", no qmd command;
5. collections listed, added when missing, rebound when their path or pattern changed; a conflicting
   collection is taken over only when memwarm manages it; nothing else is ever removed; a collection
   whose directory does not exist (say `memory/` before the first note) is reported "missing", never
   created (memwarm writes only under the state dir), and added by the first run that finds it;
6. `qmd update` with the boot retry rule; 7. `qmd embed` (one lock per state dir; a failure is "degraded");
8. `--probe`: one `qmd search`; 9. the fingerprint is recorded.

The core reports through events and returns an `InitReport`; it never prints, never exits, and never
installs signal handlers (the CLI wires SIGINT/SIGTERM to `CancelToken.cancel`).
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from memwarm_cli.agents import Agent, resolve_agents, select_agent
from memwarm_cli.backends import fingerprint as fp
from memwarm_cli.backends import qmdcli
from memwarm_cli.backends.agent_backend import AgentBackendSettings, resolve_agent_backend
from memwarm_cli.backends.locks import FileLock, agent_lock_path, embed_lock_path
from memwarm_cli.backends.process import (
    Cancelled,
    CancelToken,
    CommandResult,
    probe_command,
    resolve_executable,
    run_command,
    unavailable_error,
)
from memwarm_cli.backends.qmd_collections import CollectionSpec, scope_collection_base
from memwarm_cli.backends.qmd_paths import qmd_child_env, qmd_env_overrides, shared_models_dir
from memwarm_cli.backends.qmd_settings import QmdSettings
from memwarm_cli.config import LoadedConfig
from memwarm_cli.exitcodes import ExitCode

Status = Literal["armed", "fresh", "degraded", "failed", "skipped", "busy", "planned"]
STATUSES: tuple[Status, ...] = ("armed", "fresh", "degraded", "failed", "skipped", "busy", "planned")
UPDATE_RETRY_DELAYS = (0.5, 1.0)
DEFAULT_PROBE_QUERY = "memory"


@dataclass(frozen=True)
class InitOptions:
    agents: tuple[str, ...] = ()  # requested ids (normalized like the gateway); empty: every agent
    dry_run: bool = False
    force: bool = False
    embed: bool | None = None  # None: embed when searchMode is not "search"
    probe: bool = False
    concurrency: int | None = None  # None: usable CPUs, at most the number of agents to prepare
    timeout_ms: int | None = None  # overrides every qmd command timeout
    probe_query: str = DEFAULT_PROBE_QUERY


@dataclass(frozen=True)
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


@dataclass(frozen=True)
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


@dataclass(frozen=True)
class ProbeOutcome:
    answered: bool
    latency_ms: int
    hits: int | None
    error: str | None

    def to_json(self) -> dict[str, Any]:
        return {
            "answered": self.answered,
            "latencyMs": self.latency_ms,
            "hits": self.hits,
            "error": self.error,
        }


@dataclass(frozen=True)
class PlannedCommand:
    argv: tuple[str, ...]
    cwd: str
    env: Mapping[str, str]  # only what memwarm sets on top of the inherited environment
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"argv": list(self.argv), "cwd": self.cwd, "env": dict(self.env), "note": self.note}


@dataclass(frozen=True)
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
        }
        if self.planned:
            data["planned"] = [p.to_json() for p in self.planned]
        return data


@dataclass(frozen=True)
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
        """130/143 when interrupted; 1 any failed; 4 none failed but some degraded; else 0."""
        import signal

        if self.signum == signal.SIGINT:
            return ExitCode.INTERRUPTED
        if self.signum is not None:
            return ExitCode.TERMINATED
        counts = self.counts()
        if counts["failed"]:
            return ExitCode.FINDINGS
        if counts["degraded"]:
            return ExitCode.DEGRADED
        return ExitCode.OK

    def to_json(self) -> dict[str, Any]:
        import signal

        return {
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
# Events (called from worker threads: sinks must be thread-safe)


@dataclass(frozen=True)
class LogEvent:
    level: Literal["info", "warn"]
    message: str
    agent_id: str | None = None


@dataclass(frozen=True)
class StepEvent:
    agent_id: str
    step: str  # "probing qmd", "collections", "qmd update", "waiting for the embed lock", "qmd embed", ...


@dataclass(frozen=True)
class RunStartEvent:
    agents: int  # selected agents (skipped ones included)
    agent_ids: tuple[str, ...]  # the selected agents, in config order
    runnable: int  # agents with work to do (memory search on, backend qmd)
    concurrency: int


@dataclass(frozen=True)
class AgentStartEvent:
    agent_id: str


@dataclass(frozen=True)
class AgentDoneEvent:
    outcome: AgentOutcome


Event = LogEvent | StepEvent | RunStartEvent | AgentStartEvent | AgentDoneEvent
EventSink = Callable[[Event], None]


def _ignore(_event: Event) -> None:
    return None


def final_log_line(outcome: AgentOutcome) -> str:
    """OpenClaw's start-up wording for one agent (`armed` / `failed`), with memwarm's extra states."""
    agent = f'agent "{outcome.agent_id}"'
    prefix = "qmd memory startup initialization"
    if outcome.status in ("armed", "fresh", "degraded"):
        notes = []
        if outcome.status == "fresh":
            notes.append("fresh: nothing changed since the last run")
        elif outcome.status == "degraded":
            notes.append(f"degraded: {outcome.reason}")
        if outcome.probe is not None:
            notes.append(probe_note(outcome.probe))
        return f"{prefix} armed for {agent}" + (f" ({'; '.join(notes)})" if notes else "")
    if outcome.status == "failed":
        return f"{prefix} failed for {agent}: {outcome.reason or 'unknown error'}"
    if outcome.status == "busy":
        return f"{prefix} skipped for {agent}: busy ({outcome.reason})"
    if outcome.status == "planned":
        return f"{prefix} planned for {agent} (dry run)"
    return f"{prefix} skipped for {agent}: {outcome.reason}"


def probe_note(probe: ProbeOutcome) -> str:
    """`probe: answered in 85 ms, a match`: what `--probe` found, for the human log line.

    Only answered probes get here (an unanswered one fails the agent); the search asks for one result.
    """
    found = "" if probe.hits is None else (", a match" if probe.hits else ", no match")
    return f"probe: answered in {probe.latency_ms} ms{found}"


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
        import signal

        tail = f"; interrupted by {signal.Signals(report.signum).name}"
    return f"init-backends: {total} {noun} in {report.duration_ms / 1000:.2f}s: {body}{tail}"


# --------------------------------------------------------------------------------------------------------
# Selecting agents


def select_agents(loaded: LoadedConfig, requested: Sequence[str]) -> list[Agent]:
    """Every agent in config order, or the requested ones (unknown ids raise UnknownAgentError)."""
    everyone = resolve_agents(loaded.data, loaded.env)
    if not requested:
        return everyone
    wanted = {select_agent(loaded.data, loaded.env, raw).id for raw in requested}
    return [agent for agent in everyone if agent.id in wanted]


def default_concurrency(eligible: int) -> int:
    return max(1, min(usable_cpu_count(), eligible))


def usable_cpu_count() -> int:
    """CPUs this process may run on (`taskset`, cgroup cpusets), not every CPU the machine has."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # no sched_getaffinity on macOS
        return os.cpu_count() or 1


# --------------------------------------------------------------------------------------------------------
# The run


# `qmd --version` answers in well under a second; a qmd that hangs on it must not stall every run.
VERSION_TIMEOUT_MS = 5000
UNKNOWN_VERSION = "unknown"


class _Shared:
    """State shared by the agent workers of one run."""

    def __init__(
        self, loaded: LoadedConfig, options: InitOptions, token: CancelToken, sink: EventSink
    ) -> None:
        self.loaded = loaded
        self.options = options
        self.token = token
        self.sink = sink
        self._versions: dict[str, str] = {}
        self._version_lock = threading.Lock()

    def qmd_version(
        self, command: str, env: Mapping[str, str], cwd: Path, timeout_ms: int
    ) -> tuple[str, CommandResult | None]:
        """The qmd version for the fingerprint: `qmd --version`, at most once per executable per run.

        Between runs the answer is cached under `<stateDir>/memwarm/qmd-versions.json`, keyed by the
        executable's identity (real path, size, mtime, inode, and those of the package.json beside it),
        so a reinstalled or upgraded qmd is asked again. `--force` always asks.
        """
        executable = resolve_executable(command, env, cwd)
        identity = fp.executable_identity(executable) if executable else None
        key = identity or command
        with self._version_lock:
            if key in self._versions:
                return self._versions[key], None
            cache_path = self.loaded.state_dir / "memwarm" / fp.VERSION_CACHE_NAME
            if identity is not None and not self.options.force:
                cached = fp.read_version_cache(cache_path).get(identity)
                if cached is not None:
                    self._versions[key] = cached
                    return cached, None
            result = run_command(
                command,
                ["--version"],
                env=env,
                cwd=cwd,
                timeout_ms=min(timeout_ms, VERSION_TIMEOUT_MS),
                token=self.token,
            )
            self.token.check()
            version = qmdcli.parse_version(result.stdout) if result.ok else UNKNOWN_VERSION
            # A qmd that ran and cannot say its version (an error exit, or no answer in the full
            # VERSION_TIMEOUT_MS) is remembered as such too: asking again would cost a cron job a process,
            # or a hang, on every run. An upgraded qmd has a new identity and is asked; so does --force.
            # Not remembered: a spawn error, or a timeout that --timeout made shorter.
            qmd_ran = result.exit_code is not None or (
                result.timed_out and result.timeout_ms == VERSION_TIMEOUT_MS
            )
            if identity is not None and qmd_ran:
                fp.store_version(cache_path, identity, version)
            self._versions[key] = version
            return version, result


@dataclass(frozen=True)
class _EmbedState:
    vectors_current: bool
    failures: int = 0
    failed_at: float = 0.0
    degraded: str | None = None


def _backoff_reason(remaining: float) -> str:
    return f"vectors stale: the last qmd embed failed; next attempt in {remaining:.0f}s"


class _AgentFailed(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class _AgentRun:
    """One agent's pass. `run()` always returns an outcome (Cancelled included)."""

    def __init__(self, shared: _Shared, settings: AgentBackendSettings, qmd: QmdSettings) -> None:
        self.shared = shared
        self.options = shared.options
        self.token = shared.token
        self.settings = settings
        self.qmd = qmd
        self.paths = settings.paths
        self.workspace = settings.workspace
        self.env = qmd_child_env(shared.loaded.env, settings.paths)
        self.commands: list[CommandRecord] = []
        self.collections: list[CollectionOutcome] = []
        self.warnings: list[str] = []
        self.probe: ProbeOutcome | None = None
        self.started = time.monotonic()
        self.failure: str | None = None  # first non-fatal failure (a collection that could not be added)
        self.fingerprint_path = self.paths.index_path.parent / fp.FINGERPRINT_NAME

    # -- helpers ----------------------------------------------------------------------------------------
    def _timeout(self, configured_ms: int) -> int:
        return self.options.timeout_ms if self.options.timeout_ms is not None else configured_ms

    def _step(self, step: str) -> None:
        self.shared.sink(StepEvent(self.settings.agent_id, step))

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        self.shared.sink(LogEvent("warn", message, self.settings.agent_id))

    def _run(self, args: Sequence[str], timeout_ms: int) -> CommandResult:
        result = run_command(
            self.qmd.command, args, env=self.env, cwd=self.workspace, timeout_ms=timeout_ms, token=self.token
        )
        self._record(result)
        return result

    def _record(self, result: CommandResult) -> None:
        self.commands.append(
            CommandRecord(
                argv=result.argv,
                exit_code=result.exit_code,
                duration_ms=result.duration_ms,
                timed_out=result.timed_out,
                error=None if result.ok else result.error_message(),
            )
        )

    def _outcome(
        self, status: Status, reason: str | None, planned: Sequence[PlannedCommand] = ()
    ) -> AgentOutcome:
        return AgentOutcome(
            agent_id=self.settings.agent_id,
            status=status,
            reason=reason,
            workspace=self.workspace,
            index_path=self.paths.index_path,
            backend="qmd",
            backend_source=self.settings.choice.backend_source,
            qmd_source=self.settings.choice.qmd_source,
            search_mode=self.qmd.search_mode,
            collections=tuple(self.collections),
            commands=tuple(self.commands),
            probe=self.probe,
            planned=tuple(planned),
            duration_ms=round((time.monotonic() - self.started) * 1000),
            warnings=tuple(self.warnings),
        )

    @property
    def want_embed(self) -> bool:
        if self.options.embed is not None:
            return self.options.embed
        return self.qmd.search_mode != "search"

    # -- the pass -------------------------------------------------------------------------------------
    def run(self) -> AgentOutcome:
        try:
            self.token.check()
        except Cancelled as exc:
            return self._outcome("skipped", f"interrupted before start ({_signame(exc.signum)})")
        self.shared.sink(AgentStartEvent(self.settings.agent_id))
        try:
            if self.options.dry_run:
                return self._dry_run()
            return self._run_locked()
        except Cancelled as exc:
            return self._outcome("failed", f"interrupted ({_signame(exc.signum)})")
        except _AgentFailed as exc:
            return self._outcome("failed", exc.reason)
        except OSError as exc:  # the state dir cannot be written, a path vanished: this agent only
            return self._outcome("failed", describe_os_error(exc))

    def _preflight(self) -> None:
        if not self.workspace.is_dir():
            raise _AgentFailed(f"qmd workspace unavailable ({self.workspace}): no such directory")
        self._step("probing qmd")
        error = probe_command(self.qmd.command, self.env, self.workspace, self.token)
        if error is not None:
            raise _AgentFailed(f"qmd binary unavailable ({self.qmd.command}): {error}")

    def _run_locked(self) -> AgentOutcome:
        self._preflight()
        for directory in (self.paths.qmd_config_dir, self.paths.index_path.parent):
            directory.mkdir(parents=True, exist_ok=True)
        lock = FileLock(agent_lock_path(self.paths.qmd_dir))
        if not lock.try_acquire():
            return self._outcome("busy", f"another memwarm run holds {lock.path}")
        try:
            return self._prepare()
        finally:
            lock.release()

    def _link_models(self) -> None:
        source = shared_models_dir(self.shared.loaded.env)
        target = self.paths.models_dir
        if not source.is_dir() or os.path.lexists(target):
            return
        try:
            target.symlink_to(source, target_is_directory=True)
        except OSError as exc:
            self._warn(f"failed to symlink qmd models directory: {exc}")

    def _prepare(self) -> AgentOutcome:
        self._link_models()
        version, version_result = self.shared.qmd_version(
            self.qmd.command, self.env, self.workspace, self._timeout(self.qmd.update.command_timeout_ms)
        )
        if version_result is not None:
            self._record(version_result)
        stored = fp.read_fingerprint(self.fingerprint_path)
        snapshot = fp.take_snapshot(self.qmd.as_dict(), version, self.qmd.collections)
        if stored is not None and not self.options.force and self.paths.index_path.is_file():
            index_yml = fp.file_digest(self.paths.index_yml)
            if stored.digest == snapshot.digest(index_yml):
                return self._unchanged(stored, snapshot)

        fp.remove_fingerprint(self.fingerprint_path)  # unfinished work leaves no fingerprint
        managed = set(stored.managed_collections) if stored else set()
        self._ensure_collections(managed)
        self._update()
        embed = self._maybe_embed(stored)
        if self.options.probe:
            self._probe()
        self._record_fingerprint(snapshot, embed)
        return self._final(embed.degraded)

    def _final(self, degraded: str | None, success: Literal["armed", "fresh"] = "armed") -> AgentOutcome:
        if self.failure is not None:
            return self._outcome("failed", self.failure)
        if self.probe is not None and self.probe_failed:
            return self._outcome("failed", f"qmd search probe failed: {self.probe.error}")
        if degraded is not None:
            return self._outcome("degraded", degraded)
        return self._outcome(success, None)

    @property
    def probe_failed(self) -> bool:
        """--probe ran a search that did not answer: the run is not a successful one."""
        return self.probe is not None and not self.probe.answered

    def _unchanged(self, stored: fp.StoredFingerprint, snapshot: fp.Snapshot) -> AgentOutcome:
        """Nothing changed since the last successful run: no update; embed only if vectors are owed."""
        registered = qmdcli.read_index_yml(self.paths.index_yml)
        self.collections = []
        for c in self.qmd.collections:
            missing = None if c.name in registered else _missing_path(c)
            action, detail = (
                ("kept", "unchanged since the last run") if missing is None else ("missing", missing)
            )
            self.collections.append(CollectionOutcome(c.name, str(c.path), c.pattern, c.kind, action, detail))
        degraded: str | None = None
        embedded = False
        if self.want_embed and not stored.vectors_current:
            remaining = self._backoff_remaining(stored)
            if remaining > 0:
                degraded = _backoff_reason(remaining)
            else:
                fp.remove_fingerprint(self.fingerprint_path)  # unfinished work leaves no fingerprint
                embed = self._maybe_embed(stored)
                stored = self._record_fingerprint(snapshot, embed) or stored
                degraded = embed.degraded
                embedded = True
        if self.options.probe:
            self._probe()
        if self.probe_failed:
            # A run whose search fails is not a successful one: the next run must not report "fresh".
            fp.write_fingerprint(self.fingerprint_path, replace(stored, digest=fp.UNSUCCESSFUL_DIGEST))
        return self._final(degraded, "armed" if embedded else "fresh")

    # -- collections -------------------------------------------------------------------------------
    def _managed_names(self, recorded: set[str]) -> set[str]:
        """Names memwarm may remove to resolve a conflict: its own, and the gateway's default names."""
        agent = self.settings.agent_id
        defaults = {scope_collection_base(b, agent) for b in ("memory-root", "memory-alt", "memory-dir")}
        return {c.name for c in self.qmd.collections} | recorded | defaults

    def _ensure_collections(self, recorded: set[str]) -> None:
        self._step("collections")
        timeout = self._timeout(self.qmd.update.command_timeout_ms)
        listing = self._run(["collection", "list", "--json"], timeout)
        if not listing.ok:
            raise _AgentFailed(f"qmd collection list failed: {listing.error_message()}")
        listed = qmdcli.merge_listing(
            qmdcli.parse_collection_list(listing.stdout), qmdcli.read_index_yml(self.paths.index_yml)
        )
        managed = self._managed_names(recorded)
        for spec in self.qmd.collections:
            self.token.check()
            self.collections.append(self._ensure_one(spec, listed.get(spec.name), managed, timeout))
        # Like the gateway, memwarm never removes a collection it stopped managing; say so once (the
        # next fingerprint no longer records it), since its notes still turn up in searches.
        for name in sorted(recorded - {c.name for c in self.qmd.collections}):
            if name in listed:
                self._warn(
                    f"qmd collection {name} is no longer configured but stays in the index and in "
                    f"search results (left in place; remove it with `qmd collection remove {name}` "
                    "in this agent's env)"
                )

    def _ensure_one(
        self, spec: CollectionSpec, entry: qmdcli.ListedCollection | None, managed: set[str], timeout: int
    ) -> CollectionOutcome:
        def outcome(action: str, detail: str | None = None) -> CollectionOutcome:
            return CollectionOutcome(spec.name, str(spec.path), spec.pattern, spec.kind, action, detail)

        if entry is not None:
            if entry.path is None:
                return outcome("kept", "path unknown to memwarm: never rebound")
            if _same_path(entry.path, spec.path) and (entry.pattern or "") == spec.pattern:
                return outcome("kept")
            removed = self._run(["collection", "remove", spec.name], timeout)
            if not removed.ok and not qmdcli.is_not_found(removed.error_message()):
                message = f"qmd collection remove failed for {spec.name}: {removed.error_message()}"
                self._warn(message)
                self.failure = self.failure or message
                return outcome("failed", message)
            detail = f"was {entry.path} ({entry.pattern})"
            added = self._add(spec, managed, timeout, outcome)
            if added.action == "added":
                return outcome("rebound", detail)
            return added
        return self._add(spec, managed, timeout, outcome)

    def _add(
        self,
        spec: CollectionSpec,
        managed: set[str],
        timeout: int,
        outcome: Callable[..., CollectionOutcome],
    ) -> CollectionOutcome:
        missing = _missing_path(spec)
        if missing is not None:
            # Never created: memwarm does not write into the user's workspace (or anywhere they own).
            # Not a failure either; the collection is added by the first run that finds the directory
            # (its appearing changes the fingerprint).
            self._warn(missing)
            return outcome("missing", missing)
        args = ["collection", "add", str(spec.path), "--name", spec.name, "--mask", spec.pattern]
        first = self._run(args, timeout)
        if first.ok:
            return outcome("added")
        message = first.error_message()
        other = qmdcli.conflicting_collection(first.stderr + "\n" + first.stdout)
        if other is not None and other != spec.name:
            if other not in managed:
                reason = (
                    f"qmd collection add conflict for {spec.name}: path+pattern already bound by {other}, "
                    "which memwarm does not manage (left in place; remove or rename it)"
                )
                self._warn(reason)
                self.failure = self.failure or reason
                return outcome("conflict", reason)
            bound = f"path+pattern already bound by {other}"
            self._warn(f"qmd collection add conflict for {spec.name}: {bound}; rebinding")
            self._run(["collection", "remove", other], timeout)
            second = self._run(args, timeout)
            if second.ok:
                return outcome("rebound", f"took over path+pattern from {other}")
            reason = (
                f"qmd collection add failed for {spec.name} after rebinding {other}: "
                f"{second.error_message()} (initial: {message})"
            )
            self._warn(reason)
            self.failure = self.failure or reason
            return outcome("failed", reason)
        if qmdcli.is_name_taken(message):
            return outcome("kept", "created meanwhile")
        reason = f"qmd collection add failed for {spec.name}: {message}"
        self._warn(reason)
        self.failure = self.failure or reason
        return outcome("failed", reason)

    # -- update, embed, probe -----------------------------------------------------------------------
    def _update(self) -> None:
        """`qmd update` with the boot retry rule, and upstream's one-shot repair of broken metadata."""
        self._step("qmd update")
        timeout = self._timeout(self.qmd.update.update_timeout_ms)
        attempts = len(UPDATE_RETRY_DELAYS) + 1
        repaired = False
        attempt = 1
        while True:
            result = self._run(["update"], timeout)
            if result.ok:
                return
            message = result.error_message()
            repair = qmdcli.repairable_update_error(message)
            if repair is not None and not repaired:
                repaired = True
                rebuild = "rebuilding managed collections and retrying once"
                self._warn(f"qmd update failed with {repair} (boot); {rebuild}")
                self._rebuild_collections()
                continue
            if attempt < attempts and qmdcli.is_retryable_update_error(message):
                self._warn(f"qmd update retry {attempt}/{attempts - 1} after failure (boot): {message}")
                self.token.sleep(UPDATE_RETRY_DELAYS[attempt - 1])
                attempt += 1
                continue
            self._warn(f"qmd boot update failed: Error: {message}")
            raise _AgentFailed(f"qmd boot update failed: Error: {message}")

    def _rebuild_collections(self) -> None:
        """Remove and re-add every collection memwarm manages for this agent (never anyone else's)."""
        timeout = self._timeout(self.qmd.update.command_timeout_ms)
        live = {c.name for c in self.collections if c.action in ("kept", "added", "rebound")}
        for spec in self.qmd.collections:
            if spec.name not in live:
                continue
            self._run(["collection", "remove", spec.name], timeout)
            added = self._run(
                ["collection", "add", str(spec.path), "--name", spec.name, "--mask", spec.pattern], timeout
            )
            if not added.ok:
                reason = f"qmd collection add failed for {spec.name}: {added.error_message()}"
                self._warn(reason)
                self.failure = self.failure or reason
        self.shared.sink(
            LogEvent(
                "info", "qmd managed collections rebuilt for update repair (boot)", self.settings.agent_id
            )
        )

    def _backoff_remaining(self, stored: fp.StoredFingerprint | None) -> float:
        """Seconds before another embed attempt after failures (0 with --force or an explicit --embed)."""
        if stored is None or stored.embed_failures <= 0 or self.options.force or self.options.embed:
            return 0.0
        return fp.embed_backoff_seconds(stored.embed_failures) - (fp.now() - stored.embed_failed_at)

    def _maybe_embed(self, stored: fp.StoredFingerprint | None) -> _EmbedState:
        """Run `qmd embed` when wanted, one at a time per state dir; a failure degrades, never fails."""
        if not self.want_embed:
            return _EmbedState(vectors_current=False)
        remaining = self._backoff_remaining(stored)
        if remaining > 0 and stored is not None:
            return _EmbedState(
                False, stored.embed_failures, stored.embed_failed_at, _backoff_reason(remaining)
            )
        self._step("waiting for the embed lock")
        lock = FileLock(embed_lock_path(self.shared.loaded.state_dir))
        lock.acquire(self.token)
        try:
            self._step("qmd embed")
            result = self._run(["embed"], self._timeout(self.qmd.update.embed_timeout_ms))
        finally:
            lock.release()
        if result.ok:
            return _EmbedState(vectors_current=True)
        failures = (stored.embed_failures if stored else 0) + 1
        reason = f"qmd embed failed (boot): Error: {result.error_message()}"
        self._warn(f"{reason}; backing off for {fp.embed_backoff_seconds(failures):.0f}s")
        return _EmbedState(False, failures, fp.now(), f"{reason} (searchable with BM25; vectors stale)")

    def _probe(self) -> None:
        self._step("probe")
        names = [c.name for c in (self.collections or []) if c.action in ("kept", "added", "rebound")] or [
            c.name for c in self.qmd.collections
        ]
        args = ["search", self.options.probe_query, "--json", "-n", "1"]
        for name in names:
            args += ["-c", name]
        result = self._run(args, self._timeout(self.qmd.limits.timeout_ms))
        hits: int | None = None
        if result.ok:
            try:
                data = json.loads(result.stdout or "[]")
                hits = len(data) if isinstance(data, list) else None
            except ValueError:
                hits = None
        self.probe = ProbeOutcome(
            answered=result.ok,
            latency_ms=result.duration_ms,
            hits=hits,
            error=None if result.ok else result.error_message(),
        )

    def _record_fingerprint(self, snapshot: fp.Snapshot, embed: _EmbedState) -> fp.StoredFingerprint | None:
        """Only a successful run leaves a fingerprint that can match. After a failed --probe one is
        written that never matches, so the embed backoff it carries still holds on the next run.
        Returns what was written (None: nothing, after a failure)."""
        if self.failure is not None:
            return None
        self.token.check()
        stored = fp.StoredFingerprint(
            digest=(
                fp.UNSUCCESSFUL_DIGEST
                if self.probe_failed
                else snapshot.digest(fp.file_digest(self.paths.index_yml))
            ),
            recorded_at=fp.now(),
            vectors_current=embed.vectors_current,
            embed_failures=embed.failures,
            managed_collections=tuple(c.name for c in self.qmd.collections),
            file_count=snapshot.file_count,
            embed_failed_at=embed.failed_at,
        )
        fp.write_fingerprint(self.fingerprint_path, stored)
        return stored

    # -- dry run ----------------------------------------------------------------------------------------
    def _dry_run(self) -> AgentOutcome:
        env = qmd_env_overrides(self.paths)
        cwd = str(self.workspace)
        planned: list[PlannedCommand] = []

        def plan(args: Sequence[str], note: str | None = None) -> None:
            planned.append(PlannedCommand((self.qmd.command, *args), cwd, env, note))

        if not self.workspace.is_dir():
            raise _AgentFailed(f"qmd workspace unavailable ({self.workspace}): no such directory")
        unavailable = unavailable_error(self.qmd.command, self.env, self.workspace)
        if unavailable is not None:
            raise _AgentFailed(f"qmd binary unavailable ({self.qmd.command}): {unavailable}")
        plan(["--version"], "skipped when this executable's version is cached")
        plan(["collection", "list", "--json"], "all qmd commands are skipped when the fingerprint matches")
        recorded = qmdcli.read_index_yml(self.paths.index_yml)
        for spec in self.qmd.collections:
            entry = recorded.get(spec.name)
            add = ["collection", "add", str(spec.path), "--name", spec.name, "--mask", spec.pattern]
            missing = _missing_path(spec)  # as a real run decides: no add while the directory is missing
            if (
                entry is not None
                and entry.path is not None
                and (not _same_path(entry.path, spec.path) or entry.pattern != spec.pattern)
            ):
                plan(["collection", "remove", spec.name])
                if missing is None:
                    plan(add)
                action = "rebind" if missing is None else "missing"
            elif entry is not None:
                action = "keep"
            elif missing is None:
                plan(add)
                action = "add"
            else:
                action = "missing"
            self.collections.append(
                CollectionOutcome(spec.name, str(spec.path), spec.pattern, spec.kind, action, missing)
            )
        plan(["update"], "retried after 500 ms and 1000 ms on a locked database or a timeout")
        if self.want_embed:
            plan(["embed"], "one at a time per state dir")
        if self.options.probe:
            args = ["search", self.options.probe_query, "--json", "-n", "1"]
            for spec in self.qmd.collections:
                args += ["-c", spec.name]
            plan(args)
        return self._outcome("planned", None, planned)


def _signame(signum: int) -> str:
    import signal

    return signal.Signals(signum).name


def _same_path(listed: str, wanted: Path) -> bool:
    if os.path.normpath(listed) == os.path.normpath(str(wanted)):
        return True
    return os.path.realpath(listed) == os.path.realpath(str(wanted))


def _missing_path(spec: CollectionSpec) -> str | None:
    """Why `qmd collection add` is not run for `spec` (its path is not a directory), or None."""
    if spec.path.is_dir():
        return None
    problem = "is not a directory" if spec.path.exists() else "does not exist"
    return f"qmd collection add skipped for {spec.name}: path {problem} ({spec.path})"


def _static_outcome(settings: AgentBackendSettings, status: Status, reason: str) -> AgentOutcome:
    return AgentOutcome(
        agent_id=settings.agent_id,
        status=status,
        reason=reason,
        workspace=settings.workspace,
        index_path=settings.paths.index_path,
        backend=settings.choice.backend,
        backend_source=settings.choice.backend_source,
        qmd_source=settings.choice.qmd_source,
        search_mode=settings.qmd.search_mode if settings.qmd else None,
    )


@dataclass
class _Slot:
    settings: AgentBackendSettings
    outcome: AgentOutcome | None = None
    future: Future[AgentOutcome] | None = field(default=None)


def run_init_backends(
    loaded: LoadedConfig,
    options: InitOptions,
    *,
    token: CancelToken | None = None,
    on_event: EventSink = _ignore,
) -> InitReport:
    """Prepare every selected agent's qmd backend. Raises UnknownAgentError for an unknown `--agent`."""
    started = time.monotonic()
    token = token or CancelToken()
    agents = select_agents(loaded, options.agents)
    shared = _Shared(loaded, options, token, on_event)
    slots = [
        _Slot(resolve_agent_backend(loaded.data, a.id, a.entry, a.workspace, loaded.state_dir, loaded.env))
        for a in agents
    ]
    runnable = [slot for slot in slots if slot.settings.skip_reason is None]
    workers = options.concurrency or default_concurrency(len(runnable))
    workers = max(1, min(workers, len(runnable) or 1))
    on_event(
        RunStartEvent(
            agents=len(slots),
            agent_ids=tuple(slot.settings.agent_id for slot in slots),
            runnable=len(runnable),
            concurrency=workers,
        )
    )
    seen_warnings: list[str] = []
    for slot in runnable:
        for warning in slot.settings.choice.warnings:
            if warning not in seen_warnings:
                seen_warnings.append(warning)
                on_event(LogEvent("warn", warning))
    for slot in slots:
        reason = slot.settings.skip_reason
        if reason is not None:
            slot.outcome = _static_outcome(slot.settings, "skipped", reason)
            on_event(AgentDoneEvent(slot.outcome))

    if runnable:
        executor = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="init-backends")
        try:
            for slot in runnable:
                qmd = slot.settings.qmd
                assert qmd is not None
                slot.future = executor.submit(_AgentRun(shared, slot.settings, qmd).run)
            pending = {slot.future for slot in runnable if slot.future is not None}
            while pending:
                # Poll, so the main thread stays free to run signal handlers.
                done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
                for slot in runnable:
                    if slot.future in done and slot.outcome is None:
                        slot.outcome = _result(slot)
                        on_event(AgentDoneEvent(slot.outcome))
        finally:
            executor.shutdown(wait=True, cancel_futures=True)

    outcomes = tuple(slot.outcome for slot in slots if slot.outcome is not None)
    return InitReport(
        agents=outcomes,
        duration_ms=round((time.monotonic() - started) * 1000),
        dry_run=options.dry_run,
        signum=token.signum,
        config_path=str(loaded.source.path),
        state_dir=str(loaded.state_dir),
        concurrency=workers,
    )


def _result(slot: _Slot) -> AgentOutcome:
    assert slot.future is not None
    try:
        return slot.future.result()
    except Exception as exc:  # a bug or an OS error in one agent must not lose the others' results
        reason = describe_os_error(exc) if isinstance(exc, OSError) else f"{type(exc).__name__}: {exc}"
        return _static_outcome(slot.settings, "failed", reason)


def describe_os_error(exc: OSError) -> str:
    """`cannot prepare <path>: Not a directory`, not Python's `NotADirectoryError: [Errno 20] ...`."""
    if exc.strerror is None:
        return str(exc)
    paths = " -> ".join(str(p) for p in (exc.filename, exc.filename2) if p is not None)
    return f"cannot prepare {paths}: {exc.strerror}" if paths else exc.strerror
