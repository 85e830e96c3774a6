"""Stopping a run on a signal: the `CancelToken` every worker and signal handler share, and `Cancelled`,
raised where a worker notices it. Every command that starts children (qmd, node) takes a token, so
SIGINT/SIGTERM/SIGHUP stop them all: SIGTERM to each live process group, SIGKILL to what is left after
TERM_GRACE_SECONDS.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time

TERM_GRACE_SECONDS = 1.0  # after SIGTERM on cancellation, before SIGKILL


def kill_group(pgid: int, sig: int) -> None:
    """Signal a whole process group; one that is gone (or not ours to signal) is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class Cancelled(Exception):
    """The run was interrupted (SIGINT/SIGTERM); the agent stops where it is."""

    def __init__(self, signum: int) -> None:
        super().__init__(f"interrupted by {signal.Signals(signum).name}")
        self.signum = signum


class CancelToken:
    """Shared between the workers and the signal handler: the signal received, and the live children."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._groups: set[int] = set()
        self._event = threading.Event()
        self.signum: int | None = None

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        if self.signum is not None:
            raise Cancelled(self.signum)

    def sleep(self, seconds: float) -> None:
        """Sleep, waking at once on cancellation (then raising Cancelled)."""
        self._event.wait(seconds)
        self.check()

    def cancel(self, signum: int) -> None:
        """Record the signal and stop every running child group (safe to call from a signal handler)."""
        if self.signum is None:
            self.signum = signum
        self._event.set()
        for pgid in self._snapshot():
            kill_group(pgid, signal.SIGTERM)
        # Anything still alive after the grace period gets SIGKILL (from a helper thread: a signal handler
        # must not block).
        threading.Thread(target=self._kill_stragglers, daemon=True).start()

    def _kill_stragglers(self) -> None:
        time.sleep(TERM_GRACE_SECONDS)
        for pgid in self._snapshot():
            kill_group(pgid, signal.SIGKILL)

    def _snapshot(self) -> list[int]:
        # Never block in a signal handler: if a worker holds the lock, the straggler pass catches up.
        if not self._lock.acquire(timeout=0.05):
            return []
        try:
            return list(self._groups)
        finally:
            self._lock.release()

    def register(self, pgid: int) -> None:
        with self._lock:
            self._groups.add(pgid)
        if self.cancelled:
            kill_group(pgid, signal.SIGKILL)

    def unregister(self, pgid: int) -> None:
        with self._lock:
            self._groups.discard(pgid)
