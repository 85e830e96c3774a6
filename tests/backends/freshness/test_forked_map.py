"""forked_map: status's walks on every CPU, by fork, with this process doing a share and any failed
child's share."""

from __future__ import annotations

import os
import threading

from memwarm_cli.backends.freshness.forked_map import forked_map

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
