"""The memory backend picture of one agent: memory search (§3), backend choice, qmd settings (§4) and the
per-agent qmd paths (§5.1), resolved together for `init-backends`, `config show` and `config check`; and
what OpenClaw 2026.6.35's gateway does with the agent's index at boot and at first use (research
backend-635.md §4).
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from memwarm_cli.agents import (
    list_agent_entries,
    list_agent_ids,
    normalize_agent_id,
    resolve_agents,
    resolve_default_agent_id,
    select_agent,
)
from memwarm_cli.backends.settings.backend_choice import BackendChoice, agent_label, resolve_backend_choice
from memwarm_cli.backends.settings.memory_search import (
    MemorySearchSettings,
    extra_collection_sources,
    extra_path_sources,
    release_search_enabled,
    resolve_memory_search,
)
from memwarm_cli.backends.settings.qmd_paths import AgentQmdPaths, agent_qmd_paths
from memwarm_cli.backends.settings.qmd_settings import QmdSettings, resolve_qmd_settings
from memwarm_cli.backends.settings.setting_use import ConfiguredSetting, configured_settings
from memwarm_cli.config.lookup import lookup
from memwarm_cli.frozen_records import record

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memwarm_cli.agents import Agent
    from memwarm_cli.config import LoadedConfig
    from memwarm_cli.profiles.releases import Profile


@record
class AgentBackendSettings:
    """The memory backend picture of one agent, as `init-backends` and `config show` need it.

    `memory_search` is None when memory search is disabled; `qmd` is None unless the backend is qmd and
    memory search is enabled. `paths` is always filled in (where the qmd index would live).
    """

    agent_id: str
    workspace: Path
    memory_search: MemorySearchSettings | None
    choice: BackendChoice
    qmd: QmdSettings | None
    paths: AgentQmdPaths
    configured: tuple[ConfiguredSetting, ...] = ()  # its memory.qmd / memorySearch keys (setting_use.py)
    # The gateway starts this agent's qmd manager at boot (`startGatewayMemoryBackend`): it is the only
    # agent, the default one, agents.defaults.memorySearch.enabled is true, or its entry has memorySearch.
    boot_eligible: bool = True

    @property
    def gateway_boot_work(self) -> bool:
        """6.35's gateway runs qmd for this agent at boot: a qmd agent, `update.startup` not "off" (the
        default is "off"), something to do (onBoot, or an update or embed interval), and eligible."""
        qmd = self.qmd
        if qmd is None:
            return False
        update = qmd.update
        busy = update.on_boot or update.interval_ms > 0 or update.embed_interval_ms > 0
        return update.startup != "off" and busy and self.boot_eligible

    @property
    def gateway_updates_on_boot(self) -> bool:
        """6.35's gateway runs `qmd update` for this agent at boot (`update.startup` idle or immediate,
        with `update.onBoot`); with the default `startup: "off"` it runs no qmd at boot at all."""
        return self.gateway_boot_work and self.qmd is not None and self.qmd.update.on_boot

    @property
    def gateway_updates_at_first_use(self) -> bool:
        """The first memory search (or status --index) opens a full manager, which updates the index in the
        background unless `update.onBoot` is false."""
        return self.qmd is not None and self.qmd.update.on_boot

    @property
    def settings_differing_from_gateway(self) -> tuple[ConfiguredSetting, ...]:
        return tuple(setting for setting in self.configured if setting.differs_from_gateway)

    @property
    def skip_reason(self) -> str | None:
        """Why init-backends leaves this agent alone, or None when it is a qmd agent to prepare."""
        if self.memory_search is None:
            return "memory search disabled"
        if self.qmd is None:
            return "builtin"
        return None


def resolve_agent_backend(
    cfg: Mapping[str, Any],
    agent_id: str,
    entry: Mapping[str, Any] | None,
    workspace_dir: str | os.PathLike[str],
    state_path: str | os.PathLike[str],
    env: Mapping[str, str],
    *,
    profile: Profile,
) -> AgentBackendSettings:
    """§3 + §4 + §5.1 for one agent (`entry` is its roster entry, None when it has none); `profile`'s
    roster rules say which agent is the default one (the gateway's boot eligibility)."""
    # The config layer keeps paths as str (memwarm_cli/os_paths.py); the backends' records as Path.
    workspace, state_dir = Path(workspace_dir), Path(state_path)
    memory_search = resolve_memory_search(cfg, agent_id, entry, state_dir, env)
    if not profile.qmd_available and not release_search_enabled(cfg, entry, profile=profile):
        # 2026.8.1+ reads `enabled` from memory.search and agents.entries.<id>.memory.search, which the
        # 6.35 reader above does not look at: `config path` and `config show` said "builtin" there.
        memory_search = None
    choice = resolve_backend_choice(cfg)
    qmd: QmdSettings | None = None
    if memory_search is not None and choice.backend == "qmd":
        qmd = resolve_qmd_settings(
            choice,
            agent_id,
            workspace,
            extra_path_sources(cfg, entry),
            state_dir,
            env,
            extra_collection_sources(cfg, entry),
        )
    label = agent_label(cfg, entry)
    search_blocks = (
        (lookup(entry, "memorySearch") if entry is not None else None, f"{label}.memorySearch"),
        (lookup(cfg, "agents", "defaults", "memorySearch"), "agents.defaults.memorySearch"),
    )
    return AgentBackendSettings(
        agent_id=agent_id,
        workspace=workspace,
        memory_search=memory_search,
        choice=choice,
        qmd=qmd,
        paths=agent_qmd_paths(state_dir, agent_id),
        boot_eligible=boot_eligible(cfg, agent_id, entry, profile=profile),
        configured=configured_settings(
            choice.qmd_block,
            choice.qmd_source,
            tuple((block, path) for block, path in search_blocks if isinstance(block, Mapping)),
        ),
    )


def boot_eligible(
    cfg: Mapping[str, Any], agent_id: str, entry: Mapping[str, Any] | None, *, profile: Profile
) -> bool:
    """Whether 6.35's gateway starts this agent's memory at boot rather than deferring it
    (`shouldEagerlyStartAgentMemory`): the only agent, the default agent, every agent when
    `agents.defaults.memorySearch.enabled` is true, or an agent whose list entry sets `memorySearch`."""
    count, explicit, default_id = _boot_facts(cfg, profile)
    if count <= 1 or agent_id == default_id:
        return True
    if lookup(cfg, "agents", "defaults", "memorySearch", "enabled") is True:
        return True
    return agent_id in explicit


# The last config's (agent count, ids whose entry sets memorySearch, default id), keyed by its
# agents.list object and the profile: asked for every agent, computed once per list (10,000 agents,
# one pass).
_boot_memo: list[tuple[object, int, Profile, tuple[int, frozenset[str], str]]] = []


def _boot_facts(cfg: Mapping[str, Any], profile: Profile) -> tuple[int, frozenset[str], str]:
    raw_list = lookup(cfg, "agents", "list")
    key: object = raw_list if isinstance(raw_list, list) else None
    size = len(raw_list) if isinstance(raw_list, list) else 0
    if _boot_memo and key is not None:
        memo_key, memo_size, memo_profile, memo_facts = _boot_memo[0]
        if memo_key is key and memo_size == size and memo_profile is profile:
            return memo_facts
    entries = list_agent_entries(cfg, profile=profile)
    explicit = frozenset(
        normalize_agent_id(e.get("id")) for e in entries if e.get("memorySearch") is not None
    )
    facts = (
        len(list_agent_ids(cfg, profile=profile)),
        explicit,
        resolve_default_agent_id(cfg, profile=profile),
    )
    _boot_memo[:] = [(key, size, profile, facts)]
    return facts


def select_agents(loaded: LoadedConfig, requested: Sequence[str], *, profile: Profile) -> list[Agent]:
    """Every agent in config order, or the requested ones (unknown ids raise UnknownAgentError)."""
    everyone = resolve_agents(loaded.data, loaded.env, profile=profile)
    if not requested:
        return everyone
    wanted = {select_agent(loaded.data, loaded.env, raw, profile=profile).id for raw in requested}
    return [agent for agent in everyone if agent.id in wanted]
