"""`memwarm init-backends` on a release with the builtin index only (2026.8.1+): judge every agent
read-only, then build the cold ones with the release's own `openclaw memory index --agent <id>`
(index_runner.py), one agent at a time (each build is CPU-heavy and OpenClaw serialises them anyway).

Stale agents are reported and left to OpenClaw, which answers from the old rows and catches up by itself,
unless `include_stale` (they, and agents whose identity is not valid, are then indexed too, without
`--force`: the release's CLI rebuilds an invalid identity itself). `force` runs
`openclaw memory index --force` (a full rebuild) for every selected agent with memory search. Nothing runs
when OpenClaw cannot be started (not installed, a qmd release, a Node it refuses): the agents to build
stay `cold` and the run says why once. Before a build that computes embeddings the run says which
provider it will call. The core never prints, never exits, never installs signal handlers: it sends
events and returns a report; a cancelled token ends the running child and skips the rest.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from memwarm_cli.backends.builtin.builtin_status import (
    SEARCH_DISABLED,
    builtin_searches,
    selected_builtin_agents,
)
from memwarm_cli.backends.builtin.index_judge import IndexJudgement, judge_index
from memwarm_cli.backends.builtin.index_runner import (
    DEFAULT_AGENT_TIMEOUT_MS,
    IndexRun,
    Launcher,
    child_env,
    find_launcher,
    index_argv,
    run_memory_index,
)
from memwarm_cli.backends.builtin.search_settings import BuiltinSearch
from memwarm_cli.backends.freshness.forked_map import forked_map
from memwarm_cli.backends.init.init_report import (
    AgentStartEvent,
    LogEvent,
    RunStartEvent,
    StepEvent,
)
from memwarm_cli.cancel import Cancelled, CancelToken
from memwarm_cli.config import LoadedConfig
from memwarm_cli.exitcodes import ExitCode, signal_exit
from memwarm_cli.frozen_records import record
from memwarm_cli.profiles.choice import OpenClawChoice
from memwarm_cli.profiles.releases import match_release

BuiltinInitStatus = Literal["built", "warm", "stale", "invalid", "cold", "failed", "skipped", "planned"]
BUILTIN_INIT_STATUSES: tuple[BuiltinInitStatus, ...] = (
    "built",
    "warm",
    "stale",
    "invalid",
    "cold",
    "failed",
    "skipped",
    "planned",
)
STALE_FLAG = "--include-stale"
INIT_SCHEMA_VERSION = 1


@record
class BuiltinInitOptions:
    agents: tuple[str, ...] = ()
    dry_run: bool = False
    force: bool = False  # `openclaw memory index --force` for every selected agent with memory search
    include_stale: bool = False  # also index stale and invalid agents (no --force)
    timeout_ms: int | None = None  # per agent; None: DEFAULT_AGENT_TIMEOUT_MS


@record
class BuiltinOutcome:
    agent_id: str
    status: BuiltinInitStatus
    reason: str | None
    workspace: str
    before: IndexJudgement | None  # the verdict that decided what to do
    after: IndexJudgement | None = None  # the verdict once the build ended
    run: IndexRun | None = None
    planned: tuple[str, ...] = ()  # a dry run's command
    planned_env: tuple[tuple[str, str], ...] = ()
    planned_cwd: str | None = None
    provider: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "agentId": self.agent_id,
            "status": self.status,
            "reason": self.reason,
            "backend": "builtin",
            "workspace": str(self.workspace),
            "provider": self.provider,
            "before": self.before.to_json() | {"status": self.before.verdict} if self.before else None,
            "after": self.after.to_json() | {"status": self.after.verdict} if self.after else None,
            "command": self.run.to_json() if self.run else None,
            "durationMs": self.run.duration_ms if self.run else 0,
        }
        if self.planned:
            data["planned"] = {
                "argv": list(self.planned),
                "cwd": self.planned_cwd,
                "env": dict(self.planned_env),
            }
        return data


@record
class BuiltinInitReport:
    agents: tuple[BuiltinOutcome, ...]
    release: str
    launcher: Launcher | None  # None: nothing had to be built
    duration_ms: int
    dry_run: bool
    signum: int | None
    config_path: str
    state_dir: str

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = dict.fromkeys(BUILTIN_INIT_STATUSES, 0)
        for agent in self.agents:
            counts[agent.status] += 1
        return counts

    @property
    def exit_code(self) -> ExitCode:
        """128+signal when interrupted; 1 when an agent failed or stays cold; 4 when one is invalid;
        7 when every agent is skipped (nothing to warm, a dry run aside); else 0 (stale agents are
        OpenClaw's to catch up)."""
        if self.signum is not None:
            return signal_exit(self.signum)
        counts = self.counts()
        if counts["failed"] or counts["cold"]:
            return ExitCode.FINDINGS
        if counts["invalid"]:
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
            "concurrency": 1,
            "summary": self.counts(),
            "backend": {"name": "builtin", "release": self.release},
            "openclawCli": self.launcher.to_json() if self.launcher else None,
            "agents": [a.to_json() for a in self.agents],
        }


