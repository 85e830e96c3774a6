"""Watching one running qmd child: its pipes read with deadlines that never wait for end-of-file.

A process that escaped the child's group (`setsid`), or one the group's kill has not reached yet, can
hold the pipes open forever. So once the child has exited, or its group was killed, what is still
buffered is read for at most PIPE_GRACE_SECONDS; then the pipes are closed and the command is over.

Each stream is held in bounded memory (`CappedOutput`), decoded as it arrives and counted as OpenClaw
counts it: runCliCommand appends each chunk to a JS string and keeps its last `MAX_OUTPUT_CHARS` UTF-16
units (`appended.slice(-max)`); going past the cap marks the stream truncated. So a child that writes
gigabytes costs at most about 200,000 characters of memory.
"""

from __future__ import annotations

import codecs
import contextlib
import os
import selectors
import signal
import time
from collections import deque
from typing import TYPE_CHECKING, Protocol

from memwarm_cli.cancel import TERM_GRACE_SECONDS, kill_group
from memwarm_cli.jsstring import js_length, js_slice

if TYPE_CHECKING:
    import subprocess

PIPE_GRACE_SECONDS = 0.25  # reading after the child exited or was killed, for output still buffered
POLL_SECONDS = 0.05  # how often a running command looks at its child and the cancellation
READ_CHUNK = 65536


class Cancellation(Protocol):
    """What the watch needs of process.CancelToken."""

    @property
    def cancelled(self) -> bool: ...


class ChildWatch:
    """Reads a running child's pipes until it is done, with deadlines that never wait for end-of-file.

    Phases: running (until the child exits, the timeout, too much output, or cancellation) → on a
    cancellation, SIGTERM then SIGKILL after TERM_GRACE_SECONDS → draining: once the child exited or
    its group was killed, what is still buffered is read for at most PIPE_GRACE_SECONDS.
    """

    def __init__(
        self, proc: subprocess.Popen[bytes], token: Cancellation, *, deadline: float, fail_on_overflow: bool
    ) -> None:
        self.proc = proc
        self.token = token
        self.deadline = deadline
        self.fail_on_overflow = fail_on_overflow
        self.stdout = CappedOutput()
        self.stderr = CappedOutput()
        self.timed_out = False
        self.too_much_output = False
        self._selector = selectors.DefaultSelector()
        for pipe, sink in ((proc.stdout, self.stdout), (proc.stderr, self.stderr)):
            if pipe is not None:
                self._selector.register(pipe.fileno(), selectors.EVENT_READ, sink)
        self._stop_reading_at: float | None = None  # set once the child is gone (exited or killed)
        self._sigkill_at: float | None = None  # set on cancellation

    def run(self) -> None:
        while True:
            now = time.monotonic()
            if self._stop_reading_at is None:
                self._check_child(now)
            if self._stop_reading_at is not None and (now >= self._stop_reading_at or not self._open):
                return
            if not self._open:
                # Pipes closed (the usual end) but the child still runs: wait for it, not for EOF.
                self._wait_child(self._next_wake(now) - now)
                continue
            for key, _ in self._selector.select(max(0.0, self._next_wake(now) - now)):
                self._read(key.fd, key.data)

    @property
    def _open(self) -> bool:
        return bool(self._selector.get_map())

    def _check_child(self, now: float) -> None:
        if self.proc.poll() is not None:
            self._stop_reading_at = now + PIPE_GRACE_SECONDS
        elif self.token.cancelled:
            if self._sigkill_at is None:
                self._sigkill_at = now + TERM_GRACE_SECONDS
                kill_group(self.proc.pid, signal.SIGTERM)
            elif now >= self._sigkill_at:
                self._kill(now)
        elif now >= self.deadline:
            self.timed_out = True
            self._kill(now)

    def _kill(self, now: float) -> None:
        kill_group(self.proc.pid, signal.SIGKILL)
        self._stop_reading_at = now + PIPE_GRACE_SECONDS

    def _next_wake(self, now: float) -> float:
        wake = now + POLL_SECONDS
        for moment in (self._stop_reading_at, self.deadline if self._stop_reading_at is None else None):
            if moment is not None:
                wake = min(wake, moment)
        return max(wake, now)

    def _wait_child(self, seconds: float) -> None:
        from subprocess import TimeoutExpired  # loaded: the child is a Popen (process.py says why here)

        with contextlib.suppress(TimeoutExpired):
            self.proc.wait(timeout=max(seconds, 0.001))

    def _read(self, fd: int, sink: CappedOutput) -> None:
        try:
            data = os.read(fd, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._selector.unregister(fd)
            sink.close()
            return
        sink.feed(data)
        if sink.overflowed and self.fail_on_overflow and not self.too_much_output:
            self.too_much_output = True
            self._kill(time.monotonic())
            self._stop_reading_at = time.monotonic()  # the content no longer matters: stop at once

    def close_pipes(self) -> None:
        self._selector.close()
        for pipe in (self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


def reap(proc: subprocess.Popen[bytes]) -> int | None:
    """The child's exit code once its group got SIGKILL; None if it cannot be reaped in time (stuck in
    the kernel), rather than waiting for it."""
    from subprocess import TimeoutExpired  # loaded: the child is a Popen (process.py says why here)

    try:
        return proc.wait(timeout=PIPE_GRACE_SECONDS)
    except TimeoutExpired:
        return None


# One output stream, in bounded memory (process.py captures stdout and stderr through it).
MAX_OUTPUT_CHARS = 200_000  # OpenClaw's MAX_QMD_OUTPUT_CHARS


class CappedOutput:
    """The last `limit` UTF-16 units of a byte stream decoded as UTF-8 (invalid bytes become U+FFFD)."""

    def __init__(self, limit: int = MAX_OUTPUT_CHARS) -> None:
        self.limit = limit
        self.overflowed = False  # more than `limit` units arrived: the head was dropped
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pieces: deque[str] = deque()
        self._units = 0  # UTF-16 units held in _pieces

    def feed(self, data: bytes) -> None:
        self._append(self._decoder.decode(data))

    def close(self) -> None:
        """End of stream: a trailing partial UTF-8 sequence becomes U+FFFD."""
        self._append(self._decoder.decode(b"", final=True))

    def text(self) -> str:
        return "".join(self._pieces)

    def _append(self, text: str) -> None:
        if not text:
            return
        self._pieces.append(text)
        self._units += js_length(text)
        if self._units <= self.limit:
            return
        self.overflowed = True
        # Drop whole pieces from the front, then cut the first one to what still fits.
        while self._units - js_length(self._pieces[0]) >= self.limit:
            self._units -= js_length(self._pieces.popleft())
        excess = self._units - self.limit
        if excess > 0:
            first = self._pieces[0]
            self._pieces[0] = js_slice(first, excess)
            self._units -= excess
