"""Running qmd commands: timeouts, children that keep the pipes open or ignore SIGTERM, the output cap,
and stdout discarded where OpenClaw discards it. Real processes (bash), no mocks."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memwarm_cli.backends.qmd import child_watch, process, qmd_diagnosis
from memwarm_cli.backends.qmd.child_watch import MAX_OUTPUT_CHARS
from memwarm_cli.cancel import TERM_GRACE_SECONDS, Cancelled, CancelToken
from tests.backends.support import process_alive

ENV = {"PATH": "/usr/bin:/bin"}


@pytest.fixture
def pid_file(tmp_path: Path) -> Iterator[Path]:
    """Where a script records the PIDs of processes it sets loose; they are killed after the test."""
    path = tmp_path / "pids"
    yield path
    if path.exists():
        for pid in path.read_text().split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)


def escaped_sleeper(pid_file: Path, seconds: int = 20) -> str:
    """Shell that starts a process in a new session (out of the child's group) holding its pipes."""
    return f"setsid bash -c 'echo $$ >> {pid_file}; exec sleep {seconds}' &"


def bash(script: str, tmp_path: Path, **kwargs: object) -> process.CommandResult:
    options: dict[str, object] = {"timeout_ms": 20_000, "token": CancelToken()}
    options.update(kwargs)
    return process.run_command("bash", ["-c", script], env=ENV, cwd=tmp_path, **options)  # type: ignore[arg-type]


def wait_for(path: Path, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not path.exists():
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def test_run_command_clamps_a_timeout_poll_would_refuse(tmp_path: Path) -> None:
    """Above 2**31-1 ms poll() raised "timeout is too large"; Node's setTimeout caps there too."""
    assert process.clamp_timeout_ms(3e9) == process.clamp_timeout_ms(float("inf")) == 2**31 - 1
    assert process.clamp_timeout_ms(0.2) == 1
    assert process.timeout_ms_from_seconds(1e308) == 2**31 - 1
    assert process.timeout_ms_from_seconds(0.3) == 300
    result = process.run_command(
        "true",
        [],
        env={"PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        timeout_ms=10**15,
        token=CancelToken(),
    )
    assert (result.exit_code, result.timeout_ms) == (0, 2**31 - 1)


def test_a_grandchild_holding_the_pipes_does_not_hold_the_command(tmp_path: Path, pid_file: Path) -> None:
    """The child exits; a process it set loose keeps stdout open. Reading used to wait for its EOF."""
    started = time.monotonic()
    result = bash(f"{escaped_sleeper(pid_file)} echo done; echo warn >&2", tmp_path)
    elapsed = time.monotonic() - started
    assert (result.exit_code, result.stdout, result.stderr) == (0, "done\n", "warn\n")
    # PIPE_GRACE_SECONDS after the exit, not the sleeper's 20 s.
    assert elapsed < 10, f"{elapsed:.1f} s (bound sized for load 10 on 2 cores)"
    assert pid_file.read_text().split()  # the sleeper did start (and is killed by the fixture)


def test_a_timeout_ends_the_command_whatever_holds_the_pipes(tmp_path: Path, pid_file: Path) -> None:
    started = time.monotonic()
    result = bash(f"{escaped_sleeper(pid_file)} sleep 20", tmp_path, timeout_ms=300)
    elapsed = time.monotonic() - started
    assert result.timed_out and result.exit_code is None
    assert result.error_message() == "qmd -c " + result.argv[2] + " timed out after 300ms"
    assert elapsed < 10, (
        f"{elapsed:.1f} s (bound sized for load 10 on 2 cores; the sleeper holds the pipes 20 s)"
    )


def test_cancellation_ends_a_child_that_ignores_sigterm_within_the_grace(
    tmp_path: Path, pid_file: Path
) -> None:
    token = CancelToken()
    started_file, in_group = tmp_path / "started", tmp_path / "in-group"
    script = (
        f"trap '' TERM; {escaped_sleeper(pid_file)} sleep 20 & echo $! > {in_group}; "
        f"touch {started_file}; wait"
    )
    outcome: list[BaseException | process.CommandResult] = []

    def run() -> None:
        try:
            outcome.append(bash(script, tmp_path, token=token))
        except BaseException as exc:  # handed to the test thread
            outcome.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    wait_for(started_file)
    signalled = time.monotonic()
    token.cancel(signal.SIGTERM)
    worker.join(timeout=20)
    elapsed = time.monotonic() - signalled
    assert not worker.is_alive(), "run_command did not return after cancellation"
    assert isinstance(outcome[0], Cancelled) and outcome[0].signum == signal.SIGTERM
    # The graces plus a margin (the sleeper holds the pipes 20 s): bound sized for load 10 on 2 cores.
    bound = TERM_GRACE_SECONDS + child_watch.PIPE_GRACE_SECONDS + 8.75
    assert elapsed < bound, f"{elapsed:.1f} s from the cancellation to the return"
    assert not process_alive(int(in_group.read_text()))  # the sleep in the child's own group


def test_captured_output_past_the_cap_fails_with_openclaws_message(tmp_path: Path) -> None:
    """OpenClaw's limit is 200,000 characters; memwarm read and kept everything before."""
    result = bash(f"head -c {MAX_OUTPUT_CHARS + 1} /dev/zero | tr '\\0' x", tmp_path)
    assert result.too_much_output and not result.ok and result.exit_code is None
    assert result.error_message().endswith(" produced too much output (limit 200000 chars)")


def test_the_cap_counts_utf16_units(tmp_path: Path) -> None:
    """100,001 emoji are 100,001 code points but 200,002 units: past OpenClaw's cap."""
    at_cap = bash(f"for i in $(seq {MAX_OUTPUT_CHARS // 2}); do printf '😀'; done", tmp_path)
    assert at_cap.ok and not at_cap.too_much_output
    over = bash(f"for i in $(seq {MAX_OUTPUT_CHARS // 2 + 1}); do printf '😀' >&2; done", tmp_path)
    assert over.too_much_output


def test_endless_captured_output_is_cut_short(tmp_path: Path) -> None:
    for stream in ("", ">&2"):
        started = time.monotonic()
        result = bash(f"yes endless {stream}", tmp_path)
        assert result.too_much_output, stream
        assert len(result.stdout) + len(result.stderr) <= 2 * MAX_OUTPUT_CHARS
        took = time.monotonic() - started
        assert took < 12, f"{took:.1f} s (bound sized for load 10 on 2 cores; not the 20 s timeout)"


def test_discarded_stdout_goes_to_dev_null_and_stderr_keeps_its_tail(tmp_path: Path) -> None:
    """`qmd update` and `qmd embed`: OpenClaw never reads their stdout, and applies no cap."""
    script = (
        "readlink /proc/self/fd/1 >&2; head -c 5000000 /dev/zero; "
        f"head -c {MAX_OUTPUT_CHARS} /dev/zero | tr '\\0' e >&2; echo END >&2"
    )
    result = bash(script, tmp_path, discard_stdout=True)
    assert result.ok and not result.too_much_output
    assert result.stdout == ""
    assert len(result.stderr) == MAX_OUTPUT_CHARS and result.stderr.endswith("eeeEND\n")


@pytest.mark.parametrize("path", ["", ":", "/nonexistent:", "."])
def test_an_empty_path_entry_finds_qmd_in_the_workspace_where_it_is_execed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    # qmd starts with the workspace as its cwd: exec (memwarm's, and OpenClaw's spawn) resolves an empty
    # PATH entry there, not in memwarm's own working directory; PATH="" is one empty entry, as in execvp.
    workspace, elsewhere = tmp_path / "ws", tmp_path / "elsewhere"
    for directory in (workspace, elsewhere):
        directory.mkdir()
    qmd = workspace / "qmd"
    qmd.write_text("#!/bin/sh\necho ran\n", encoding="utf-8")
    qmd.chmod(0o755)
    monkeypatch.chdir(elsewhere)
    assert qmd_diagnosis.resolve_executable("qmd", {"PATH": path}, workspace) == str(qmd)
    result = process.run_command(
        "qmd", [], env={"PATH": path}, cwd=workspace, timeout_ms=60_000, token=CancelToken()
    )
    assert result.stdout == "ran\n"
    monkeypatch.chdir(workspace)  # a qmd in memwarm's own directory is not the one exec would run
    assert qmd_diagnosis.resolve_executable("qmd", {"PATH": path}, elsewhere) is None
