"""What one run of memwarm reads from its process: the standard streams and the environment.

The console script passes the real ones (cli/main.py `main`); tests and embedders pass their own to
`cli.main.run`, and an in-process run then behaves as a `memwarm` process given the same streams and
environment would. Nothing in the CLI layer reads sys.stdout, sys.stderr or os.environ directly: they
ask `current()`. The active invocation is a plain module global, not a ContextVar, because
init-backends writes from worker threads, which a ContextVar would not reach.

The config a command works on is loaded from this environment too (cli/terminal/command_config.py).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TextIO


class Invocation:
    """One run's streams (None: the fd was closed when the process started, `memwarm ... >&-`) and
    environment. A plain class: a dataclass costs its generated code at every start of the fast path."""

    __slots__ = (
        "env",
        "stderr",
        "stderr_failed",
        "stdin",
        "stdout",
        "stdout_failed",
    )

    def __init__(
        self,
        stdout: TextIO | None,
        stderr: TextIO | None,
        env: Mapping[str, str],
        stdin: TextIO | None = None,
    ) -> None:
        self.stdout = stdout
        self.stderr = stderr
        self.env = node_environment(env)
        self.stdin = stdin
        # Set once a write failed; nothing more is written there, and the console script points the fd
        # at /dev/null so that Python's flush at exit cannot fail again (an extra message, exit 120).
        self.stdout_failed = False
        self.stderr_failed = False


_active: Invocation | None = None


def node_environment(env: Mapping[str, str]) -> Mapping[str, str]:
    """The environment as Node's `process.env` holds it, which is what OpenClaw and qmd (Node programs)
    resolve their paths from: bytes that are not UTF-8, which Python keeps as surrogate escapes, read as
    U+FFFD. A state dir or HOME holding such a byte then names the directory qmd really writes to, not
    one beside it. `env` itself when it is all UTF-8 (nearly always: checked without a copy)."""
    try:
        for key, value in env.items():
            key.encode()
            value.encode()
    except UnicodeEncodeError:
        return {_node_text(key): _node_text(value) for key, value in env.items()}
    return env


def _node_text(text: str) -> str:
    # A surrogate that is no escaped byte (an in-process caller's str) is U+FFFD as Node writes it; the
    # escaped bytes go back to bytes, decoded as Node decodes (one U+FFFD per maximal invalid sequence).
    text = re.sub("[\ud800-\udc7f\udd00-\udfff]", "\ufffd", text)
    return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def process_invocation() -> Invocation:
    """The real process's streams and environment."""
    return Invocation(stdout=sys.stdout, stderr=sys.stderr, env=os.environ, stdin=sys.stdin)


def current() -> Invocation:
    """The invocation being run; outside `active` (a core test calling a CLI helper) the process's own."""
    return _active if _active is not None else process_invocation()


class active:  # named as the @contextmanager function it replaces
    """`with active(invocation):` makes it the current one, and the one before current again after.

    A class, not a @contextmanager function: contextlib cost every start ~0.5 ms (the prelude's too)."""

    __slots__ = ("invocation", "previous")

    def __init__(self, invocation: Invocation) -> None:
        self.invocation = invocation
        self.previous: Invocation | None = None

    def __enter__(self) -> Invocation:
        global _active
        self.previous, _active = _active, self.invocation
        return self.invocation

    def __exit__(self, *_exc_info: object) -> None:
        global _active
        _active = self.previous


def is_terminal(stream: TextIO | None) -> bool:
    if stream is None:
        return False
    try:
        return stream.isatty()
    except (OSError, ValueError):  # closed, or no such operation
        return False


def terminal_size(invocation: Invocation) -> tuple[int, int]:
    """Columns and lines as Rich works them out, but from this invocation's streams and environment.

    Rich asks fds 0, 1 and 2 of the process and os.environ; an in-process run must ask its own streams
    instead, or a test run from a terminal would render at the terminal's width. So: the first stream
    that is a terminal gives the size, COLUMNS/LINES override it, 80x25 when neither says.
    """
    width: int | None = None
    height: int | None = None
    for stream in (invocation.stdin, invocation.stdout, invocation.stderr):
        if stream is None:
            continue
        try:
            width, height = os.get_terminal_size(stream.fileno())
            break
        except (AttributeError, ValueError, OSError):  # not a terminal, or no fd at all
            continue
    columns, lines = invocation.env.get("COLUMNS"), invocation.env.get("LINES")
    if columns is not None and columns.isdigit():
        width = int(columns)
    if lines is not None and lines.isdigit():
        height = int(lines)
    return width or 80, height or 25
