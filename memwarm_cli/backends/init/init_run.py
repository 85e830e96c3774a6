"""`init-backends`: prepare every qmd agent's index the way the gateway's start-up does, on demand.

The orchestrator: selects the agents, skips those whose memory search is off or not qmd (with the
reason), walks the others' files (forked workers, before any thread starts) and runs their steps
(agent_steps.py) on a thread pool, one job per agent, in config order. The core reports through events
and returns an `InitReport` (init_report.py); it never prints, never exits, and never installs signal
handlers (the CLI wires SIGINT/SIGTERM to `CancelToken.cancel`).
"""

from __future__ import annotations

import os
import signal
import time
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait

from memwarm_cli.agents import resolve_agents
from memwarm_cli.backends.freshness.forked_map import usable_cpus
from memwarm_cli.backends.freshness.freshness import judge_all
from memwarm_cli.backends.init.agent_job import AgentFailed, AgentJob, RunContext, Walked, freshness_job
from memwarm_cli.backends.init.agent_steps import plan_steps, run_steps
from memwarm_cli.backends.init.init_report import (
    AgentDoneEvent,
    AgentOutcome,
    AgentStartEvent,
    EventSink,
    InitOptions,
    InitReport,
    LogEvent,
    RunStartEvent,
    Status,
    ignore_events,
)
from memwarm_cli.backends.settings.agent_backend import (
    AgentBackendSettings,
    resolve_agent_backend,
    select_agents,
)
from memwarm_cli.backends.state.last_run import (
    RECORDED_STATUSES,
    LastRun,
    last_run_path,
    next_last_run,
    read_last_run,
    write_last_run,
)
from memwarm_cli.backends.state.state_files import describe_os_error
from memwarm_cli.cancel import Cancelled, CancelToken
from memwarm_cli.config import LoadedConfig
from memwarm_cli.frozen_records import field, mutable_record
from memwarm_cli.profiles.releases import Profile


def export_dir_agents(loaded: LoadedConfig, *, profile: Profile) -> dict[str, tuple[str, ...]]:
    """Every session export dir (real path) of the config's agents, with the agents exporting there,
    selected by `--agent` or not: agents that share one would delete each other's exports."""
    owners: dict[str, list[str]] = {}
    for agent in resolve_agents(loaded.data, loaded.env, profile=profile):
        settings = resolve_agent_backend(
            loaded.data, agent.id, agent.entry, agent.workspace, loaded.state_dir, loaded.env, profile=profile
        )
        if settings.skip_reason is None and settings.qmd is not None and settings.qmd.sessions.enabled:
            export_dir = str(settings.qmd.sessions.export_dir)
            # A NUL (JSON5 "\u0000") makes realpath raise; the export step fails that agent in words.
            key = export_dir if "\0" in export_dir else os.path.realpath(export_dir)
            owners.setdefault(key, []).append(agent.id)
    return {key: tuple(ids) for key, ids in owners.items()}


def default_concurrency(eligible: int) -> int:
    """Usable CPUs (`taskset`, cgroup cpusets count), at most the number of agents to prepare."""
    return max(1, min(usable_cpus(), eligible))


def prepare_agent(job: AgentJob) -> AgentOutcome:
    """One agent's pass (or its plan, with `--dry-run`); always an outcome, interruptions included.

    A real pass ends by recording its outcome for `memwarm status` (last_run.py), while it still
    holds the agent lock, which is released last."""
    try:
        job.token.check()
    except Cancelled as exc:
        return job.outcome("skipped", f"interrupted before start ({_signame(exc.signum)})")
    job.context.sink(AgentStartEvent(job.settings.agent_id))
    try:
        outcome = _pass(job)
        if not job.options.dry_run:
            _record_last_run(job, outcome)
        return outcome
    finally:
        if job.lock is not None:
            job.lock.release()


def _pass(job: AgentJob) -> AgentOutcome:
    try:
        return plan_steps(job) if job.options.dry_run else run_steps(job)
    except Cancelled as exc:
        return job.outcome("failed", f"interrupted ({_signame(exc.signum)})")
    except AgentFailed as exc:
        return job.outcome("failed", exc.reason)
    except OSError as exc:  # the state dir cannot be written, a path vanished: this agent only
        return job.outcome("failed", describe_os_error(exc))


