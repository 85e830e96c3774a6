"""The released OpenClaw (`make interop` installs openclaw@2026.6.35 into tools/openclaw/) and memwarm run
on one state dir, with every qmd command either of them starts recorded by a logging wrapper on PATH.

`SharedState` builds the isolated world both programs see: HOME, the state dir, the config file, and a
`bin/qmd` wrapper that appends its argv (one JSON array per line) to `qmd.log`, then execs the pinned
qmd from tools/bin. OpenClaw runs on tools/bin/node (Node 22), never on the machine's node.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO_ROOT, TOOLS_BIN, CliResult, isolated_env, run_memwarm

OPENCLAW_PACKAGE = REPO_ROOT / "tools" / "openclaw" / "node_modules" / "openclaw"
OPENCLAW_VERSION = "2026.6.35"
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
# OpenClaw's CLI takes seconds to start and its memory commands open every agent's index.
OPENCLAW_TIMEOUT_S = 180


def require_openclaw() -> Path:
    """tools/openclaw's package (`make interop`); under CI a missing one is a failure, never a skip."""
    entry = OPENCLAW_PACKAGE / "openclaw.mjs"
    node = TOOLS_BIN / "node"
    if entry.is_file() and node.is_file():
        return entry
    message = f"{entry} is missing: run `make interop` (installs openclaw@{OPENCLAW_VERSION} into tools/)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


_WRAPPER = """#!/bin/sh
# Records each qmd command (memwarm's and OpenClaw's alike), then runs the pinned qmd.
python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@" >> {log}
exec {qmd} "$@"
"""


@dataclass
class SharedState:
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
    def qmd_log(self) -> Path:
        return self.root / "qmd.log"

    @property
    def bin_dir(self) -> Path:
        return self.root / "bin"

    @classmethod
    def create(cls, root: Path, config: dict[str, Any]) -> SharedState:
        shared = cls(root)
        for directory in (shared.home, shared.state_dir, shared.bin_dir):
            directory.mkdir(parents=True)
        shared.write_config(config)
        wrapper = shared.bin_dir / "qmd"
        wrapper.write_text(_WRAPPER.format(log=shlex.quote(str(shared.qmd_log)), qmd=TOOLS_BIN / "qmd"))
        wrapper.chmod(0o755)
        return shared

    def write_config(self, config: dict[str, Any]) -> None:
        self.config_path.write_text(json.dumps(config, indent=2), encoding="utf-8")

    def env(self) -> dict[str, str]:
        return isolated_env(
            self.home,
            {
                "OPENCLAW_STATE_DIR": str(self.state_dir),
                "OPENCLAW_CONFIG_PATH": str(self.config_path),
                "PATH": f"{self.bin_dir}:{TOOLS_BIN}:{SYSTEM_PATH}",
                "NO_COLOR": "1",
            },
        )

    def openclaw(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        entry = require_openclaw()
        proc = subprocess.run(
            [str(TOOLS_BIN / "node"), str(entry), *args],
            env=self.env(),
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=OPENCLAW_TIMEOUT_S,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"openclaw {' '.join(args)} exited {proc.returncode}:\n{proc.stderr[-3000:]}"
            )
        return proc

    def openclaw_json(self, *args: str) -> Any:
        proc = self.openclaw(*args)
        return json.loads(_json_part(proc.stdout))

    def memwarm(self, *args: str) -> CliResult:
        return run_memwarm(["--config", str(self.config_path), *args], env=self.env(), cwd=self.root)

    def qmd_commands(self) -> list[list[str]]:
        """Every qmd argv recorded since the last `forget_qmd_commands`, in order."""
        if not self.qmd_log.exists():
            return []
        return [json.loads(line) for line in self.qmd_log.read_text(encoding="utf-8").splitlines() if line]

    def forget_qmd_commands(self) -> None:
        self.qmd_log.unlink(missing_ok=True)


def _json_part(stdout: str) -> str:
    """OpenClaw may print a banner or notes before its JSON: the text from the first `{` or `[` line."""
    lines = stdout.splitlines()
    for index, line in enumerate(lines):
        if line.lstrip().startswith(("{", "[")):
            return "\n".join(lines[index:])
    raise AssertionError(f"no JSON in OpenClaw's output:\n{stdout[-2000:]}")


def qmd_verbs(commands: list[list[str]]) -> list[str]:
    """`collection add`, `update`, `search`, ... for each recorded command (options skipped)."""
    verbs = []
    for argv in commands:
        words = [word for word in argv if not word.startswith("-")]
        if not words:
            verbs.append(" ".join(argv) or "(no arguments)")
        elif words[0] == "collection" and len(words) > 1:
            verbs.append(f"collection {words[1]}")
        else:
            verbs.append(words[0])
    return verbs


INDEX_WORK = frozenset({"collection add", "collection remove", "update", "embed"})
