"""`memwarm status`: is each agent's qmd index warm, and if not, why? Read-only.

Per agent, from the config, memwarm's own records (fingerprint, file lists, last-run record, version
cache) and the index itself (index_stats.py, read-only): the backend and where it came from, the index
and what it holds, the last init-backends run, freshness now (freshness.py: the very judgement
init-backends makes, with its reasons), the embed backoff, and one verdict.

Nothing is written: no state file, no version cache, no lock taken (a running init-backends is seen in
/proc/locks, locks.py), no qmd command but `qmd --version`, once per distinct qmd, when the version
cache does not know the executable. The core never prints and never exits; the CLI renders the report.

The module is longer than 400 lines because one agent's status is one pass: the reads done in the
forked workers (_inspect), the view built from them and the verdict are the same record's stages, and
splitting them would put the fields' meaning in one file and their reading in another.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from memwarm_cli.backends.freshness import fingerprint as fp
from memwarm_cli.backends.freshness.export_check import FreshnessJob, export_cache_path
from memwarm_cli.backends.freshness.file_walk import shared_parents
from memwarm_cli.backends.freshness.forked_map import forked_map
from memwarm_cli.backends.freshness.freshness import Freshness, judge
from memwarm_cli.backends.qmd.index_stats import IndexStats, IndexView, index_view
from memwarm_cli.backends.qmd.qmd_diagnosis import unavailable_hint
from memwarm_cli.backends.qmd.version_cache import PeekedVersion, VersionPeeker
from memwarm_cli.backends.settings.agent_backend import (
    AgentBackendSettings,
    resolve_agent_backend,
    select_agents,
)
from memwarm_cli.backends.settings.qmd_paths import qmd_child_env
from memwarm_cli.backends.state import state_files
from memwarm_cli.backends.state.last_run import LastRun, last_run_path, read_last_run
from memwarm_cli.backends.state.locks import agent_lock_path, flocked_inodes, lock_is_held, run_refusal
from memwarm_cli.cancel import CancelToken
from memwarm_cli.config import LoadedConfig
from memwarm_cli.config.paths import is_directory
from memwarm_cli.exitcodes import ExitCode
from memwarm_cli.frozen_records import field, record
from memwarm_cli.profiles.releases import Profile

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    Verdict = Literal["warm", "stale", "degraded", "failed", "running", "skipped"]

VERDICTS: tuple[Verdict, ...] = ("warm", "stale", "degraded", "failed", "running", "skipped")
ELIGIBLE_VERDICTS: tuple[Verdict, ...] = ("warm", "stale", "degraded", "failed", "running")
STATUS_SCHEMA = 1


@record
class StatusOptions:
    agents: tuple[str, ...] = ()  # requested ids; empty: every agent
    max_age_seconds: float | None = None  # a last success older than this makes the agent stale
    now: float | None = None  # epoch seconds (tests); None: the clock


@record
class EmbedBackoff:
    failures: int
    until: float | None  # epoch seconds; None: no backoff

    def to_json(self) -> dict[str, Any]:
        return {"failures": self.failures, "until": self.until}


@record
class AgentStatus:
    agent_id: str
    verdict: Verdict
    why: tuple[str, ...]  # the verdict's reasons, one sentence each (outside text raw)
    settings: AgentBackendSettings
    index: IndexView | None = None
    last_run: LastRun | None = None
    last_success_at: float | None = None
    freshness: Freshness | None = None
    qmd_version: str | None = None
    qmd_version_source: str | None = None  # cache, asked, unavailable
    embed_backoff: EmbedBackoff | None = None

    @property
    def eligible(self) -> bool:
        return self.verdict != "skipped"

    def to_json(self) -> dict[str, Any]:
        settings = self.settings
        qmd = settings.qmd
        return {
            "agentId": self.agent_id,
            "status": self.verdict,
            "why": list(self.why),
            "memorySearch": settings.memory_search is not None,
            "backend": settings.choice.backend,
            "backendSource": settings.choice.backend_source,
            "qmdSource": settings.choice.qmd_source,
            "searchMode": qmd.search_mode if qmd else None,
            "workspace": str(settings.workspace),
            "qmdVersion": self.qmd_version,
            "qmdVersionSource": self.qmd_version_source,
            "index": self.index.to_json() if self.index else None,
            "lastRun": self.last_run.to_json() if self.last_run else None,
            "lastSuccessAt": self.last_success_at,
            "freshness": self.freshness.to_json() if self.freshness else None,
            "embedBackoff": self.embed_backoff.to_json() if self.embed_backoff else None,
        }


@record
class StatusReport:
    agents: tuple[AgentStatus, ...]
    config_path: str
    state_dir: str
    generated_at: float
    max_age_seconds: float | None = None
    running_known: bool = True  # False: /proc/locks is not there, a running run cannot be seen
    warnings: tuple[str, ...] = field(default=())

    @property
    def exit_code(self) -> ExitCode:
        """1 some agent failed; 4 some stale or degraded, none failed; else 0 (warm, running, skipped)."""
        verdicts = {agent.verdict for agent in self.agents}
        if "failed" in verdicts:
            return ExitCode.FINDINGS
        if verdicts & {"stale", "degraded"}:
            return ExitCode.DEGRADED
        return ExitCode.OK

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = dict.fromkeys(VERDICTS, 0)
        for agent in self.agents:
            counts[agent.verdict] += 1
        return counts

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": STATUS_SCHEMA,
            "command": "status",
            "configPath": self.config_path,
            "stateDir": self.state_dir,
            "generatedAt": self.generated_at,
            "maxAgeSeconds": self.max_age_seconds,
            "runningKnown": self.running_known,
            "exitCode": int(self.exit_code),
            "summary": self.counts(),
            "agents": [agent.to_json() for agent in self.agents],
        }


@record
class _Inspected:
    """What status reads of one agent's files (in a forked worker: forked_map), and what it warned."""

    stored: fp.StoredFingerprint | None
    freshness: Freshness
    index: IndexView
    last_run: LastRun | None
    workspace_ok: bool
    running: bool | None
    refused: OSError | None
    record_warnings: tuple[str, ...]  # reading the fingerprint
    last_run_warnings: tuple[str, ...]  # reading the last-run record


