"""Per-agent qmd directories and the child env (memory-backends.md §5.1)."""

from __future__ import annotations

from pathlib import Path

from memwarm_cli.backends.settings.qmd_paths import agent_qmd_paths, qmd_child_env
from tests.backends.support import STATE


def test_paths_and_env() -> None:
    paths = agent_qmd_paths(STATE, "ops")
    assert paths.index_path == Path("/state/agents/ops/qmd/xdg-cache/qmd/index.sqlite")
    assert paths.index_yml == Path("/state/agents/ops/qmd/xdg-config/qmd/index.yml")
    env = qmd_child_env({"PATH": "/bin", "NO_COLOR": ""}, paths)
    assert env["XDG_CONFIG_HOME"] == "/state/agents/ops/qmd/xdg-config"
    assert env["XDG_CACHE_HOME"] == "/state/agents/ops/qmd/xdg-cache"
    assert env["QMD_CONFIG_DIR"] == "/state/agents/ops/qmd/xdg-config/qmd"
    assert env["NO_COLOR"] == "1"
    assert env["PATH"] == "/bin"
