"""forked_map: status's walks on every CPU, by fork, with this process doing a share and any failed
child's share."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

from memwarm_cli.backends.freshness.forked_map import forked_map
from memwarm_cli.cancel import Cancelled

PARENT = os.getpid()


def _square_with_worker(value: int) -> tuple[int, bool]:
    return value * value, os.getpid() != PARENT


def test_results_come_back_in_order_and_children_did_some_of_the_work() -> None:
    results = forked_map(_square_with_worker, list(range(9)), workers=3)
    assert [square for square, _ in results] == [n * n for n in range(9)]
    assert any(in_child for _, in_child in results) and not all(in_child for _, in_child in results)


def _fails_in_a_child(value: int) -> int:
    if os.getpid() != PARENT:
        raise RuntimeError("a child that fails")
    return value + 1


def test_a_failing_child_costs_only_time() -> None:
    assert forked_map(_fails_in_a_child, [1, 2, 3, 4], workers=2) == [2, 3, 4, 5]


def test_one_lane_runs_here() -> None:
    assert forked_map(_square_with_worker, [2, 3], workers=1) == [(4, False), (9, False)]


def test_with_another_thread_alive_everything_runs_here() -> None:
    """A fork copies only the calling thread; a lock another thread holds would stay held in the child."""
    release = threading.Event()
    other = threading.Thread(target=release.wait, daemon=True)
    other.start()
    try:
        results = forked_map(_square_with_worker, list(range(6)), workers=3)
    finally:
        release.set()
        other.join()
    assert results == [(n * n, False) for n in range(6)]


def test_a_cancelled_wait_kills_the_children_and_raises(tmp_path: Path) -> None:
    # A child that blocks (as one rendering a 15 MiB message for seconds): once `check` raises (the
    # token of a SIGTERM), this process stops waiting for it and kills it. Before, it waited the share out.
    pid_file = tmp_path / "child"

    def block_in_a_child(value: int) -> int:
        if os.getpid() != PARENT:
            pid_file.write_text(str(os.getpid()))
            threading.Event().wait()  # for ever
        return value

    checks = 0

    def check() -> None:
        nonlocal checks
        if not pid_file.exists():
            return  # not yet in the child's share
        checks += 1
        if checks == 3:
            raise Cancelled(signal.SIGTERM)

    with pytest.raises(Cancelled):
        forked_map(block_in_a_child, [0, 1], workers=2, check=check)
    assert checks == 3
    with pytest.raises(ProcessLookupError):  # killed and reaped
        os.kill(int(pid_file.read_text()), 0)
