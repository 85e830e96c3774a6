"""A second, different signal while an interrupted init-backends winds down (issue 31, class 9): the first
decides both the exit code and the report. The report's write is held by a full stdout pipe (a fake that
blocks), so the second signal lands after the run, while memwarm reports: no timing decides it."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
from pathlib import Path

import pytest

from tests.backends.support import fake_scenario, wait_for_marker
from tests.conftest import MEMWARM
from tests.signal_defaults import DEFAULT_SIGNALS


def _full_pipe() -> tuple[int, int, bytes]:
    """A pipe whose buffer is full: a write to it blocks until the reader drains it. Its ends and the
    filler written."""
    read_end, write_end = os.pipe()
    os.set_blocking(write_end, False)
    filler = bytearray()
    try:
        while True:
            filler += b"x" * os.write(write_end, b"x" * 4096)
    except BlockingIOError:
        pass
    os.set_blocking(write_end, True)
    return read_end, write_end, bytes(filler)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 65536):
        chunks.append(chunk)
    return b"".join(chunks)


@pytest.mark.parametrize(
    ("first", "second", "code"),
    [
        (signal.SIGTERM, signal.SIGHUP, 143),
        (signal.SIGHUP, signal.SIGTERM, 129),
        (signal.SIGINT, signal.SIGHUP, 130),
    ],
)
def test_a_second_signal_while_the_report_is_written_does_not_change_the_exit_code(
    tmp_path: Path, first: int, second: int, code: int
) -> None:
    body = 'sleep 60 & echo $! >> "$FAKE_QMD_DIR/children"; touch "$FAKE_QMD_DIR/update-started"; wait\n'
    scenario, state = fake_scenario(tmp_path, {"update": body})
    read_end, write_end, filler = _full_pipe()
    proc = subprocess.Popen(
        [MEMWARM, "init-backends", "--json"],
        env=scenario.env({"FAKE_QMD_DIR": str(state)}),
        stdout=write_end,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        preexec_fn=DEFAULT_SIGNALS,
    )
    os.close(write_end)
    try:
        assert proc.stderr is not None
        wait_for_marker(proc, state / "update-started", "qmd update")
        proc.send_signal(first)
        # The summary line comes first (stderr), then the report, whose write blocks on the full pipe.
        summary = b""
        while b"interrupted by" not in summary:
            line = proc.stderr.readline()
            assert line, f"memwarm ended before its summary: {summary!r}"
            summary += line
        proc.send_signal(second)
        out = _read_all(read_end)
        err = summary + proc.stderr.read()
        proc.wait(timeout=300)
    finally:
        os.close(read_end)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    name = signal.Signals(first).name
    assert proc.returncode == code, err.decode()
    assert f"interrupted by {name}".encode() in summary
    assert out.startswith(filler)
    report = json.loads(out[len(filler) :])
    assert report["interrupted"] == name
    with open(scenario.qmd_dir("main") / "memwarm-init.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released
