"""The qmd version for the fingerprint: `qmd --version`, asked at most once per executable per run and
cached between runs.

The cache (`<stateDir>/memwarm/qmd-versions.json`) is keyed by the executable's identity (real path, size,
mtime, inode, and those of the package.json beside it), so a reinstalled or upgraded qmd is asked again.
`--force` always asks.
"""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path

from memwarm_cli.backends import qmd_commands
from memwarm_cli.backends.fingerprint import write_json_atomically
from memwarm_cli.backends.process import CancelToken, CommandResult, resolve_executable, run_command
from memwarm_cli.backends.qmd_output import parse_version

VERSION_CACHE_NAME = "qmd-versions.json"
# `qmd --version` answers in well under a second; a qmd that hangs on it must not stall every run.
VERSION_TIMEOUT_MS = 5000
UNKNOWN_VERSION = "unknown"


def version_cache_path(state_dir: Path) -> Path:
    return state_dir / "memwarm" / VERSION_CACHE_NAME


def executable_identity(executable: str) -> str | None:
    """A string that changes when the qmd behind `executable` is reinstalled or upgraded.

    The real path of the executable with its size, mtime and inode, plus those of the `package.json`
    one or two levels up (npm's `bin/qmd`, or tools/bin/qmd next to tools/package.json).
    """
    real = os.path.realpath(executable)
    parts = []
    for candidate in (
        real,
        os.path.join(os.path.dirname(real), "..", "package.json"),
        os.path.join(os.path.dirname(real), "..", "..", "package.json"),
    ):
        try:
            st = os.stat(candidate)
        except OSError:
            continue
        parts.append(f"{os.path.normpath(candidate)}:{st.st_size}:{st.st_mtime_ns}:{st.st_ino}")
    return "|".join(parts) if parts else None


def read_version_cache(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)}


def store_version(path: Path, identity: str, version: str) -> None:
    """Record one executable's version (best effort: a cache write failure only costs a later call)."""
    entries = read_version_cache(path)
    entries.pop(identity, None)
    entries[identity] = version
    # Keep the cache small: only the most recent few executables.
    trimmed = dict(list(entries.items())[-16:])
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_json_atomically(path, trimmed)


class QmdVersions:
    """The versions of one run, shared by its agent workers (thread-safe)."""

    def __init__(self, state_dir: Path, *, force: bool, token: CancelToken) -> None:
        self.cache_path = version_cache_path(state_dir)
        self.force = force
        self.token = token
        self._versions: dict[str, str] = {}
        self._lock = threading.Lock()

    def lookup(
        self, command: str, env: Mapping[str, str], cwd: Path, timeout_ms: int
    ) -> tuple[str, CommandResult | None]:
        """The version of the qmd `command` resolves to, and the `--version` command if one ran."""
        executable = resolve_executable(command, env, cwd)
        identity = executable_identity(executable) if executable else None
        key = identity or command
        with self._lock:
            if key in self._versions:
                return self._versions[key], None
            if identity is not None and not self.force:
                cached = read_version_cache(self.cache_path).get(identity)
                if cached is not None:
                    self._versions[key] = cached
                    return cached, None
            result = run_command(
                command,
                qmd_commands.version_args(),
                env=env,
                cwd=cwd,
                timeout_ms=min(timeout_ms, VERSION_TIMEOUT_MS),
                token=self.token,
            )
            self.token.check()
            version = parse_version(result.stdout) if result.ok else UNKNOWN_VERSION
            # A qmd that ran and cannot say its version (an error exit, or no answer in the full
            # VERSION_TIMEOUT_MS) is remembered as such too: asking again would cost a cron job a process,
            # or a hang, on every run. An upgraded qmd has a new identity and is asked; so does --force.
            # Not remembered: a spawn error, or a timeout that --timeout made shorter.
            qmd_ran = result.exit_code is not None or (
                result.timed_out and result.timeout_ms == VERSION_TIMEOUT_MS
            )
            if identity is not None and qmd_ran:
                store_version(self.cache_path, identity, version)
            self._versions[key] = version
            return version, result
