"""Shared test helpers and fixtures: run the installed `memwarm` CLI as a real process in an isolated
environment, an isolated home, memory notes, and line/column offsets.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

MEMWARM = str(Path(sys.executable).with_name("memwarm"))
REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED_DIR = REPO_ROOT.parent / "shared"
TOOLS_BIN = REPO_ROOT / "tools" / "bin"

# Variables that steer config discovery; the tests never inherit them from the developer's shell.
_OPENCLAW_VARS = (
    "OPENCLAW_CONFIG_PATH",
    "OPENCLAW_STATE_DIR",
    "OPENCLAW_HOME",
    "OPENCLAW_PROFILE",
    "OPENCLAW_WORKSPACE_DIR",
    "CLAWDBOT_STATE_DIR",
    "CLAWDBOT_CONFIG_PATH",
    "NO_COLOR",
)


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str
    stdout_bytes: bytes


def isolated_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _OPENCLAW_VARS}
    env["HOME"] = str(home)
    env["TZ"] = "UTC"
    env["PYTHONIOENCODING"] = "utf-8"
    if extra:
        env.update(extra)
    return env


RunCli = Callable[..., CliResult]


def run_memwarm(
    args: Sequence[str], env: Mapping[str, str], *, cwd: Path | None = None, timeout: float = 120
) -> CliResult:
    """Run the installed `memwarm ARGS...` with exactly `env`; stdin is closed."""
    proc = subprocess.run(
        [MEMWARM, *args],
        env=dict(env),
        cwd=cwd,
        capture_output=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    return CliResult(
        returncode=proc.returncode,
        stdout=proc.stdout.decode("utf-8"),
        stderr=proc.stderr.decode("utf-8", "replace"),
        stdout_bytes=proc.stdout,
    )


def write_memory_note(
    workspace: Path, name: str, data: str | bytes = "note", mtime: float | None = None
) -> Path:
    """`<workspace>/memory/<name>` with `data` (text as UTF-8), its mtime set when given."""
    path = workspace / "memory" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def offset_of(text: str, line: int, column: int) -> int:
    """The string offset of a 1-based line and column, lines split at `\n` only (as the parsers count)."""
    return sum(len(row) + 1 for row in text.split("\n")[: line - 1]) + column - 1


@pytest.fixture
def home_dir(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


@pytest.fixture
def run_cli(home_dir: Path) -> RunCli:
    """Run `memwarm ARGS...` with HOME isolated; returns exit code, decoded stdout/stderr."""

    def run(
        args: Sequence[str],
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        timeout: float = 120,
    ) -> CliResult:
        return run_memwarm(args, isolated_env(home_dir, env), cwd=cwd, timeout=timeout)

    return run