def collect_status(
    loaded: LoadedConfig,
    options: StatusOptions,
    *,
    profile: Profile,
    warn: Callable[[str], None] | None = None,
    token: CancelToken | None = None,
) -> StatusReport:
    """Every selected agent's status. Raises UnknownAgentError for an unknown `--agent`, Cancelled when
    `token` is cancelled (a `qmd --version` it asks is stopped first)."""
    token = token or CancelToken()
    now = options.now if options.now is not None else time.time()
    warnings: list[str] = []

    def note(message: str) -> None:
        if message not in warnings:
            warnings.append(message)
            if warn is not None:
                warn(message)

    held = flocked_inodes()
    everyone = [
        resolve_agent_backend(
            loaded.data, a.id, a.entry, a.workspace, loaded.state_dir, loaded.env, profile=profile
        )
        for a in select_agents(loaded, options.agents, profile=profile)
    ]
    peeker = VersionPeeker(loaded.state_dir, warn=note, token=token)
    peeked: dict[tuple[str, Path | None], PeekedVersion] = {}
    versions = {s.agent_id: _version(loaded, s, peeker, peeked) for s in everyone if s.skip_reason is None}
    token.check()
    judged_agents = [s for s in everyone if s.qmd is not None and s.skip_reason is None]
    now_ms = int(now * 1000)

    def inspect(settings: AgentBackendSettings) -> _Inspected:
        token.check()
        return _inspect(loaded, settings, now_ms, held, token)

    # Every agent's files (the walks: nearly all of status's time on many notes; its records, its index,
    # its lock) on every usable CPU; the judgement is the one init-backends makes.
    with shared_parents():
        results = forked_map(inspect, judged_agents, check=token.check)
    inspected = dict(zip((s.agent_id for s in judged_agents), results, strict=True))
    for result in results:  # the warnings in the order reading the records in turn gave them
        for message in result.record_warnings:
            note(message)
    agents = []
    for s in everyone:
        found = inspected.get(s.agent_id)
        if found is not None:
            for message in found.last_run_warnings:
                note(message)
        agents.append(_agent_status(loaded, s, options, now, versions.get(s.agent_id), found))
    return StatusReport(
        agents=tuple(agents),
        config_path=loaded.source.path,
        state_dir=loaded.state_dir,
        generated_at=now,
        max_age_seconds=options.max_age_seconds,
        running_known=held is not None,
        warnings=tuple(warnings),
    )


