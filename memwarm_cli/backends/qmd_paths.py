"""Where the gateway keeps an agent's qmd state, and the environment every qmd command of that agent runs
with (memory-backends.md §5.1). Paths only: nothing here touches the file system.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class AgentQmdPaths:
    """Where the gateway keeps an agent's qmd state: `<stateDir>/agents/<id>/qmd/...`."""

    qmd_dir: Path
    xdg_config: Path  # XDG_CONFIG_HOME
    xdg_cache: Path  # XDG_CACHE_HOME
    qmd_config_dir: Path  # QMD_CONFIG_DIR = <xdg-config>/qmd (holds index.yml)
    index_path: Path  # <xdg-cache>/qmd/index.sqlite
    models_dir: Path  # <xdg-cache>/qmd/models (symlinked to the shared models dir)
    sessions_dir: Path  # default session export dir

    @property
    def index_yml(self) -> Path:
        return self.qmd_config_dir / "index.yml"


def agent_qmd_paths(state_dir: Path, agent_id: str) -> AgentQmdPaths:
    qmd_dir = state_dir / "agents" / agent_id / "qmd"
    xdg_config = qmd_dir / "xdg-config"
    xdg_cache = qmd_dir / "xdg-cache"
    return AgentQmdPaths(
        qmd_dir=qmd_dir,
        xdg_config=xdg_config,
        xdg_cache=xdg_cache,
        qmd_config_dir=xdg_config / "qmd",
        index_path=xdg_cache / "qmd" / "index.sqlite",
        models_dir=xdg_cache / "qmd" / "models",
        sessions_dir=qmd_dir / "sessions",
    )


def shared_models_dir(env: Mapping[str, str]) -> Path:
    """`<defaultCache>/qmd/models`: the parent's XDG_CACHE_HOME, else `~/.cache` (the OS home)."""
    cache = env.get("XDG_CACHE_HOME") or ""
    if not cache:
        home = env.get("HOME") or os.path.expanduser("~")
        cache = os.path.join(home, ".cache")
    return Path(cache) / "qmd" / "models"


def qmd_child_env(base_env: Mapping[str, str], paths: AgentQmdPaths) -> dict[str, str]:
    """`process.env` plus XDG_CONFIG_HOME, XDG_CACHE_HOME, QMD_CONFIG_DIR (<xdg-config>/qmd), NO_COLOR=1."""
    env = dict(base_env)
    env.update(qmd_env_overrides(paths))
    return env


def qmd_env_overrides(paths: AgentQmdPaths) -> dict[str, str]:
    """Only the variables memwarm sets for qmd (what `--dry-run` shows)."""
    return {
        "XDG_CONFIG_HOME": str(paths.xdg_config),
        "XDG_CACHE_HOME": str(paths.xdg_cache),
        "QMD_CONFIG_DIR": str(paths.qmd_config_dir),
        "NO_COLOR": "1",
    }
