"""The qmd version for the fingerprint: `qmd --version`, asked at most once per executable per run and
cached between runs.

The cache (`<stateDir>/memwarm/qmd-versions.json`) is keyed by the executable's identity (real path, size,
mtime, inode, and those of the package.json beside it), so a reinstalled or upgraded qmd is asked again.
`--force` always asks.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from memwarm_cli.backends.qmd import qmd_commands
from memwarm_cli.backends.qmd.process import CommandResult, resolve_executable, run_command
from memwarm_cli.backends.qmd.qmd_output import parse_version
from memwarm_cli.backends.state.state_files import StatePath
from memwarm_cli.backends.state.state_records import (
    InvalidStateFile,
    read_record,
    write_json_atomically,
)
from memwarm_cli.cancel import CancelToken

VERSION_CACHE_NAME = "qmd-versions.json"
# `qmd --version` answers in well under a second; a qmd that hangs on it must not stall every run.
VERSION_TIMEOUT_MS = 5000
UNKNOWN_VERSION = "unknown"
MAX_ENTRIES = 16  # the most recent executables only
VERSION_CACHE_MAX_BYTES = 256 * 1024
MAX_IDENTITY_CHARS = 16 * 1024  # real paths with sizes, mtimes and inodes: a few hundred characters
MAX_VERSION_CHARS = 1024


def version_cache_path(state_dir: Path) -> StatePath:
    return StatePath.of(state_dir, state_dir / "memwarm" / VERSION_CACHE_NAME)


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


def parse_version_cache(data: Any) -> dict[str, str]:
    """The cache's entries from its JSON (the newest MAX_ENTRIES); InvalidStateFile when it is not a
    cache memwarm would write."""
    if not isinstance(data, dict):
        raise InvalidStateFile("it is not a JSON object")
    for identity, version in data.items():
        if not isinstance(version, str) or len(identity) > MAX_IDENTITY_CHARS:
            raise InvalidStateFile("it does not map executables to versions")
        if len(version) > MAX_VERSION_CHARS:
            raise InvalidStateFile("it holds a version longer than a version can be")
    return dict(list(data.items())[-MAX_ENTRIES:])


def read_version_cache(path: StatePath, warn: Callable[[str], None] | None = None) -> dict[str, str]:
    """The cached versions; an unusable cache is reported through `warn` and read as empty."""
    entries = read_record(path, parse_version_cache, max_bytes=VERSION_CACHE_MAX_BYTES, warn=warn)
    return {} if entries is None else entries


def write_version_cache(path: StatePath, entries: Mapping[str, str]) -> None:
    """Replace the cache with the newest MAX_ENTRIES of `entries` (raises OSError)."""
    write_json_atomically(path, dict(list(entries.items())[-MAX_ENTRIES:]))


class QmdVersions:
    """The versions of one run, shared by its agent workers (thread-safe).

    The cache file is read at most once per run (so an unusable one gives one warning) and rewritten
    when a version is learnt; a cache that cannot be written costs only a later `qmd --version`.
    """

    def __init__(
        self,
        state_dir: Path,
        *,
        force: bool,
        token: CancelToken,
        warn: Callable[[str], None] = lambda message: None,
    ) -> None:
        self.cache_path = version_cache_path(state_dir)
        self.force = force
        self.token = token
        self.warn = warn
        self._versions: dict[str, str] = {}
        self._cached: dict[str, str] | None = None  # the cache file's entries, once read
        self._write_failed = False
        self._lock = threading.Lock()

    def _cache(self) -> dict[str, str]:
        if self._cached is None:
            self._cached = read_version_cache(self.cache_path, self.warn)
        return self._cached

    def _store(self, identity: str, version: str) -> None:
        entries = self._cache()
        entries.pop(identity, None)
        entries[identity] = version
        try:
            write_version_cache(self.cache_path, entries)
        except OSError as exc:
            from memwarm_cli.backends.state.state_files import describe_os_error

            if not self._write_failed:
                self._write_failed = True
                self.warn(f"cannot update the qmd version cache: {describe_os_error(exc)}")

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
                cached = self._cache().get(identity)
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
                self._store(identity, version)
            self._versions[key] = version
            return version, result


def peek_version(
    command: str,
    env: Mapping[str, str],
    cwd: Path,
    state_dir: Path,
    *,
    warn: Callable[[str], None] | None = None,
    token: CancelToken | None = None,
) -> tuple[str, str]:
    """The version init-backends would use for `command` now, and where it came from, writing nothing:
    the cached version of this executable (`cache`), else qmd's own answer (`asked`: `qmd --version`,
    not remembered), else `unknown` (`unavailable`: the command is not found or cannot start).

    For `memwarm status`, which must not write the cache: a qmd upgraded since the last run has a new
    identity, is asked, and its new version makes the agent stale, as the next run would find it."""
    executable = resolve_executable(command, env, cwd)
    if executable is None:
        return UNKNOWN_VERSION, "unavailable"
    identity = executable_identity(executable)
    if identity is not None:
        cached = read_version_cache(version_cache_path(state_dir), warn).get(identity)
        if cached is not None:
            return cached, "cache"
    result = run_command(
        command,
        qmd_commands.version_args(),
        env=env,
        cwd=cwd,
        timeout_ms=VERSION_TIMEOUT_MS,
        token=token or CancelToken(),  # cancelled by a signal: Cancelled, once qmd's group is gone
    )
    if result.spawn_error is not None:
        return UNKNOWN_VERSION, "unavailable"
    return (parse_version(result.stdout) if result.ok else UNKNOWN_VERSION), "asked"
