"""signals_cancel: the first signal decides how a run ends; a later one, of any kind, changes nothing."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from types import FrameType

import pytest

from memwarm_cli.cancel import CancelToken
from memwarm_cli.cli.terminal.interrupts import signals_cancel
from tests.signal_defaults import TESTED_SIGNALS


@pytest.fixture
def sentinels() -> Iterator[list[int]]:
    """Handlers standing for the process's own (the default action would end pytest): the signals they
    got, in order; the test run's handlers put back after."""
    got: list[int] = []

    def sentinel(signum: int, _frame: FrameType | None) -> None:
        got.append(signum)

    saved = {sig: signal.signal(sig, sentinel) for sig in TESTED_SIGNALS}
    try:
        yield got
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


def test_without_a_signal_the_previous_handlers_come_back(sentinels: list[int]) -> None:
    with signals_cancel(CancelToken()) as token:
        pass
    signal.raise_signal(signal.SIGHUP)
    assert sentinels == [signal.SIGHUP]
    assert token.signum is None


@pytest.mark.parametrize(
    ("first", "second"),
    [(signal.SIGTERM, signal.SIGHUP), (signal.SIGINT, signal.SIGTERM), (signal.SIGHUP, signal.SIGINT)],
)
def test_a_second_signal_after_the_run_is_dropped_and_the_first_decides(
    sentinels: list[int], first: int, second: int
) -> None:
    with signals_cancel(CancelToken()) as token:
        signal.raise_signal(first)
        signal.raise_signal(second)  # during the wind-down: the token keeps the first
    assert token.signum == first
    # After the block (the summary, the report, the exit): given back to the default action, TERM then
    # HUP ended the process with 129 while the report named SIGTERM.
    for sig in (second, first):
        signal.raise_signal(sig)
    assert sentinels == []
    assert token.signum == first