@record
class BuiltinDoneEvent:
    outcome: BuiltinOutcome


Sink = Callable[[object], None]


def _wanted(judgement: IndexJudgement, options: BuiltinInitOptions) -> bool:
    if options.force:
        return judgement.verdict != "failed"
    if judgement.verdict == "cold":
        return True
    return options.include_stale and judgement.verdict in ("stale", "invalid")


def _left(search: BuiltinSearch, judgement: IndexJudgement, agent_workspace: str) -> BuiltinOutcome:
    """An agent this run does not build: its verdict, and why it is left."""
    verdict = judgement.verdict
    why = "; ".join(judgement.why)
    if verdict == "stale":
        why = f"{why}; left to OpenClaw, which catches up on its next search ({STALE_FLAG} indexes it now)"
    elif verdict == "invalid":
        why = f"{why}; `{STALE_FLAG}` or `--force` rebuilds it (with a provider: a paid re-embedding)"
    status: BuiltinInitStatus = verdict if verdict != "cold" else "cold"
    return BuiltinOutcome(
        search.agent_id, status, why or None, agent_workspace, judgement, provider=search.provider
    )


def provider_notice(targets: Sequence[BuiltinSearch]) -> list[str]:
    """One line per embedding provider the builds will call (keyword-only agents call none)."""
    by_provider: dict[tuple[str, str | None], list[str]] = {}
    for search in targets:
        if search.calls_provider:
            by_provider.setdefault((search.provider, search.model), []).append(search.agent_id)
    lines = []
    for (provider, model), ids in by_provider.items():
        named = ", ".join(f'"{i}"' for i in ids)
        model_text = f", model {model}" if model else ""
        lines.append(
            f"building the index of {named} will call your embedding provider {provider}{model_text} "
            'for every memory chunk (it may cost money; memory.search.provider "none" is keyword-only)'
        )
    return lines


def _other_release(launcher: Launcher, choice: OpenClawChoice) -> str | None:
    """A line when the openclaw that will build is of another profile than the run judged for (a
    release named by --openclaw or MEMWARM_OPENCLAW that is not the installed one)."""
    found = match_release(launcher.version) if launcher.version else None
    if found is None or found.profile.name == choice.profile.name:
        return None
    return (
        f"the openclaw that builds is OpenClaw {launcher.version} ({found.profile.name}), while this run "
        f"judges the indexes for {choice.summary}"
    )


