"""init-backends against a flaky qmd: children that keep the pipes open, ignore SIGTERM or never stop
writing. Each run must end in bounded time, with bounded memory, leaving nothing of memwarm's process
groups behind (issue 10, classes 7 and 8)."""

from __future__ import annotations

import fcntl
import json
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memwarm_cli.exitcodes import ExitCode
from tests.backends.support import (
    ENDLESS_STDERR,
    ENDLESS_STDOUT,
    ESCAPED_GRANDCHILD,
    IGNORES_SIGTERM,
    RECORD_STDOUT,
    Scenario,
    install_fake_qmd,
    kill_escaped,
    make_scenario,
    process_alive,
    run_measured,
    wait_for_marker,
)
from tests.conftest import MEMWARM
from tests.signal_defaults import DEFAULT_SIGNALS

NOTES = {"MEMORY.md": "# M\nnotes\n", "memory/a.md": "# A\n"}
TOO_MUCH = "produced too much output (limit 200000 chars)"
# Peak memory a flood may add to a run: the cap holds 200,000 characters per stream, read 64 KiB at a time.
FLOOD_RSS_ALLOWANCE_KIB = 24 * 1024


@pytest.fixture
def fake(tmp_path: Path) -> Iterator[tuple[Scenario, Path]]:
    """One agent whose qmd is the fake one; whatever it sets loose is killed after the test."""
    scenario = make_scenario(tmp_path, {"main": NOTES}, {"memory": {"backend": "qmd"}})
    state = install_fake_qmd(tmp_path / "fakebin")
    scenario.path_dirs = [tmp_path / "fakebin"]
    yield scenario, state
    kill_escaped(state)


def behave(state: Path, name: str, body: str) -> None:
    (state / f"{name}.sh").write_text(body, encoding="utf-8")


def env_of(scenario: Scenario, state: Path) -> dict[str, str]:
    return scenario.env({"FAKE_QMD_DIR": str(state)})