def _record_last_run(job: AgentJob, outcome: AgentOutcome) -> None:
    """The outcome for `status`; a record that cannot be written costs a warning, not the outcome."""
    if outcome.status not in RECORDED_STATUSES:
        return  # busy: the run holding the lock records its own
    path = last_run_path(job.context.loaded.state_dir, job.paths.qmd_dir)
    probe = outcome.probe
    run = LastRun(
        status=outcome.status,
        reason=outcome.reason,
        started_at=job.started_at,
        finished_at=time.time(),
        duration_ms=outcome.duration_ms,
        probe_mode=probe.mode if probe is not None else None,
        probe_latency_ms=probe.latency_ms if probe is not None and probe.answered else None,
    )
    try:
        write_last_run(path, next_last_run(read_last_run(path), run))
    except OSError as exc:
        job.context.sink(
            LogEvent(f"cannot record the last run: {describe_os_error(exc)}", job.settings.agent_id)
        )


def _signame(signum: int) -> str:
    return signal.Signals(signum).name


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
        gateway_updates_on_boot=settings.gateway_updates_on_boot,
        not_reproduced=settings.settings_differing_from_gateway if settings.skip_reason is None else (),
    )


@mutable_record
class _Slot:
    settings: AgentBackendSettings
    outcome: AgentOutcome | None = None
    future: Future[AgentOutcome] | None = field(default=None)
    walked: Walked | None = None  # the agent's freshness, judged before the pool started


def _walk_files(context: RunContext, runnable: list[_Slot], workers: int) -> None:
    """Every runnable agent's freshness (freshness.judge: its walks, and its index where memwarm's
    record does not vouch), judged now in up to `workers` forked workers; each agent's steps then only
    read the verdict. The walk is Python per file and holds the GIL, so in the pool's threads the agents'
    walks took turns; forking is safe only now, while this process has one thread. Interrupted, it
    stops: the agents then end "interrupted before start"."""
    if context.options.dry_run:  # a dry run compares nothing
        return
    slots = [slot for slot in runnable if slot.settings.qmd is not None]
    prepared = [freshness_job(context, slot.settings) for slot in slots]
    try:
        judged = judge_all([job for job, _ in prepared], context.token, workers)
    except Cancelled:
        return
    for slot, (job, warnings), verdict in zip(slots, prepared, judged, strict=True):
        slot.walked = Walked(job.stored, tuple(warnings), verdict)


def run_init_backends(
    loaded: LoadedConfig,
    options: InitOptions,
    *,
    profile: Profile,
    token: CancelToken | None = None,
    on_event: EventSink = ignore_events,
) -> InitReport:
    """Prepare every selected agent's qmd backend. Raises UnknownAgentError for an unknown `--agent`."""
    started = time.monotonic()
    token = token or CancelToken()
    agents = select_agents(loaded, options.agents, profile=profile)
    context = RunContext(loaded, options, token, on_event)
    slots = [
        _Slot(
            resolve_agent_backend(
                loaded.data, a.id, a.entry, a.workspace, loaded.state_dir, loaded.env, profile=profile
            )
        )
        for a in agents
    ]
    runnable = [slot for slot in slots if slot.settings.skip_reason is None]
    # Only an exporting agent asks who shares its export dir: resolving every agent again for that cost
    # each run as much as resolving the selected ones did.
    if any(slot.settings.qmd is not None and slot.settings.qmd.sessions.enabled for slot in runnable):
        context.export_dir_agents = export_dir_agents(loaded, profile=profile)
    workers = options.concurrency or default_concurrency(len(runnable))
    workers = max(1, min(workers, len(runnable) or 1))
    _walk_files(context, runnable, workers)
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
        # Once per run: the memorySearch.* spelling, and settings the gateway acts on but memwarm does not.
        notes = (
            *slot.settings.choice.warnings,
            *(s.describe() for s in slot.settings.settings_differing_from_gateway),
        )
        for warning in notes:
            if warning not in seen_warnings:
                seen_warnings.append(warning)
                on_event(LogEvent(warning))
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
                job = AgentJob(context, slot.settings, qmd, walked=slot.walked)
                slot.future = executor.submit(prepare_agent, job)
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
        config_path=loaded.source.path,
        state_dir=loaded.state_dir,
        concurrency=workers,
    )


def _result(slot: _Slot) -> AgentOutcome:
    assert slot.future is not None
    try:
        return slot.future.result()
    except Exception as exc:  # a bug or an OS error in one agent must not lose the others' results
        reason = describe_os_error(exc) if isinstance(exc, OSError) else f"{type(exc).__name__}: {exc}"
        return _static_outcome(slot.settings, "failed", reason)