def run_builtin_init(
    loaded: LoadedConfig,
    options: BuiltinInitOptions,
    *,
    choice: OpenClawChoice,
    release: str,
    token: CancelToken | None = None,
    on_event: Sink = lambda _event: None,
    cwd: Path | None = None,
) -> BuiltinInitReport:
    """Judge every selected agent, build the ones `options` select. Raises UnknownAgentError."""
    started = time.monotonic()
    token = token or CancelToken()
    cwd = cwd or Path(os.getcwd())
    pairs = builtin_searches(loaded, selected_builtin_agents(loaded, options.agents, choice), choice)
    searches = [s for _, s in pairs if s is not None]
    judged = dict(zip((s.agent_id for s in searches), forked_map(judge_index, searches), strict=True))
    outcomes: dict[str, BuiltinOutcome] = {}
    targets: list[BuiltinSearch] = []
    for agent, search in pairs:
        if search is None:
            outcomes[agent.id] = BuiltinOutcome(agent.id, "skipped", SEARCH_DISABLED, agent.workspace, None)
        elif _wanted(judged[agent.id], options):
            targets.append(search)
        else:
            outcomes[agent.id] = _left(search, judged[agent.id], agent.workspace)
    # The run's progress counts the agents it builds (the others are judged already).
    on_event(RunStartEvent(len(pairs), tuple(s.agent_id for s in targets), len(targets), 1))
    env = child_env(loaded.env, loaded.state_dir, loaded.source.path)
    timeout_ms = options.timeout_ms or DEFAULT_AGENT_TIMEOUT_MS
    launcher = None
    if targets and options.dry_run:
        launcher = find_launcher(loaded.env, profile=choice.profile, token=token)
        if launcher.problem is not None:
            on_event(LogEvent(f"a real run would build nothing: {launcher.problem}"))
        for search in targets:
            outcomes[search.agent_id] = BuiltinOutcome(
                search.agent_id,
                "planned",
                "; ".join(judged[search.agent_id].why) or "rebuild (--force)",
                search.workspace,
                judged[search.agent_id],
                planned=("openclaw", *index_argv(search.agent_id, force=options.force)),
                planned_env=(
                    ("OPENCLAW_STATE_DIR", loaded.state_dir),
                    ("OPENCLAW_CONFIG_PATH", loaded.source.path),
                ),
                planned_cwd=str(cwd),
                provider=search.provider,
            )
    elif targets:
        launcher = find_launcher(loaded.env, profile=choice.profile, token=token)
        if launcher.problem is not None:
            on_event(LogEvent(f"nothing was built: {launcher.problem}"))
            for search in targets:
                before = judged[search.agent_id]
                reason = f"not built: {launcher.problem}"
                status: BuiltinInitStatus = "cold" if before.verdict == "cold" else before.verdict
                outcomes[search.agent_id] = BuiltinOutcome(
                    search.agent_id, status, reason, search.workspace, before, provider=search.provider
                )
        else:
            other = _other_release(launcher, choice)
            if other is not None:
                on_event(LogEvent(other))
            for line in provider_notice(targets):
                on_event(LogEvent(line))
            for search in targets:
                outcome = _build(
                    search, judged[search.agent_id], launcher, env, cwd, timeout_ms, options, token, on_event
                )
                outcomes[search.agent_id] = outcome
    ordered = tuple(outcomes[a.id] for a, _ in pairs)
    for outcome in ordered:
        if outcome.run is None:
            on_event(BuiltinDoneEvent(outcome))
    return BuiltinInitReport(
        agents=ordered,
        release=release,
        launcher=launcher,
        duration_ms=round((time.monotonic() - started) * 1000),
        dry_run=options.dry_run,
        signum=token.signum,
        config_path=loaded.source.path,
        state_dir=loaded.state_dir,
    )


def _build(
    search: BuiltinSearch,
    before: IndexJudgement,
    launcher: Launcher,
    env: dict[str, str],
    cwd: Path,
    timeout_ms: int,
    options: BuiltinInitOptions,
    token: CancelToken,
    on_event: Sink,
) -> BuiltinOutcome:
    agent_id = search.agent_id
    if token.signum is not None:
        name = signal.Signals(token.signum).name
        status: BuiltinInitStatus = "cold" if before.verdict == "cold" else before.verdict
        return BuiltinOutcome(
            agent_id,
            status,
            f"not built: interrupted before start ({name})",
            search.workspace,
            before,
            provider=search.provider,
        )
    on_event(AgentStartEvent(agent_id))
    on_event(StepEvent(agent_id, "openclaw memory index", timeout_ms))
    try:
        run = run_memory_index(
            launcher, agent_id, env=env, cwd=cwd, timeout_ms=timeout_ms, token=token, force=options.force
        )
    except Cancelled as stop:
        name = signal.Signals(stop.signum).name
        outcome = BuiltinOutcome(
            agent_id,
            "failed",
            f"interrupted ({name}): openclaw was stopped",
            search.workspace,
            before,
            provider=search.provider,
        )
        on_event(BuiltinDoneEvent(outcome))
        return outcome
    after = judge_index(search)
    if not run.ok:
        outcome = BuiltinOutcome(
            agent_id, "failed", run.error, search.workspace, before, after, run, provider=search.provider
        )
    elif after.verdict == "invalid":
        reason = "built, but " + "; ".join(after.why)
        outcome = BuiltinOutcome(
            agent_id, "invalid", reason, search.workspace, before, after, run, provider=search.provider
        )
    elif after.verdict in ("cold", "failed"):
        reason = "openclaw memory index ended without error, but " + "; ".join(after.why)
        outcome = BuiltinOutcome(
            agent_id, "failed", reason, search.workspace, before, after, run, provider=search.provider
        )
    else:
        files = f"{run.indexed_files} files indexed" if run.indexed_files is not None else "indexed"
        reason = f"{files} in {run.duration_ms / 1000:.1f}s"
        if after.verdict == "stale":
            reason += "; files changed while it ran: " + "; ".join(after.why)
        outcome = BuiltinOutcome(
            agent_id, "built", reason, search.workspace, before, after, run, provider=search.provider
        )
    on_event(BuiltinDoneEvent(outcome))
    return outcome
