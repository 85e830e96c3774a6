"""SIGINT/SIGTERM/SIGHUP while memwarm runs qmd: stop the children first, then end with 130/143/129.

cli/console.py makes SIGINT end the process at once (`os._exit(130)`) and SIGTERM keeps its default, which
is right while memwarm only reads files. A qmd child runs in its own process group (so a terminal's
Ctrl-C does not reach it) and its timeout is watched by a thread of ours: ending at once would orphan it.
Commands that run qmd (`init-backends`, `status`, `search`) therefore turn the signal into a cancelled
CancelToken, which kills every child group (TERM, then KILL after a grace period) and makes the core raise
Cancelled once they are gone.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

from memwarm_cli.cancel import CancelToken


@contextmanager
def signals_cancel(token: CancelToken) -> Iterator[CancelToken]:
    """SIGINT/SIGTERM/SIGHUP → `token.cancel(signum)` for the duration, unless ignored; the previous
    handlers restored after. SIGHUP too: a dropped terminal or SSH session must not leave qmd running in
    its own group."""

    def handler(signum: int, _frame: FrameType | None) -> None:
        token.cancel(signum)

    previous: dict[int, Any] = {}
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        # Ignored from the start, it stays so: a background job's SIGINT, the SIGHUP of `nohup memwarm
        # init-backends &`, whose user asked it (and its qmd) to outlive the terminal.
        if signal.getsignal(sig) is not signal.SIG_IGN:
            previous[sig] = signal.signal(sig, handler)
    try:
        yield token
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
