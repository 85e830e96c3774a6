"""Where the gateway keeps an agent's qmd state, and the environment every qmd command of that agent runs
with (memory-backends.md §5.1). Paths only: nothing here touches the file system.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from pathlib import Path

from memwarm_cli.frozen_records import record


@record
class AgentQmdPaths:
    """Where the gateway keeps an agent's qmd state: `<stateDir>/agents/<id>/qmd/...`.

    The other directories derive from `qmd_dir` when first asked for: `config check` and `config path`
    resolve every agent's settings and need few of them (10,000 agents made 120,000 Path joins).
    """

    qmd_dir: Path

    @functools.cached_property
    def xdg_config(self) -> Path:  # XDG_CONFIG_HOME
        return self.qmd_dir / "xdg-config"

    @functools.cached_property
    def xdg_cache(self) -> Path:  # XDG_CACHE_HOME
        return self.qmd_dir / "xdg-cache"

    @functools.cached_property
    def qmd_config_dir(self) -> Path:  # QMD_CONFIG_DIR = <xdg-config>/qmd (holds index.yml)
        return self.xdg_config / "qmd"

    @functools.cached_property
    def index_path(self) -> Path:  # <xdg-cache>/qmd/index.sqlite
        return self.xdg_cache / "qmd" / "index.sqlite"

    @functools.cached_property
    def models_dir(self) -> Path:  # <xdg-cache>/qmd/models (symlinked to the shared models dir)
        return self.xdg_cache / "qmd" / "models"

    @functools.cached_property
    def sessions_dir(self) -> Path:  # default session export dir
        return self.qmd_dir / "sessions"

    @property
    def index_yml(self) -> Path:
        return self.qmd_config_dir / "index.yml"

    @property
    def qmd_written_files(self) -> tuple[Path, ...]:
        """The files qmd itself writes in place: index.yml, and the index with SQLite's side files."""
        index = str(self.index_path)
        return (self.index_yml, *(Path(index + end) for end in ("", "-wal", "-shm", "-journal")))


def agent_qmd_paths(state_dir: str | os.PathLike[str], agent_id: str) -> AgentQmdPaths:
    return AgentQmdPaths(Path(state_dir, "agents", agent_id, "qmd"))


def shared_models_dir(env: Mapping[str, str]) -> Path:
    """`<defaultCache>/qmd/models`: the parent's XDG_CACHE_HOME, else `~/.cache` (the OS home)."""
    cache = env.get("XDG_CACHE_HOME") or ""
    if not cache:
        home = env.get("HOME") or _password_database_home()
        cache = os.path.join(home, ".cache")
    return Path(cache) / "qmd" / "models"


def _password_database_home() -> str:
    """os.homedir() without HOME: the password database (never os.environ, which `env` stands for)."""
    try:
        # pwd: only when HOME is unset; kept off status (test_imports)
        import pwd

        return pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError):
        return "~"  # as os.path.expanduser("~") leaves it when no home is known


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
