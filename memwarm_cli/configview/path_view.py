"""The data `config path` prints: which config file and why, the state dir, each agent's workspace and
qmd index. Plain JSON-ready dicts, no formatting here.
"""

from __future__ import annotations

from typing import Any

from memwarm_cli.agents import resolve_agents
from memwarm_cli.backends.settings.agent_backend import resolve_agent_backend
from memwarm_cli.config.loader import LoadedConfig
from memwarm_cli.config.paths import is_directory, resolve_state_dir_choice
from memwarm_cli.profiles.releases import Profile

PATH_SCHEMA_VERSION = 1  # `config path --json`


def source_data(loaded: LoadedConfig) -> dict[str, Any]:
    source = loaded.source
    return {
        "path": source.path,
        "reason": source.reason,
        "exists": source.exists,
        "explicit": source.explicit,
    }


def path_data(loaded: LoadedConfig, *, profile: Profile) -> dict[str, Any]:
    """Which config file and why, the state dir, and each agent's workspace (by `profile`'s rules) and
    qmd index path."""
    state = resolve_state_dir_choice(loaded.env)
    agents = []
    for agent in resolve_agents(loaded.data, loaded.env, profile=profile):
        settings = resolve_agent_backend(
            loaded.data, agent.id, agent.entry, agent.workspace, loaded.state_dir, loaded.env, profile=profile
        )
        disabled = settings.memory_search is None
        agents.append(
            {
                "agentId": agent.id,
                "default": agent.is_default,
                "workspace": agent.workspace,
                "workspaceExists": is_directory(agent.workspace),
                "workspaceRule": agent.workspace_rule,  # 2026.8.1+: why agents.defaults.workspace/<id>
                # As init-backends decides: memory search off, else the backend in use.
                "backend": f"none ({settings.skip_reason})" if disabled else settings.choice.backend,
                "indexPath": str(settings.paths.index_path),
            }
        )
    return {
        "schema": PATH_SCHEMA_VERSION,
        "config": source_data(loaded),
        "stateDir": {"path": loaded.state_dir, "reason": state.reason},
        "agents": agents,
    }
