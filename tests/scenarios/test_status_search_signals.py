"""SIGINT/SIGTERM while `status` asks `qmd --version` or `search` runs qmd: memwarm stops qmd's process
group (its own group, which a terminal's Ctrl-C does not reach) before it ends with 130/143. Ending at once
orphaned the qmd and everything under it, still running, with no timeout left to stop it."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from tests.backends.support import (
    fake_scenario,
    process_alive,
    signal_once_started,
    wait_for_marker,
)
from tests.conftest import MEMWARM
from tests.signal_defaults import DEFAULT_SIGNALS

# A generous search timeout: only the signal may end the search.
SEARCH_LIMITS = {"timeoutMs": 600_000}
# The fake qmd records itself and a grandchild, says it started, and waits for the grandchild.
HANG = 'sleep 300 & echo "$$ $!" >> "$FAKE_QMD_DIR/children"; touch "$FAKE_QMD_DIR/started"; wait\n'


def _index_holding(path: Path) -> None:
    """The fake leaves an empty file; search first checks the index holds the agent's collections, in the
    table qmd 2.8.3 keeps them in (backends/qmd/index_stats.py)."""
    path.unlink()
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE documents (collection TEXT, path TEXT, hash TEXT, active INTEGER)")
        db.executemany(
            "INSERT INTO documents VALUES (?, ?, 'h', 1)",
            [("memory-root-main", "MEMORY.md"), ("memory-dir-main", "a.md")],
        )
    db.close()


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)])
@pytest.mark.parametrize("command", ["status", "search"])
def test_a_signal_stops_qmd_and_everything_under_it_first(
    tmp_path: Path, command: str, sig: int, code: int
) -> None:
    if command == "status":  # no version cache yet: status asks `qmd --version`
        scenario, state = fake_scenario(tmp_path, {"version": HANG}, limits=SEARCH_LIMITS)
        args = ["status", "--format", "plain"]
    else:
        scenario, state = fake_scenario(tmp_path, {"search": HANG}, limits=SEARCH_LIMITS)
        warmed = scenario.run_json([], extra_env={"FAKE_QMD_DIR": str(state)})[0]
        assert warmed.returncode == 0, warmed.stderr
        _index_holding(scenario.qmd_dir("main") / "xdg-cache" / "qmd" / "index.sqlite")
        args = ["search", "notes"]
    returncode, stderr, took = signal_once_started(scenario, state, args, sig)
    assert returncode == code, stderr
    assert "Traceback" not in stderr and stderr.count("\n") <= 1, stderr
    assert took < 15, f"{took:.1f} s from the signal to the exit (bound sized for load 10 on 2 cores)"
    pids = [int(pid) for pid in (state / "children").read_text().split()]
    assert len(pids) == 2
    deadline = time.monotonic() + 10  # reaped by memwarm; the grandchild, now init's, soon after
    while any(process_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [pid for pid in pids if process_alive(pid)], "qmd or its child outlived memwarm"


def test_the_fake_really_hangs_without_a_signal(tmp_path: Path) -> None:
    """The test above stands on this: left alone, status waits for the fake's `--version`."""
    scenario, state = fake_scenario(tmp_path, {"version": HANG}, limits=SEARCH_LIMITS)
    proc = subprocess.Popen(
        [MEMWARM, "status"],
        env=scenario.env({"FAKE_QMD_DIR": str(state)}),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=DEFAULT_SIGNALS,
    )
    try:
        # From the fake's start on (a fixed sleep from the spawn raced a loaded machine's start-up).
        wait_for_marker(proc, state / "started", "qmd --version")
        time.sleep(1.5)
        assert proc.poll() is None
    finally:
        proc.kill()
        proc.wait()
        for pid in (state / "children").read_text().split():
            os.kill(int(pid), signal.SIGKILL)
