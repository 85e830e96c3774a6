"""The memory backend picture of one agent: memory search (§3), backend choice, qmd settings (§4) and the
per-agent qmd paths (§5.1), resolved together for `init-backends`, `config show` and `config check`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memwarm_cli.backends.settings.backend_choice import BackendChoice, agent_label, resolve_backend_choice
from memwarm_cli.backends.settings.memory_search import MemorySearchSettings, resolve_memory_search
from memwarm_cli.backends.settings.qmd_paths import AgentQmdPaths, agent_qmd_paths
from memwarm_cli.backends.settings.qmd_settings import QmdSettings, resolve_qmd_settings
from memwarm_cli.backends.settings.setting_use import ConfiguredSetting, configured_settings
from memwarm_cli.config.lookup import lookup
from memwarm_cli.frozen_records import record

if TYPE_CHECKING:
    from memwarm_cli.agents import Agent
    from memwarm_cli.config import LoadedConfig


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

    @property
    def gateway_updates_on_boot(self) -> bool:
        """`update.onBoot` (default true): false means the gateway leaves the index alone at boot."""
        return self.qmd is None or self.qmd.update.on_boot

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
    workspace: Path,
    state_dir: Path,
    env: Mapping[str, str],
) -> AgentBackendSettings:
    """§3 + §4 + §5.1 for one agent (`entry` is its agents.list object, None when it has none)."""
    memory_search = resolve_memory_search(cfg, agent_id, entry, state_dir, env)
    choice = resolve_backend_choice(cfg, entry)
    qmd: QmdSettings | None = None
    if memory_search is not None and choice.backend == "qmd":
        qmd = resolve_qmd_settings(choice, agent_id, workspace, memory_search.extra_paths, state_dir, env)
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
        configured=configured_settings(
            choice.qmd_block,
            choice.qmd_source,
            tuple((block, path) for block, path in search_blocks if isinstance(block, Mapping)),
        ),
    )


def select_agents(loaded: LoadedConfig, requested: Sequence[str]) -> list[Agent]:
    """Every agent in config order, or the requested ones (unknown ids raise UnknownAgentError)."""
    from memwarm_cli.agents import resolve_agents, select_agent

    everyone = resolve_agents(loaded.data, loaded.env)
    if not requested:
        return everyone
    wanted = {select_agent(loaded.data, loaded.env, raw).id for raw in requested}
    return [agent for agent in everyone if agent.id in wanted]