def _version(
    loaded: LoadedConfig,
    settings: AgentBackendSettings,
    peeker: VersionPeeker,
    peeked: dict[tuple[str, Path | None], PeekedVersion],
) -> PeekedVersion:
    """The qmd version the agent's next run would use, where it came from, and whether it is too old.

    Agents' qmd environments differ only in their own qmd dirs (version_cache.AGENT_ENV), and a command
    without a relative directory part is found on the one PATH: one look per command (and per working
    directory for a relative `./qmd`), not per agent."""
    qmd = settings.qmd
    assert qmd is not None
    command = qmd.command
    relative = "/" in command and not command.startswith("/")
    key = (command, settings.workspace if relative else None)  # the workspace decides the cwd
    found = peeked.get(key)
    if found is None:
        cwd = settings.workspace if is_directory(settings.workspace) else Path(loaded.state_dir)
        found = peeked[key] = peeker.peek(command, qmd_child_env(loaded.env, settings.paths), cwd)
    return found


def _inspect(
    loaded: LoadedConfig,
    settings: AgentBackendSettings,
    now_ms: int,
    held: frozenset[int] | None,
    token: CancelToken,
) -> _Inspected:
    qmd = settings.qmd
    assert qmd is not None
    state_dir, paths = loaded.state_dir, settings.paths
    record_warnings: list[str] = []
    last_run_warnings: list[str] = []
    stored = fp.read_fingerprint(fp.fingerprint_path(state_dir, paths), record_warnings.append)
    job = FreshnessJob(
        qmd=qmd,
        index_path=paths.index_path,
        workspace=settings.workspace,
        now_ms=now_ms,
        stored=stored,
        export_cache=export_cache_path(state_dir, qmd, paths.qmd_dir),
        want_stats=True,
    )
    judged = judge(job, token)  # a signal stops its export check, as init-backends'
    return _Inspected(
        stored=stored,
        freshness=judged.freshness,
        index=_index_view(settings, judged.stats),
        last_run=read_last_run(last_run_path(state_dir, paths.qmd_dir), last_run_warnings.append),
        workspace_ok=is_directory(settings.workspace),
        running=lock_is_held(agent_lock_path(state_dir, paths.qmd_dir), held),
        refused=run_refusal(state_dir, paths, embeds=qmd.search_mode != "search"),
        record_warnings=tuple(record_warnings),
        last_run_warnings=tuple(last_run_warnings),
    )


def _index_view(settings: AgentBackendSettings, stats: IndexStats | None) -> IndexView:
    """index_view, from the stats the judgement read over its own connection when it read them."""
    if stats is None:
        return index_view(settings)
    qmd = settings.qmd
    assert qmd is not None
    index_path = settings.paths.index_path
    try:
        size = os.stat(index_path).st_size
    except OSError:
        return index_view(settings)
    managed = tuple(spec.name for spec in qmd.collections)
    return IndexView(str(index_path), True, size, stats, None, managed, qmd.search_mode != "search")


