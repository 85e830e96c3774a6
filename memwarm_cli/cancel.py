"""Stopping a run on a signal: the `CancelToken` every worker and signal handler share, and `Cancelled`,
raised where a worker notices it. Every command that starts children (qmd, node) takes a token, so
SIGINT/SIGTERM/SIGHUP stop them all: SIGTERM to each live process group, SIGKILL to what is left after
TERM_GRACE_SECONDS.
"""

from __future__ import annotations

import os
import time

# The C modules under `signal` and `threading`: `signal` builds its enums (Signals, Handlers, Sigmasks) at
# import and `threading` its classes, ~1 ms CPU together of every `status`, which starts no thread and,
# unless a signal comes, names none (cli/console.py does the same for SIGINT).
from _signal import SIGKILL, SIGTERM  # type: ignore[import-not-found]
from _thread import allocate_lock, start_new_thread

TERM_GRACE_SECONDS = 1.0  # after SIGTERM on cancellation, before SIGKILL


def kill_group(pgid: int, sig: int) -> None:
    """Signal a whole process group; one that is gone (or not ours to signal) is fine."""
    try:  # noqa: SIM105 - not contextlib.suppress: contextlib costs status ~1 ms CPU
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


class Cancelled(Exception):
    """The run was interrupted (SIGINT/SIGTERM); the agent stops where it is."""

    def __init__(self, signum: int) -> None:
        import signal  # its enums: only to name a signal that came

        super().__init__(f"interrupted by {signal.Signals(signum).name}")
        self.signum = signum


class CancelToken:
    """Shared between the workers and the signal handler: the signal received, and the live children."""

    def __init__(self) -> None:
        self._lock = allocate_lock()
        self._groups: set[int] = set()
        # threading.Event's part, on a plain lock: held until cancel() releases it; a sleeper that gets
        # it gives it straight back, so every sleeper wakes.
        self._wake = allocate_lock()
        self._wake.acquire()
        self.signum: int | None = None

    @property
    def cancelled(self) -> bool:
        return self.signum is not None

    def check(self) -> None:
        if self.signum is not None:
            raise Cancelled(self.signum)

    def sleep(self, seconds: float) -> None:
        """Sleep, waking at once on cancellation (then raising Cancelled)."""
        if self._wake.acquire(timeout=max(seconds, 0)):
            self._wake.release()
        self.check()

    def cancel(self, signum: int) -> None:
        """Record the signal and stop every running child group (safe to call from a signal handler)."""
        if self.signum is None:
            self.signum = signum
        try:  # noqa: SIM105 - not contextlib.suppress: contextlib costs status ~1 ms CPU
            self._wake.release()
        except RuntimeError:  # released already: a second signal
            pass
        for pgid in self._snapshot():
            kill_group(pgid, SIGTERM)
        # Anything still alive after the grace period gets SIGKILL (from a helper thread, which the
        # process does not wait for at exit: a signal handler must not block).
        start_new_thread(self._kill_stragglers, ())

    def _kill_stragglers(self) -> None:
        time.sleep(TERM_GRACE_SECONDS)
        for pgid in self._snapshot():
            kill_group(pgid, SIGKILL)

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
            kill_group(pgid, SIGKILL)

    def unregister(self, pgid: int) -> None:
        with self._lock:
            self._groups.discard(pgid)
