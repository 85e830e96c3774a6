"""`memwarm config check` and the released `openclaw config validate` (2026.6.35) agree on each config of
tests/interop/config_variants/ (valid and invalid, JSON5): the same verdict, and every path OpenClaw
names is one memwarm reports an error at or below (6.35 names an unknown key's parent object)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TOOLS_BIN, isolated_env, run_memwarm
from tests.interop.openclaw_run import OPENCLAW_TIMEOUT_S, SYSTEM_PATH, require_openclaw

pytestmark = pytest.mark.interop

VARIANTS = sorted((Path(__file__).parent / "config_variants").glob("*.json5"))


def _openclaw_validate(config: Path, tmp_path: Path) -> dict[str, Any]:
    entry = require_openclaw()
    (tmp_path / "home").mkdir()
    env = isolated_env(
        tmp_path / "home",
        {
            "OPENCLAW_STATE_DIR": str(tmp_path / "state"),
            "OPENCLAW_CONFIG_PATH": str(config),
            "PATH": f"{TOOLS_BIN}:{SYSTEM_PATH}",
            "NO_COLOR": "1",
        },
    )
    proc = subprocess.run(
        [str(TOOLS_BIN / "node"), str(entry), "config", "validate", "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=OPENCLAW_TIMEOUT_S,
    )
    data: dict[str, Any] = json.loads(proc.stdout)
    assert (proc.returncode == 0) is bool(data["valid"]), proc.stderr
    return data


def _dotted(path: str) -> str:
    """OpenClaw's `agents.list.0.id` and memwarm's `agents.list[0].id` in one spelling; `<root>` is ''."""
    return "" if path in ("<root>", "") else path.replace("[", ".").replace("]", "")


def _covered(release_path: str, memwarm_paths: list[str]) -> bool:
    return any(
        path == release_path or path.startswith(release_path + ".") or not release_path
        for path in memwarm_paths
    )


def test_there_are_at_least_twenty_variants() -> None:
    assert len(VARIANTS) >= 20


@pytest.mark.parametrize("config", VARIANTS, ids=[path.stem for path in VARIANTS])
def test_memwarm_and_openclaw_agree(config: Path, tmp_path: Path) -> None:
    release = _openclaw_validate(config, tmp_path)
    result = run_memwarm(
        ["--config", str(config), "config", "check", "--json"], env=isolated_env(tmp_path / "home")
    )
    report = json.loads(result.stdout)
    errors = [finding for finding in report["findings"] if finding["severity"] == "error"]
    unreadable = result.returncode == 3  # no config to judge: OpenClaw too calls it invalid
    assert (not errors and not unreadable) is bool(release["valid"]), (release, report)
    memwarm_paths = [_dotted(str(finding.get("path", ""))) for finding in errors]
    for issue in release.get("issues", []):
        assert unreadable or _covered(_dotted(issue["path"]), memwarm_paths), (issue, memwarm_paths)
