"""The data `config show` prints: the effective settings per agent. Plain JSON-ready dicts, no
formatting here.
"""

from __future__ import annotations

from typing import Any

from memwarm_cli.agents import Agent, resolve_agents, select_agent
from memwarm_cli.backends.settings.agent_backend import resolve_agent_backend
from memwarm_cli.config.loader import LoadedConfig
from memwarm_cli.config.paths import is_directory
from memwarm_cli.configview.credentials import mask_show_data
from memwarm_cli.configview.path_view import source_data
from memwarm_cli.profiles.releases import Profile
from memwarm_cli.startup.prelude_settings import (
    host_timezone_name,
    jsonable,
    resolve_startup_settings,
    should_apply_startup_context,
)


def _agent_show(
    loaded: LoadedConfig, agent: Agent, host_zone: str | None, profile: Profile
) -> dict[str, Any]:
    data = loaded.data
    startup = resolve_startup_settings(
        data, host_zone if host_zone is not None else host_timezone_name(loaded.env)
    )
    zone = startup.timezone
    gates = {action: should_apply_startup_context(data, action) for action in ("new", "reset")}
    limits = {
        limit.name: {
            "value": limit.value,
            "source": limit.source,
            "configured": jsonable(limit.configured),
            "note": limit.note,
        }
        for limit in startup.limits
    }
    backend = resolve_agent_backend(
        data, agent.id, agent.entry, agent.workspace, loaded.state_dir, loaded.env, profile=profile
    )
    search = backend.memory_search
    memory_search: dict[str, Any] | None = None
    if search is not None:
        memory_search = {
            "enabled": search.enabled,
            "sources": list(search.sources),
            "extraPaths": list(search.extra_paths),
            "provider": search.provider,
            "fallback": search.fallback,
            "model": search.model,
            "storePath": str(search.store_path),
            "chunking": {"tokens": search.chunk_tokens, "overlap": search.chunk_overlap},
            "query": {"maxResults": search.max_results, "minScore": search.min_score},
            "sessionMemory": search.session_memory,
        }
    choice = backend.choice
    qmd: dict[str, Any] | None = None
    if backend.qmd is not None:
        qmd = backend.qmd.as_dict()
        qmd["commandConfigured"] = backend.qmd.command_raw
        qmd["skippedPaths"] = list(backend.qmd.skipped_paths)
    paths = backend.paths
    return {
        "agentId": agent.id,
        "default": agent.is_default,
        "workspace": agent.workspace,
        "workspaceExists": is_directory(agent.workspace),
        "workspaceRule": agent.workspace_rule,  # 2026.8.1+: why agents.defaults.workspace/<id>
        "timezone": {
            "configured": jsonable(zone.configured),
            "used": zone.used,
            "fellBack": zone.fell_back,
            "reason": zone.reason,
        },
        "startupContext": {
            "applies": {action: gate.applied for action, gate in gates.items()},
            "reasons": {action: gate.reason for action, gate in gates.items()},
            "limits": limits,
        },
        "memorySearch": memory_search,
        "backend": {
            "backend": choice.backend if search is not None else None,
            "configured": jsonable(choice.configured),
            "source": choice.backend_source,
            "qmdSource": choice.qmd_source,
            "citations": choice.citations,
            "usesUpstreamSpelling": choice.uses_upstream_spelling,
        },
        "qmd": qmd,
        # Every memory.qmd / memorySearch key this agent's config sets, and what memwarm does with it
        # (the keys it does not set are the same for every config: docs/init-backends.md, not repeated).
        "configuredSettings": [setting.to_json() for setting in backend.configured],
        # What OpenClaw 2026.6.35's gateway does with this agent's index: qmd work at boot (only with
        # memory.qmd.update.startup idle or immediate, for eligible agents), an update at boot, and an
        # update when the first memory use opens its qmd manager (update.onBoot).
        "gatewayBootWork": backend.gateway_boot_work if backend.qmd is not None else None,
        "gatewayUpdatesOnBoot": backend.gateway_updates_on_boot if backend.qmd is not None else None,
        "gatewayUpdatesAtFirstUse": backend.gateway_updates_at_first_use if backend.qmd is not None else None,
        "bootEligible": backend.boot_eligible if backend.qmd is not None else None,
        "qmdPaths": {
            "qmdDir": str(paths.qmd_dir),
            "indexPath": str(paths.index_path),
            "indexYml": str(paths.index_yml),
        },
    }


# `config show` (JSON, YAML and TOML alike). 2: no `settingsUse` (the use of every key, set or not: the
# same 83 lines in every config's output; each agent's `configuredSettings` keeps the keys it sets).
SHOW_SCHEMA_VERSION = 2


def show_data(
    loaded: LoadedConfig, *, agent_id: str | None, profile: Profile, host_zone: str | None = None
) -> dict[str, Any]:
    """The effective settings per agent by `profile`'s rules (one agent with `agent_id`;
    UnknownAgentError if unknown), every credential-like value hidden."""
    if agent_id is not None:
        agents = [select_agent(loaded.data, loaded.env, agent_id, profile=profile)]
    else:
        agents = resolve_agents(loaded.data, loaded.env, profile=profile)
    shown = {
        "schema": SHOW_SCHEMA_VERSION,
        "config": source_data(loaded),
        "stateDir": loaded.state_dir,
        "agents": [_agent_show(loaded, agent, host_zone, profile) for agent in agents],
    }
    # Credentials hidden once, here, for every format (credentials.py): output like this is pasted.
    return mask_show_data(shown, loaded.unsubstituted, loaded.data)


def drop_nulls(value: Any) -> Any:
    """The same data without nulls (TOML has none): null object keys and null array items are left out."""
    if isinstance(value, dict):
        return {k: drop_nulls(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [drop_nulls(v) for v in value if v is not None]
    return value
