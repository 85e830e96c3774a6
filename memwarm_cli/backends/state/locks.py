"""File locks: one per agent (a second run reports the agent "busy"), one per state dir for `qmd embed`.

The embed lock serialises `qmd embed` across the agents of one state dir (one OpenClaw installation),
not machine-wide: runs against another state dir (another user, `OPENCLAW_STATE_DIR`, a profile) embed
independently.

`flock` locks belong to an open file description, so they work between threads of this process and
between processes, and the kernel drops them when the holder dies (a killed cron run leaves no stale
lock). The lock files themselves are left in place: deleting them would race with another run.

Lock files are opened through state_files (no symlink followed below the state dir): a symlink, FIFO or
device planted at a lock's name is refused, and the agent fails with the reason, rather than memwarm
writing its PID into whatever the link points to. The PID is written only into a regular file with a
single link (a hard link planted there is locked but not written).
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path

from memwarm_cli.backends.settings.qmd_paths import AgentQmdPaths
from memwarm_cli.backends.state import state_files
from memwarm_cli.backends.state.state_files import StatePath
from memwarm_cli.cancel import CancelToken
from memwarm_cli.safe_files import read_kernel_table

AGENT_LOCK_NAME = "memwarm-init.lock"
PROC_LOCKS = "/proc/locks"
EMBED_LOCK_NAME = "qmd-embed.lock"
EMBED_LOCK_POLL_SECONDS = 0.1


def agent_lock_path(state_dir: str | os.PathLike[str], qmd_dir: Path) -> StatePath:
    """`<qmdDir>/memwarm-init.lock`, the qmd dir being the agent's `<stateDir>/agents/<id>/qmd`."""
    return StatePath.of(state_dir, qmd_dir / AGENT_LOCK_NAME)


def embed_lock_path(state_dir: str | os.PathLike[str]) -> StatePath:
    """Per state dir (one OpenClaw installation), not machine-wide: `<stateDir>/memwarm/qmd-embed.lock`."""
    return StatePath.of(state_dir, Path(state_dir, "memwarm", EMBED_LOCK_NAME))


class FileLock:
    """An exclusive flock on a file below the state dir (created if missing)."""

    def __init__(self, location: StatePath) -> None:
        self.location = location
        self._fd: int | None = None

    @property
    def path(self) -> Path:
        return self.location.path

    def try_acquire(self) -> bool:
        fd = state_files.open_lock_file(self.location)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        try:  # not contextlib.suppress: contextlib costs status ~1 ms CPU
            if os.fstat(fd).st_nlink == 1:
                os.ftruncate(fd, 0)
                os.write(fd, f"{os.getpid()}\n".encode())
        except OSError:
            pass
        return True

    def acquire(self, token: CancelToken, timeout_seconds: float) -> bool:
        """Wait for the lock at most `timeout_seconds` (False: another process still holds it), polling
        so that SIGINT/SIGTERM still stops the run (raises Cancelled)."""
        deadline = time.monotonic() + timeout_seconds
        while not self.try_acquire():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            token.sleep(min(EMBED_LOCK_POLL_SECONDS, left))
        return True

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            try:  # noqa: SIM105 - not contextlib.suppress: contextlib costs status ~1 ms CPU
                fcntl.flock(fd, fcntl.LOCK_UN)
            except OSError:
                pass
            os.close(fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> FileLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def flocked_inodes(proc_locks: str = PROC_LOCKS) -> frozenset[int] | None:
    """The inodes some process holds a FLOCK lock on, from Linux's /proc/locks (None: no such file).

    A passive look: `memwarm status` learns that an init-backends run holds an agent's lock without
    taking it, even for an instant (a probe with LOCK_SH|LOCK_NB would make a run starting at that
    moment report the agent "busy"). Matched by inode alone: /proc/locks names the superblock's device,
    which on btrfs and overlayfs is not the device `stat` reports.
    """
    try:
        lines = read_kernel_table(proc_locks).splitlines()
    except OSError:
        return None
    inodes: set[int] = set()
    for line in lines:
        fields = line.split()
        # "1: FLOCK  ADVISORY  WRITE 1234 fe:00:2555905 0 EOF" ("->" marks a waiter: not a holder)
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[2] != "->":
            device_inode = fields[5].rsplit(":", 1)
            if len(device_inode) == 2 and device_inode[1].isdigit():
                inodes.add(int(device_inode[1]))
    return frozenset(inodes)


def lock_is_held(lock: StatePath, held_inodes: frozenset[int] | None) -> bool | None:
    """Whether a run holds the lock file `lock` (None: cannot tell). Never opens the file."""
    if held_inodes is None:
        return None
    try:
        info = os.lstat(lock.path)
    except OSError:
        return False  # no lock file: no run ever took it
    return info.st_ino in held_inodes


def run_refusal(state_dir: str | os.PathLike[str], paths: AgentQmdPaths, *, embeds: bool) -> OSError | None:
    """The first thing below the state dir an init-backends run of this agent would refuse before any
    qmd command (a symlinked directory, a lock that is no regular file, a link at qmd's own files), found
    read-only: status and `--dry-run` report it as the run's failure."""
    for directory in (paths.qmd_config_dir, paths.index_path.parent):
        refused = state_files.refused_below(StatePath.of(state_dir, directory), is_file=False)
        if refused is not None:
            return refused
    locks = [agent_lock_path(state_dir, paths.qmd_dir), *([embed_lock_path(state_dir)] if embeds else [])]
    for lock in locks:
        refused = state_files.refused_below(lock, is_file=True)
        if refused is not None:
            return refused
    return state_files.refused_qmd_file(paths.qmd_written_files)