def test_grandchild_keeping_the_pipes_after_qmd_exits_does_not_hang_the_run(
    fake: tuple[Scenario, Path],
) -> None:
    scenario, state = fake
    behave(state, "update", ESCAPED_GRANDCHILD)  # then the fake's update exits 0
    run = run_measured(["init-backends", "--json"], env_of(scenario, state), timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["agents"][0]["status"] == "armed"
    # Used to wait for the grandchild's 30 s sleep.
    assert run.seconds < 25, f"{run.seconds:.1f} s (bound sized for load 10 on 2 cores)"
    assert (state / "escaped").read_text().split()


def test_timeout_ends_the_command_though_an_escaped_grandchild_holds_the_pipes(
    fake: tuple[Scenario, Path],
) -> None:
    scenario, state = fake
    behave(state, "update", ESCAPED_GRANDCHILD + "sleep 30\n")
    run = run_measured(["init-backends", "--json", "--timeout", "0.3"], env_of(scenario, state), timeout=60)
    assert run.returncode == ExitCode.FINDINGS
    agent = json.loads(run.stdout)["agents"][0]
    assert agent["reason"] == "qmd boot update failed: Error: qmd update timed out after 300ms"
    # Three attempts of 0.3 s plus the 0.5 s and 1 s retry delays, plus memwarm's start: not 3 x 30 s.
    assert run.seconds < 40, f"{run.seconds:.1f} s (bound sized for load 10 on 2 cores)"


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_signal_ends_the_run_in_bounded_time_whatever_the_child_does(
    fake: tuple[Scenario, Path], sig: int, code: int
) -> None:
    """qmd ignores SIGTERM, and a process it set loose holds the pipes: memwarm still stops within
    about TERM_GRACE_SECONDS + PIPE_GRACE_SECONDS, releases the lock and kills its own groups."""
    scenario, state = fake
    body = (
        IGNORES_SIGTERM
        + ESCAPED_GRANDCHILD
        + 'sleep 60 & echo $! >> "$FAKE_QMD_DIR/children"\n'
        + 'touch "$FAKE_QMD_DIR/update-started"; wait\n'
    )
    behave(state, "update", body)
    proc = subprocess.Popen(
        [MEMWARM, "init-backends", "--json"],
        env=env_of(scenario, state),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        preexec_fn=DEFAULT_SIGNALS,  # the signal's default, whatever the test run inherited
    )
    try:
        wait_for_marker(proc, state / "update-started", "qmd update")
        signalled = time.monotonic()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
        elapsed = time.monotonic() - signalled
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == code, err.decode()
    # About 1.3 s: SIGKILL after 1 s, pipes given up 0.25 s later; the grandchild holds them 30 s.
    assert elapsed < 20, f"{elapsed:.1f} s from the signal to the exit (bound sized for load 10 on 2 cores)"
    report = json.loads(out)
    assert report["interrupted"] == signal.Signals(sig).name
    for pid in (state / "children").read_text().split():
        assert not process_alive(int(pid)), f"{pid} of qmd's process group survived"
    assert not scenario.fingerprint("main").exists()
    with open(scenario.qmd_dir("main") / "memwarm-init.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released


@pytest.mark.parametrize("flood", [ENDLESS_STDOUT, ENDLESS_STDERR], ids=["stdout", "stderr"])
def test_endless_output_of_a_captured_command_fails_it_at_the_cap(
    fake: tuple[Scenario, Path], flood: str
) -> None:
    """`qmd search` (the probe) never stops writing: it fails at 200,000 characters, at once."""
    scenario, state = fake
    baseline = run_measured(["init-backends", "--json", "--probe"], env_of(scenario, state))
    assert baseline.returncode == 0, baseline.stderr
    behave(state, "search", flood)
    run = run_measured(["init-backends", "--json", "--probe"], env_of(scenario, state), timeout=60)
    assert run.returncode == ExitCode.FINDINGS, run.stderr
    agent = json.loads(run.stdout)["agents"][0]
    error = agent["probe"]["error"]
    assert error.startswith("qmd search ") and error.endswith(f" {TOO_MUCH}"), error
    # The probe's timeout is 120 s; the cap comes first.
    assert run.seconds < 50, f"{run.seconds:.1f} s (bound sized for load 10 on 2 cores)"
    assert run.max_rss_kib - baseline.max_rss_kib < FLOOD_RSS_ALLOWANCE_KIB


def test_a_finite_flood_of_a_captured_command_fails_it_too(fake: tuple[Scenario, Path]) -> None:
    """OpenClaw fails a command that wrote more than the cap even when it exits 0 (memwarm kept it all)."""
    scenario, state = fake
    behave(state, "search", "head -c 3000000 /dev/zero | tr '\\0' x >&2\n")
    run = run_measured(["init-backends", "--json", "--probe"], env_of(scenario, state), timeout=60)
    assert run.returncode == ExitCode.FINDINGS, run.stderr
    assert json.loads(run.stdout)["agents"][0]["probe"]["error"].endswith(TOO_MUCH)


def test_update_stdout_is_discarded_as_openclaw_discards_it(fake: tuple[Scenario, Path]) -> None:
    """`qmd update` writing 200 MB on stdout costs no memory and fails nothing; its stdout is /dev/null."""
    scenario, state = fake
    baseline = run_measured(["init-backends", "--json", "--force"], env_of(scenario, state))
    assert baseline.returncode == 0, baseline.stderr
    behave(state, "update", RECORD_STDOUT + "head -c 200000000 /dev/zero\n")
    behave(state, "search", RECORD_STDOUT)
    run = run_measured(["init-backends", "--json", "--force", "--probe"], env_of(scenario, state), timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["agents"][0]["status"] == "armed"
    assert (state / "stdout-of-update").read_text().strip() == "/dev/null"
    assert (state / "stdout-of-search").read_text().startswith("pipe:")  # captured where it is read
    assert run.max_rss_kib - baseline.max_rss_kib < FLOOD_RSS_ALLOWANCE_KIB


@pytest.mark.long
def test_endless_stderr_of_update_is_held_in_bounded_memory_until_the_timeout(
    fake: tuple[Scenario, Path],
) -> None:
    """No cap failure where stdout is discarded (as in OpenClaw): the timeout ends it, and is retried."""
    scenario, state = fake
    baseline = run_measured(["init-backends", "--json", "--force"], env_of(scenario, state))
    behave(state, "update", ENDLESS_STDERR)
    run = run_measured(
        ["init-backends", "--json", "--force", "--timeout", "1"], env_of(scenario, state), timeout=60
    )
    assert run.returncode == ExitCode.FINDINGS, run.stderr
    agent = json.loads(run.stdout)["agents"][0]
    assert agent["reason"] == "qmd boot update failed: Error: qmd update timed out after 1000ms"
    assert [c["timedOut"] for c in agent["commands"] if c["argv"][1:] == ["update"]] == [True] * 3
    assert run.max_rss_kib - baseline.max_rss_kib < FLOOD_RSS_ALLOWANCE_KIB
