"""The qmd version: `qmd --version`, asked at most once per executable per run and cached between runs
(init-backends), or peeked without writing (status).

The cache (`<stateDir>/memwarm/qmd-versions.json`) is keyed by the executable's identity (real path, size,
mtime, inode, and those of the package.json beside it), so a reinstalled or upgraded qmd is asked again.
`--force` always asks.
"""

from __future__ import annotations

import os
from _thread import allocate_lock
from pathlib import Path

from memwarm_cli.backends.qmd.qmd_diagnosis import installed_version, resolve_executable, version_problem
from memwarm_cli.backends.state.state_files import StatePath, describe_os_error
from memwarm_cli.backends.state.state_records import (
    InvalidStateFile,
    read_record,
    write_json_atomically,
)
from memwarm_cli.cancel import CancelToken
from memwarm_cli.frozen_records import record

# typing, at ~4 ms CPU, is imported by no module on `status`'s path (mypy reads this as typing's)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any

    from memwarm_cli.backends.qmd.process import CommandResult

VERSION_CACHE_NAME = "qmd-versions.json"
# `qmd --version` answers in well under a second; a qmd that hangs on it must not stall every run.
VERSION_TIMEOUT_MS = 5000
UNKNOWN_VERSION = "unknown"
MAX_ENTRIES = 16  # the most recent executables only
VERSION_CACHE_MAX_BYTES = 256 * 1024
MAX_IDENTITY_CHARS = 16 * 1024  # real paths with sizes, mtimes and inodes: a few hundred characters
MAX_VERSION_CHARS = 1024


def version_cache_path(state_dir: str | os.PathLike[str]) -> StatePath:
    return StatePath.of(state_dir, Path(state_dir, "memwarm", VERSION_CACHE_NAME))


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
        state_dir: str | os.PathLike[str],
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
        self._lock = allocate_lock()  # threading.Lock: `_thread`'s, without importing threading

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
            # process (with child_watch, selectors), qmd_commands and qmd_output: only when qmd is asked
            from memwarm_cli.backends.qmd import process, qmd_commands, qmd_output

            result = process.run_command(
                command,
                qmd_commands.version_args(),
                env=env,
                cwd=cwd,
                timeout_ms=min(timeout_ms, VERSION_TIMEOUT_MS),
                token=self.token,
            )
            self.token.check()
            version = qmd_output.parse_version(result.stdout) if result.ok else UNKNOWN_VERSION
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


# The variables that differ from one agent's qmd env to the next (qmd_paths.qmd_child_env): they say where
# qmd keeps its index, nothing `qmd --version` answers from.
AGENT_ENV = frozenset({"XDG_CONFIG_HOME", "XDG_CACHE_HOME", "QMD_CONFIG_DIR"})


@record
class PeekedVersion:
    version: str
    source: str  # cache, asked, unavailable
    problem: str | None = None  # a qmd too old for memwarm (qmd_diagnosis.version_problem)


class VersionPeeker:
    """The versions `memwarm status` shows, writing nothing: the version cache file read once per run,
    and `qmd --version` asked at most once per distinct qmd (its resolved executable and identity, and
    the env less the agent's own qmd dirs), however many agents share it: 10,000 agents of one qmd used
    to spawn it 10,000 times."""

    def __init__(
        self,
        state_dir: str | os.PathLike[str],
        *,
        warn: Callable[[str], None] | None = None,
        token: CancelToken | None = None,
    ) -> None:
        self.state_dir = state_dir
        self.warn = warn
        self.token = token or CancelToken()
        self._cache: dict[str, str] | None = None
        self._seen: dict[tuple[Any, ...], PeekedVersion] = {}
        self.asked = 0  # `qmd --version` commands run

    def _cached(self) -> dict[str, str]:
        if self._cache is None:
            self._cache = read_version_cache(version_cache_path(self.state_dir), self.warn)
        return self._cache

    def peek(self, command: str, env: Mapping[str, str], cwd: Path) -> PeekedVersion:
        """The version init-backends would use for `command` now, and where it came from: the cached
        version of this executable (`cache`), else qmd's own answer (`asked`: `qmd --version`, not
        remembered on disk), else `unknown` (`unavailable`: not found or cannot start). A qmd upgraded
        since the last run has a new identity and is asked."""
        executable = resolve_executable(command, env, cwd)
        if executable is None:
            return PeekedVersion(UNKNOWN_VERSION, "unavailable")
        identity = executable_identity(executable)
        key = (executable, identity, tuple(sorted((k, v) for k, v in env.items() if k not in AGENT_ENV)))
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = self._peek(command, executable, identity, env, cwd)
        return found

    def _peek(
        self, command: str, executable: str, identity: str | None, env: Mapping[str, str], cwd: Path
    ) -> PeekedVersion:
        if identity is not None:
            cached = self._cached().get(identity)
            if cached is not None:
                return PeekedVersion(cached, "cache", version_problem(command, cached))
        self.asked += 1
        # Asked only when the cache does not know this qmd: process (with child_watch and selectors),
        # qmd_commands and qmd_output (its regexes) cost ~1.6 ms CPU of a status that reads the cache.
        from memwarm_cli.backends.qmd import process, qmd_commands, qmd_output

        result = process.run_command(
            command,
            qmd_commands.version_args(),
            env=env,
            cwd=cwd,
            timeout_ms=VERSION_TIMEOUT_MS,
            token=self.token,  # cancelled by a signal: Cancelled, once qmd's group is gone
        )
        if result.spawn_error is not None:
            return PeekedVersion(UNKNOWN_VERSION, "unavailable")
        if result.ok:
            version = qmd_output.parse_version(result.stdout)
            return PeekedVersion(version, "asked", version_problem(command, version))
        problem = version_problem(command, None, result.stderr + result.stdout) or version_problem(
            command, installed_version(executable)
        )
        return PeekedVersion(UNKNOWN_VERSION, "asked", problem)
