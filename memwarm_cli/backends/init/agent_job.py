"""One agent's pass through `init-backends`: what the steps (agent_steps.py) share and record.

`RunContext` is shared by every agent of one run (config, options, cancellation, the event sink, the qmd
versions, the clock); `AgentJob` holds one agent's state: the commands it ran, its collections, its
session export, warnings, probe, first failure, fingerprint, and the outcome it ends with.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Literal

from memwarm_cli.backends.freshness import fingerprint as fp
from memwarm_cli.backends.freshness.export_check import FreshnessJob, export_cache_path
from memwarm_cli.backends.freshness.freshness import Freshness, Judged
from memwarm_cli.backends.init.init_report import (
    AgentOutcome,
    CollectionOutcome,
    CommandRecord,
    EventSink,
    InitOptions,
    LogEvent,
    PlannedCommand,
    ProbeOutcome,
    SessionExportOutcome,
    Status,
    StepEvent,
)
from memwarm_cli.backends.qmd import model_cache
from memwarm_cli.backends.qmd.process import CommandResult, run_command
from memwarm_cli.backends.qmd.version_cache import QmdVersions
from memwarm_cli.backends.settings.agent_backend import AgentBackendSettings
from memwarm_cli.backends.settings.qmd_paths import qmd_child_env, qmd_env_overrides, shared_models_dir
from memwarm_cli.backends.settings.qmd_settings import QmdSettings
from memwarm_cli.backends.state.locks import FileLock
from memwarm_cli.cancel import CancelToken
from memwarm_cli.config import LoadedConfig
from memwarm_cli.frozen_records import record


class AgentFailed(Exception):
    """The agent cannot be prepared; `reason` is the log line's error."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@record
class EmbedState:
    vectors_current: bool
    failures: int = 0
    failed_at: float = 0.0
    degraded: str | None = None


@record
class Walked:
    """An agent's judgement, made before the run's threads started (init_run._walk_files)."""

    stored: fp.StoredFingerprint | None  # memwarm's record, as read for it
    warnings: tuple[str, ...]  # what reading the record said (the agent's steps log them)
    judged: Judged


def freshness_job(context: RunContext, settings: AgentBackendSettings) -> tuple[FreshnessJob, list[str]]:
    """What judging the agent's freshness needs (its record read now), and the warnings of that read."""
    qmd = settings.qmd
    assert qmd is not None
    warnings: list[str] = []
    state_dir = context.loaded.state_dir
    stored = fp.read_fingerprint(fp.fingerprint_path(state_dir, settings.paths), warnings.append)
    want_embed = context.options.embed if context.options.embed is not None else qmd.search_mode != "search"
    job = FreshnessJob(
        qmd=qmd,
        index_path=settings.paths.index_path,
        workspace=settings.workspace,
        now_ms=context.now_ms,
        stored=stored,
        want_pending=want_embed,
        export_cache=export_cache_path(state_dir, qmd, settings.paths.qmd_dir),
        timeout_ms=context.options.timeout_ms,
    )
    return job, warnings


class RunContext:
    """State shared by the agent workers of one run."""

    def __init__(
        self, loaded: LoadedConfig, options: InitOptions, token: CancelToken, sink: EventSink
    ) -> None:
        self.loaded = loaded
        self.options = options
        self.token = token
        self.sink = sink
        self.versions = QmdVersions(
            loaded.state_dir, force=options.force, token=token, warn=lambda message: sink(LogEvent(message))
        )
        # One clock for the whole run (`--at`, default now): session-export retention and its fingerprint.
        self.now_ms = options.at_ms if options.at_ms is not None else time.time_ns() // 1_000_000
        # Session export dir (real path) -> the agents of the config that export there (init_run.py).
        self.export_dir_agents: dict[str, tuple[str, ...]] = {}
        # This run's agents take turns at `qmd embed` here first: each holds the turn at most its embed
        # timeout, so only another process can keep the state dir's embed lock longer (agent_steps.Embed).
        self.embed_turn = threading.Lock()
        # Set once an agent waited the embed timeout out on another process's lock: the later agents of
        # this run are degraded at once instead of waiting it out again, one after another.
        self.embed_lock_stuck: str | None = None
        # Model download hosts, each resolved at most once per run (model_cache.py).
        self.download_hosts = model_cache.HostChecks()


