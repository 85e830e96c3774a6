"""`memwarm status` on a release with the builtin index only (2026.8.1+): every agent's index judged
read-only (index_judge.py), in the shape of the qmd status report (agent_status.py) so the same views,
`--json` style, Prometheus metrics and exit-code rules apply. The release is an explicit argument.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

from memwarm_cli.agents import Agent, resolve_agents, select_agent
from memwarm_cli.backends.builtin.index_judge import IndexJudgement, judge_index
from memwarm_cli.backends.builtin.search_settings import BuiltinSearch, resolve_builtin_search
from memwarm_cli.backends.freshness.forked_map import forked_map
from memwarm_cli.config import LoadedConfig
from memwarm_cli.exitcodes import ExitCode
from memwarm_cli.frozen_records import record
from memwarm_cli.profiles.choice import OpenClawChoice

BuiltinVerdict = Literal["warm", "stale", "invalid", "cold", "failed", "skipped"]
BUILTIN_VERDICTS: tuple[BuiltinVerdict, ...] = ("warm", "stale", "invalid", "cold", "failed", "skipped")
STATUS_SCHEMA = 1
SEARCH_DISABLED = "memory search is disabled for this agent (memory.search.enabled is false)"
# Said with every judged agent that indexes sessions: its verdict covers the memory files only.
SESSIONS_NOT_JUDGED = (
    "session transcripts are not judged (memory files only): new chats can make OpenClaw report "
    "the index dirty"
)


@record
class BuiltinAgentStatus:
    agent_id: str
    verdict: BuiltinVerdict
    why: tuple[str, ...]
    workspace: str
    search: BuiltinSearch | None  # None: memory search disabled
    judgement: IndexJudgement | None = None

    @property
    def sessions(self) -> str | None:
        """`not judged` when session transcripts are indexed, `not indexed` when not, None if skipped."""
        if self.search is None:
            return None
        return "not judged" if "sessions" in self.search.sources else "not indexed"

    @property
    def eligible(self) -> bool:
        return self.verdict != "skipped"

    def to_json(self) -> dict[str, Any]:
        search = self.search
        return {
            "agentId": self.agent_id,
            "status": self.verdict,
            "why": list(self.why),
            "memorySearch": search is not None,
            "backend": "builtin",
            "workspace": str(self.workspace),
            "provider": search.provider if search else None,
            "model": search.model if search else None,
            "sources": list(search.sources) if search else None,
            "extraPaths": [e.to_json() for e in search.extra_paths] if search else None,
            "sessions": self.sessions,
            "staleFiles": self.judgement.stale_files if self.judgement else None,
            "index": self.judgement.to_json() if self.judgement else None,
        }


def builtin_exit_code(verdicts: set[str]) -> ExitCode:
    """1 when an agent is cold, invalid or failed (its first search builds, or is paused); 4 when one is
    stale and none of those; else 0 (warm, skipped)."""
    if verdicts & {"cold", "invalid", "failed"}:
        return ExitCode.FINDINGS
    if "stale" in verdicts:
        return ExitCode.DEGRADED
    return ExitCode.OK


@record
class BuiltinStatusReport:
    agents: tuple[BuiltinAgentStatus, ...]
    release: str  # `OpenClaw 2026.9.6 (P3)`
    config_path: str
    state_dir: str
    generated_at: float
    max_age_seconds: float | None = None

    @property
    def exit_code(self) -> ExitCode:
        return builtin_exit_code({agent.verdict for agent in self.agents})

    def counts(self) -> dict[str, int]:
        counts: dict[str, int] = dict.fromkeys(BUILTIN_VERDICTS, 0)
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
            "runningKnown": None,  # OpenClaw's own builds are not looked for
            "exitCode": int(self.exit_code),
            "summary": self.counts(),
            "backend": {"name": "builtin", "release": self.release},
            "agents": [agent.to_json() for agent in self.agents],
        }


def selected_builtin_agents(
    loaded: LoadedConfig, requested: Sequence[str], choice: OpenClawChoice
) -> list[Agent]:
    """Every agent of the release's roster in its order, or the requested ones (UnknownAgentError)."""
    profile = choice.profile
    everyone = resolve_agents(loaded.data, loaded.env, profile=profile)
    if not requested:
        return everyone
    wanted = {select_agent(loaded.data, loaded.env, raw, profile=profile).id for raw in requested}
    return [agent for agent in everyone if agent.id in wanted]


def builtin_searches(
    loaded: LoadedConfig, agents: Sequence[Agent], choice: OpenClawChoice
) -> list[tuple[Agent, BuiltinSearch | None]]:
    return [
        (a, resolve_builtin_search(loaded.data, a, loaded.state_dir, profile=choice.profile)) for a in agents
    ]


def agent_status(
    agent: Agent, search: BuiltinSearch | None, judgement: IndexJudgement | None
) -> BuiltinAgentStatus:
    if search is None or judgement is None:
        return BuiltinAgentStatus(agent.id, "skipped", (SEARCH_DISABLED,), agent.workspace, None)
    why = judgement.why
    if "sessions" in search.sources and judgement.verdict != "failed":
        why = (*why, SESSIONS_NOT_JUDGED)
    return BuiltinAgentStatus(agent.id, judgement.verdict, why, agent.workspace, search, judgement)


def collect_builtin_status(
    loaded: LoadedConfig,
    requested: Sequence[str],
    *,
    choice: OpenClawChoice,
    release: str,
    max_age_seconds: float | None = None,
    now: Callable[[], float] = time.time,
) -> BuiltinStatusReport:
    """Every selected agent's builtin index, judged read-only. Raises UnknownAgentError."""
    pairs = builtin_searches(loaded, selected_builtin_agents(loaded, requested, choice), choice)
    searches = [search for _, search in pairs if search is not None]
    # The walks and hashes of many agents on every usable CPU (forked before any thread starts).
    judged = dict(zip((s.agent_id for s in searches), forked_map(judge_index, searches), strict=True))
    agents = tuple(agent_status(a, s, judged.get(a.id) if s else None) for a, s in pairs)
    return BuiltinStatusReport(
        agents=agents,
        release=release,
        config_path=loaded.source.path,
        state_dir=loaded.state_dir,
        generated_at=now(),
        max_age_seconds=max_age_seconds,
    )
