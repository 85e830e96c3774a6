"""The signal dispositions a memwarm started by a signal test begins with: its own, not the test runner's.

A process inherits ignored signals and its blocked-signal mask across fork and exec: under `nohup` (SIGHUP
ignored), in a shell script's background job or on a CI runner that ignores SIGINT, every memwarm the
tests start would ignore the very signal a test sends, and rightly keep ignoring it (a user who ran it
under nohup asked for that), so the test would assert the runner's setting, not memwarm's handling.
`subprocess`'s `restore_signals` does not help: it resets SIGPIPE, SIGXFZ and SIGXFSZ only.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Collection

TESTED_SIGNALS = (signal.SIGHUP, signal.SIGINT, signal.SIGTERM)


def signal_defaults(ignored: Collection[int] = ()) -> Callable[[], None]:
    """A `preexec_fn`: in the child, before exec, TESTED_SIGNALS get their default action (those in
    `ignored` are ignored instead, as a parent such as nohup leaves them) and are unblocked."""

    def reset() -> None:
        for sig in TESTED_SIGNALS:
            signal.signal(sig, signal.SIG_IGN if sig in ignored else signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, TESTED_SIGNALS)

    return reset


DEFAULT_SIGNALS = signal_defaults()
"""`preexec_fn=DEFAULT_SIGNALS`: the child starts as from a shell that ignores and blocks none of them."""