class AgentJob:
    """One agent's state while the steps run (or are planned, with `--dry-run`)."""

    def __init__(
        self,
        context: RunContext,
        settings: AgentBackendSettings,
        qmd: QmdSettings,
        *,
        walked: Walked | None = None,
    ) -> None:
        self.context = context
        self.options = context.options
        self.token = context.token
        self.settings = settings
        self.qmd = qmd
        self.paths = settings.paths
        self.workspace = settings.workspace
        self.env = qmd_child_env(context.loaded.env, settings.paths)
        self.fingerprint_path = fp.fingerprint_path(context.loaded.state_dir, self.paths)
        self.started = time.monotonic()
        self.started_at = time.time()  # wall clock, for the last-run record
        # Recorded for the outcome:
        self.commands: list[CommandRecord] = []
        self.collections: list[CollectionOutcome] = []
        self.warnings: list[str] = []
        self.probe: ProbeOutcome | None = None
        self.probe_degraded: str | None = None  # a vsearch/query probe that did not answer, and why
        self.model_fix_owed = False  # a step could not get its models: the fix goes once into the reason
        self.sessions: SessionExportOutcome | None = None
        self.export_dir_created = False  # this run made the session export dir
        self.failure: str | None = None  # first non-fatal failure (a collection that could not be added)
        # Set by the steps as they go:
        self.lock: FileLock | None = None  # the agent lock, released when the pass ends
        self.ended: AgentOutcome | None = None  # an outcome that ends the pass early ("busy")
        self.version = ""
        self.stored: fp.StoredFingerprint | None = None  # the fingerprint of the last run, if any
        self.walked = walked  # the judgement, made before the run's thread pool started (init_run.py)
        self.snapshot: fp.Snapshot | None = None
        self.freshness: Freshness | None = None
        self.unchanged = False  # the index is current: nothing to index
        self.embed = EmbedState(vectors_current=False)
        self.embedded_unchanged = False  # an unchanged agent owed its vectors and got them

    # -- running qmd ------------------------------------------------------------------------------------
    def timeout(self, configured_ms: int) -> int:
        return self.options.timeout_ms if self.options.timeout_ms is not None else configured_ms

    def run_qmd(self, args: Sequence[str], timeout_ms: int, *, discard_stdout: bool = False) -> CommandResult:
        """One qmd command; `discard_stdout` where OpenClaw discards it (`qmd update`, `qmd embed`)."""
        result = run_command(
            self.qmd.command,
            args,
            env=self.env,
            cwd=self.workspace,
            timeout_ms=timeout_ms,
            token=self.token,
            discard_stdout=discard_stdout,
        )
        self.record(result)
        return result

    def record(self, result: CommandResult) -> None:
        self.commands.append(
            CommandRecord(
                argv=result.argv,
                exit_code=result.exit_code,
                duration_ms=result.duration_ms,
                timed_out=result.timed_out,
                error=None if result.ok else result.error_message(),
            )
        )

    def models_out_of_reach(self, roles: Sequence[model_cache.Role]) -> tuple[str, str] | None:
        """What keeps qmd from the models `roles` need, or None: `models X, Y not downloaded` and `<host>
        does not resolve (<why>)`, when some are not in the agent's models dir and the host they would be
        downloaded from does not resolve (offline: qmd would wait for the download until its timeout)."""
        missing = model_cache.missing_models(roles, self.env, self.paths.models_dir)
        if not missing:
            return None
        host = model_cache.download_host(self.env)
        error = self.context.download_hosts.error(host)
        if error is None:
            return None
        names = ", ".join(model_cache.model_name(uri) for uri in missing)
        noun = "model" if len(missing) == 1 else "models"
        return f"{noun} {names} not downloaded", f"{host} does not resolve ({error})"

    def planned(self, args: Sequence[str], note: str | None = None) -> PlannedCommand:
        """A command as `--dry-run` shows it; the env is only what memwarm adds to the inherited one."""
        env = qmd_env_overrides(self.paths)
        return PlannedCommand((self.qmd.command, *args), str(self.workspace), env, note)

    # -- events -----------------------------------------------------------------------------------------
    def step(self, step: str, timeout_ms: int | None = None) -> None:
        """Announce a step (for the progress display), with the timeout of its qmd commands."""
        self.context.sink(StepEvent(self.settings.agent_id, step, timeout_ms))

    def warn(self, message: str) -> None:
        self.warnings.append(message)
        self.context.sink(LogEvent(message, self.settings.agent_id))

    def log(self, message: str) -> None:
        """A line for the log that is not a warning (not kept in the outcome's warnings)."""
        self.context.sink(LogEvent(message, self.settings.agent_id))

    def fail_later(self, reason: str) -> None:
        """Warn, and fail the agent at the end unless an earlier failure is already recorded."""
        self.warn(reason)
        self.failure = self.failure or reason

    # -- the outcome ------------------------------------------------------------------------------------
    @property
    def want_embed(self) -> bool:
        if self.options.embed is not None:
            return self.options.embed
        return self.qmd.search_mode != "search"

    @property
    def probe_failed(self) -> bool:
        """--probe ran a search that did not answer: the run is not a successful one."""
        return self.probe is not None and not self.probe.answered

    @property
    def now_ms(self) -> int:
        return self.context.now_ms

    def end(self, status: Status, reason: str | None) -> None:
        self.ended = self.outcome(status, reason)

    def outcome(
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
            sessions=self.sessions,
            gateway_updates_on_boot=self.settings.gateway_updates_on_boot,
            not_reproduced=self.settings.settings_differing_from_gateway,
        )

    def final(self) -> AgentOutcome:
        """The outcome of a pass that ran every step: failed, degraded, or armed/fresh.

        A BM25 probe that does not answer fails the agent (the index cannot answer); a vsearch/query
        probe that does not answer degrades it (its models are missing; BM25 still answers).
        """
        if self.failure is not None:
            return self.outcome("failed", self.failure)
        if self.probe is not None and self.probe_failed and self.probe_degraded is None:
            return self.outcome("failed", f"qmd {self.probe.mode} probe failed: {self.probe.error}")
        degraded = [reason for reason in (self.embed.degraded, self.probe_degraded) if reason is not None]
        if self.model_fix_owed:
            degraded.append(model_fix(self))  # once, however many steps could not run
        if degraded:
            return self.outcome("degraded", "; ".join(degraded))
        success: Literal["armed", "fresh"] = (
            "fresh" if self.unchanged and not self.embedded_unchanged else "armed"
        )
        return self.outcome(success, None)


def model_fix(job: AgentJob) -> str:
    """The two ways out for an agent whose models cannot be downloaded where it runs."""
    shared = shared_models_dir(job.context.loaded.env)
    return (
        f"fix: run `memwarm init-backends --probe` once with network access (models in {shared} are "
        'shared with every agent), or set memory.qmd.searchMode to "search" (BM25, no model)'
    )
