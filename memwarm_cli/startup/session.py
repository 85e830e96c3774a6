"""From a loaded config and an agent to a computed startup plan (shared by `prelude` and `scan`)."""

from __future__ import annotations

import os

from memwarm_cli.errors import WorkspaceError
from memwarm_cli.frozen_records import record
from memwarm_cli.os_paths import absolute_path
from memwarm_cli.profiles.releases import Profile
from memwarm_cli.startup.plan import StartupPlan, build_plan
from memwarm_cli.startup.prelude_settings import host_timezone_name

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from memwarm_cli.agents import Agent
    from memwarm_cli.config import LoadedConfig


@record
class AgentPlan:
    agent_id: str
    workspace: str
    workspace_exists: bool
    plan: StartupPlan
    workspace_rule: str | None = None  # the agent's (agents.Agent), unless --workspace replaced it


def plan_for_agent(
    loaded: LoadedConfig,
    agent: Agent,
    at_ms: int,
    *,
    workspace_override: str | os.PathLike[str] | None = None,
    include_others: bool = False,
    profile: Profile,
) -> AgentPlan:
    """The agent's startup plan by `profile`'s rules; `workspace_override` replaces only the directory,
    never the settings.

    The host zone (the fallback for an unusable userTimezone) is read from the config's environment,
    which includes `env.vars` and `.env`, as the runtime that loaded that config would see it.
    """
    if workspace_override is not None:
        workspace = absolute_path(os.fspath(workspace_override))
        if not os.path.isdir(workspace):  # os.path: False, not an exception, for too-long paths
            raise WorkspaceError(f"the workspace {workspace_override} is not a directory")
    else:
        workspace = agent.workspace
    plan = build_plan(
        workspace,
        loaded.data,
        at_ms,
        host_zone=host_timezone_name(loaded.env),
        include_others=include_others,
        profile=profile,
    )
    rule = agent.workspace_rule if workspace_override is None else None
    return AgentPlan(agent.id, workspace, os.path.isdir(workspace), plan, rule)
