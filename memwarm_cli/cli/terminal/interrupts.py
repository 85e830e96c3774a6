"""SIGINT/SIGTERM/SIGHUP while memwarm runs qmd: stop the children first, then end with 130/143/129.

cli/console.py makes SIGINT end the process at once (`os._exit(130)`) and SIGTERM keeps its default, which
is right while memwarm only reads files. A qmd child runs in its own process group (so a terminal's
Ctrl-C does not reach it) and its timeout is watched by a thread of ours: ending at once would orphan it.
Commands that run qmd (`init-backends`, `status`, `search`) therefore turn the signal into a cancelled
CancelToken, which kills every child group (TERM, then KILL after a grace period) and makes the core raise
Cancelled once they are gone.
"""

from __future__ import annotations

# The C module under `signal` (as cli/main.py): `signal` builds its enums at import, ~0.5 ms CPU of every
# `status`, which only installs and restores handlers.
import _signal  # type: ignore[import-not-found]

from memwarm_cli.cancel import CancelToken

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType
    from typing import Any


def signals_cancel(token: CancelToken) -> _CancelOnSignals:
    """SIGINT/SIGTERM/SIGHUP → `token.cancel(signum)` for the duration (`with`), unless ignored; the
    previous handlers restored after, unless a signal came (then later ones are dropped until the process
    ends). SIGHUP too: a dropped terminal or SSH session must not leave qmd running in its own group."""
    return _CancelOnSignals(token)


class _CancelOnSignals:
    """signals_cancel's context, a class rather than a contextlib.contextmanager: importing contextlib
    cost `status` ~1 ms CPU (bench/bench_startup.py)."""

    def __init__(self, token: CancelToken) -> None:
        self.token = token
        self.previous: dict[int, Any] = {}

    def __enter__(self) -> CancelToken:
        token = self.token

        def handler(signum: int, _frame: FrameType | None) -> None:
            token.cancel(signum)

        for sig in (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP):
            # Ignored from the start, it stays so: a background job's SIGINT, the SIGHUP of `nohup memwarm
            # init-backends &`, whose user asked it (and its qmd) to outlive the terminal.
            if _signal.getsignal(sig) is not _signal.SIG_IGN:
                self.previous[sig] = _signal.signal(sig, handler)
        return token

    def __exit__(self, *_exc: object) -> None:
        token, previous = self.token, self.previous
        if token.signum is None:
            for signum, old in previous.items():
                _signal.signal(signum, old)
        else:
            # The first signal decided how the run ends, its exit code and its report alike: a second one
            # during the rest (the summary, the report, the exit) must not end the process with its own
            # code (TERM then HUP ended with 129 under "interrupted by SIGTERM"). So the handlers are not
            # given back: later signals are taken and change nothing.
            for signum in previous:
                _signal.signal(signum, _after_the_first)


def _after_the_first(_signum: int, _frame: FrameType | None) -> None:
    """A signal after the one that ended the run: that one decides; this one is taken and dropped."""
