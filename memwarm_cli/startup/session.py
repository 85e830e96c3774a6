"""From a loaded config and an agent to a computed startup plan (shared by `prelude` and `scan`)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from memwarm_cli.errors import UsageError
from memwarm_cli.startup.plan import StartupPlan, build_plan

if TYPE_CHECKING:
    from memwarm_cli.agents import Agent
    from memwarm_cli.config import LoadedConfig

_EPOCH_MS = re.compile(r"^-?\d{1,16}$")


def parse_instant(text: str | None) -> int:
    """`--at`: ISO 8601 with an offset or `Z`, or integer epoch milliseconds; None means now."""
    if text is None:
        return time.time_ns() // 1_000_000
    value = text.strip()
    if _EPOCH_MS.match(value):
        return int(value)
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise UsageError(
            f"--at: cannot read {text!r}: use ISO 8601 with an offset or Z "
            "(2026-04-11T18:00:00Z) or epoch milliseconds"
        ) from None
    if moment.tzinfo is None:
        raise UsageError(f"--at: {text!r} has no UTC offset; add Z or +HH:MM")
    return (moment - datetime(1970, 1, 1, tzinfo=UTC)) // _ONE_MS


_ONE_MS = datetime(1970, 1, 1, 0, 0, 0, 1000, tzinfo=UTC) - datetime(1970, 1, 1, tzinfo=UTC)


def iso_utc(at_ms: int) -> str:
    """`Date.prototype.toISOString()`."""
    moment = datetime(1970, 1, 1, tzinfo=UTC) + _ONE_MS * at_ms
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


@dataclass(frozen=True)
class AgentPlan:
    agent_id: str
    workspace: Path
    workspace_exists: bool
    plan: StartupPlan


def plan_for_agent(
    loaded: LoadedConfig,
    agent: Agent,
    at_ms: int,
    *,
    workspace_override: Path | None = None,
    include_others: bool = False,
) -> AgentPlan:
    """The agent's startup plan; `workspace_override` replaces only the directory, never the settings."""
    if workspace_override is not None:
        workspace = Path(workspace_override).absolute()
        if not workspace.is_dir():
            raise UsageError(f"--workspace: {workspace_override} is not a directory")
    else:
        workspace = agent.workspace
    plan = build_plan(workspace, loaded.data, at_ms, include_others=include_others)
    return AgentPlan(agent.id, workspace, workspace.is_dir(), plan)
