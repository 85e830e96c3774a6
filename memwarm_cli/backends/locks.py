"""File locks: one per agent (a second run reports the agent "busy"), one per state dir for `qmd embed`.

The embed lock serialises `qmd embed` across the agents of one state dir (one OpenClaw installation),
not machine-wide: runs against another state dir (another user, `OPENCLAW_STATE_DIR`, a profile) embed
independently.

`flock` locks belong to an open file description, so they work between threads of this process and
between processes, and the kernel drops them when the holder dies (a killed cron run leaves no stale
lock). The lock files themselves are left in place: deleting them would race with another run.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from types import TracebackType

from memwarm_cli.backends.process import CancelToken

AGENT_LOCK_NAME = "memwarm-init.lock"
EMBED_LOCK_NAME = "qmd-embed.lock"
EMBED_LOCK_POLL_SECONDS = 0.1


def agent_lock_path(qmd_dir: Path) -> Path:
    return qmd_dir / AGENT_LOCK_NAME


def embed_lock_path(state_dir: Path) -> Path:
    """Per state dir (one OpenClaw installation), not machine-wide: `<stateDir>/memwarm/qmd-embed.lock`."""
    return state_dir / "memwarm" / EMBED_LOCK_NAME


class FileLock:
    """An exclusive flock on `path` (created if missing)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None

    def try_acquire(self) -> bool:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return False
        except BaseException:
            os.close(fd)
            raise
        self._fd = fd
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        return True

    def acquire(self, token: CancelToken) -> None:
        """Wait for the lock, polling so that SIGINT/SIGTERM still stops the run (raises Cancelled)."""
        while not self.try_acquire():
            token.sleep(EMBED_LOCK_POLL_SECONDS)

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is not None:
            with contextlib.suppress(OSError):
                fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    @property
    def held(self) -> bool:
        return self._fd is not None

    def __enter__(self) -> FileLock:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()