def _agent_status(
    loaded: LoadedConfig,
    settings: AgentBackendSettings,
    options: StatusOptions,
    now: float,
    version_found: PeekedVersion | None,
    found: _Inspected | None,
) -> AgentStatus:
    skip = settings.skip_reason
    qmd = settings.qmd
    if skip is not None or qmd is None or version_found is None or found is None:
        skipped = "the memory backend is builtin, not qmd" if skip in (None, "builtin") else skip
        return AgentStatus(settings.agent_id, "skipped", (skipped or "",), settings)
    paths = settings.paths
    index, last_run, stored = found.index, found.last_run, found.stored
    version, version_source = version_found.version, version_found.source
    freshness = found.freshness
    last_success = last_run.last_success_at if last_run is not None else None
    if last_success is None and stored is not None and stored.digest != fp.UNSUCCESSFUL_DIGEST:
        last_success = stored.recorded_at  # a run before last-run records existed
    backoff = None
    if stored is not None and stored.embed_failures > 0:
        until = stored.embed_failed_at + fp.embed_backoff_seconds(stored.embed_failures)
        backoff = EmbedBackoff(stored.embed_failures, until if until > now else None)

    refused = found.refused
    verdict, why = _verdict(
        running=bool(found.running),
        next_run_fails=None if refused is None else state_files.describe_os_error(refused),
        workspace_ok=found.workspace_ok,
        qmd_unavailable=(
            version_found.problem
            if version_source != "unavailable"
            else f"qmd binary unavailable ({qmd.command}): "
            + unavailable_hint(qmd.command, qmd_child_env(loaded.env, paths), settings.workspace)
        ),
        index=index,
        last_run=last_run,
        vectors_owed=stored is not None and not stored.vectors_current and index.needs_vectors,
        freshness=freshness,
        last_success=last_success,
        max_age=options.max_age_seconds,
        now=now,
        workspace=str(settings.workspace),
    )
    return AgentStatus(
        agent_id=settings.agent_id,
        verdict=verdict,
        why=why,
        settings=settings,
        index=index,
        last_run=last_run,
        last_success_at=last_success,
        freshness=freshness,
        qmd_version=version,
        qmd_version_source=version_source,
        embed_backoff=backoff,
    )


def _verdict(
    *,
    running: bool,
    next_run_fails: str | None,
    workspace_ok: bool,
    qmd_unavailable: str | None,
    index: IndexView,
    last_run: LastRun | None,
    vectors_owed: bool,
    freshness: Freshness,
    last_success: float | None,
    max_age: float | None,
    now: float,
    workspace: str,
) -> tuple[Verdict, tuple[str, ...]]:
    if running:
        return "running", ("an init-backends run holds the agent's lock",)
    failed: list[str] = []
    if next_run_fails is not None:  # init-backends refuses it before any qmd command, as status does here
        failed.append(f"the next run fails: {next_run_fails}")
    if last_run is not None and last_run.status == "failed":
        failed.append(f"the last run failed: {last_run.reason or 'unknown error'}")
    if not index.exists:
        failed.append("the index is missing: run memwarm init-backends first")
    elif index.error is not None:
        failed.append(f"the index cannot be read: {index.error}")
    if not workspace_ok:
        failed.append(f"the workspace does not exist ({workspace})")
    if qmd_unavailable is not None:
        failed.append(qmd_unavailable)
    if failed:
        return "failed", tuple(failed)
    degraded: list[str] = []
    if last_run is not None and last_run.status == "degraded":
        degraded.append(f"the last run was degraded: {last_run.reason or 'unknown reason'}")
    elif vectors_owed:
        degraded.append("the last qmd embed failed: vectors are stale (searchable with BM25)")
    pending = index.pending
    if pending:
        noun = "document waits" if pending == 1 else "documents wait"
        degraded.append(f"{pending} {noun} for embeddings (vector search does not find them yet)")
    if degraded:
        return "degraded", tuple(degraded)
    stale = [reason.text for reason in freshness.reasons]
    if max_age is not None:
        if last_success is None:
            stale.append("no successful run is recorded")
        elif now - last_success > max_age:
            stale.append(f"the last success was {_age(now - last_success)} ago (--max-age {_age(max_age)})")
    if not freshness.fresh or stale:
        return "stale", tuple(stale) or ("a run now would index",)
    return "warm", ()


def _age(seconds: float) -> str:
    """`90s`, `12m`, `3h 5m`, `2d 4h`: an age for a sentence."""
    whole = int(seconds)
    if whole < 120:
        return f"{whole}s"
    minutes, hours, days = whole // 60, whole // 3600, whole // 86400
    if hours < 2:
        return f"{minutes}m"
    if days < 2:
        return f"{hours}h {minutes % 60}m"
    return f"{days}d {hours % 24}h"


def selected_agents(report: StatusReport, only_not_warm: bool) -> Sequence[AgentStatus]:
    """Every agent, or (`-q`) those memwarm prepares that are not warm: what needs a look."""
    return [a for a in report.agents if not only_not_warm or a.verdict not in ("warm", "skipped")]
