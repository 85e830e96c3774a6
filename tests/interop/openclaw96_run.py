"""The main line's released OpenClaw (`make interop` installs openclaw@2026.9.6 into tools/openclaw-2026.9.6/
and Node 24 into tools/node24/) and memwarm on one private state dir and config.

`MainLineWorld` is the world both programs see: HOME, the state dir, the config file, and a `bin/` whose
`openclaw` links to the release's `openclaw.mjs` (so memwarm's release detection finds 2026.9.6, as it
would an npm global install) with Node 24 first on PATH (the release refuses Node 22). OpenClaw never
runs on the machine's node, and nothing of it is looked up outside the world.
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT, CliResult, isolated_env, run_memwarm

OPENCLAW96_VERSION = "2026.9.6"
OPENCLAW96_PACKAGE = REPO_ROOT / "tools" / f"openclaw-{OPENCLAW96_VERSION}" / "node_modules" / "openclaw"
NODE24_BIN = REPO_ROOT / "tools" / "node24" / "node_modules" / ".bin"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
# CLI start-up alone costs 4-7 CPU s; a cold `memory index` of a few notes ~30 s on a loaded machine.
OPENCLAW96_TIMEOUT_S = 600
KEYWORD_ONLY = {"provider": "none"}  # FTS-only builds: no embedding provider, nothing leaves the machine


def require_openclaw96() -> Path:
    """The release's entry (`make interop`); under CI a missing one is a failure, never a skip."""
    entry = OPENCLAW96_PACKAGE / "openclaw.mjs"
    if entry.is_file() and (NODE24_BIN / "node").exists():
        return entry
    message = f"{entry} is missing: run `make interop` (installs node@24 and openclaw@{OPENCLAW96_VERSION})"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def main_line_config(
    workspaces: dict[str, Path], search: dict[str, Any] | None = None, **extra: Any
) -> dict[str, Any]:
    """A config in 2026.9.6's own shape: `agents.entries` keyed by id, `memory.search` at the top, and
    `agents.ownership: "explicit"` (2026.8.1+ refuse a roster of several agents without it, or a legacy
    `default: true` marker, as an invalid config)."""
    config: dict[str, Any] = {
        "agents": {
            "entries": {agent: {"workspace": str(path)} for agent, path in workspaces.items()},
            "ownership": "explicit",
        },
        **extra,
    }
    if search is not None:
        config["memory"] = {"search": search}
    return config


@dataclass
class MainLineWorld:
    root: Path

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def state_dir(self) -> Path:
        return self.root / "state"

    @property
    def config_path(self) -> Path:
        return self.root / "openclaw.json"

    @property
    def bin_dir(self) -> Path:
        return self.root / "bin"

    @classmethod
    def create(cls, root: Path, config: dict[str, Any]) -> MainLineWorld:
        entry = require_openclaw96()
        world = cls(root)
        for directory in (world.home, world.state_dir, world.bin_dir):
            directory.mkdir(parents=True, exist_ok=True)
        (world.bin_dir / "openclaw").symlink_to(entry)
        world.write_config(config)
        return world

    def write_config(self, config: dict[str, Any]) -> None:
        self.config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")

    def index_db(self, agent: str) -> Path:
        return self.state_dir / "agents" / agent / "agent" / "openclaw-agent.sqlite"

    def env(self) -> dict[str, str]:
        return isolated_env(
            self.home,
            {
                "OPENCLAW_STATE_DIR": str(self.state_dir),
                "OPENCLAW_CONFIG_PATH": str(self.config_path),
                "PATH": f"{self.bin_dir}:{NODE24_BIN}:{SYSTEM_PATH}",
                "NO_COLOR": "1",
            },
        )

    def openclaw(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        """The release's CLI on Node 24 (`openclaw <args>` as a user's shell would start it)."""
        proc = subprocess.run(
            [str(NODE24_BIN / "node"), str(require_openclaw96()), *args],
            env=self.env(),
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=OPENCLAW96_TIMEOUT_S,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"openclaw {' '.join(args)} exited {proc.returncode}:\n"
                f"{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
            )
        return proc

    def openclaw_json(self, *args: str) -> Any:
        return json.loads(json_part(self.openclaw(*args).stdout))

    def memory_status(self) -> dict[str, dict[str, Any]]:
        """`openclaw memory status --json` per agent id: its `status` object."""
        return {
            entry["agentId"]: entry["status"] for entry in self.openclaw_json("memory", "status", "--json")
        }

    def memwarm(self, *args: str, timeout: float = 120) -> CliResult:
        return run_memwarm(
            ["--config", str(self.config_path), *args], env=self.env(), cwd=self.root, timeout=timeout
        )

    def memwarm_json(self, *args: str, timeout: float = 120) -> Any:
        result = self.memwarm(*args, "--json", timeout=timeout)
        assert result.stdout, result.stderr
        return json.loads(result.stdout)


def json_part(stdout: str) -> str:
    """OpenClaw may print notes before its JSON: the text from the first line starting with `{` or `[`."""
    lines = stdout.splitlines()
    for index, line in enumerate(lines):
        if line.lstrip().startswith(("{", "[")):
            return "\n".join(lines[index:])
    raise AssertionError(f"no JSON in OpenClaw's output:\n{stdout[-2000:]}")


def write_notes(workspace: Path, notes: dict[str, str]) -> None:
    for relative, text in notes.items():
        path = workspace / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def snapshot_files(root: Path) -> dict[str, tuple[str, int, int]]:
    """Every file under `root`: (sha256, st_mtime_ns, size), by its path relative to `root`."""
    import hashlib

    snapshot = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.is_symlink():
            info = path.stat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest()
            snapshot[str(path.relative_to(root))] = (digest, info.st_mtime_ns, info.st_size)
    return snapshot
