"""init-backends walks every agent's files once, before its thread pool starts, in forked workers (the
walk holds the GIL: in the pool's threads the agents' walks took turns); each agent's steps then only add
the qmd version and compare digests, through the judgement `status` makes (freshness.py). A warm agent
whose collection directories are all there does not read qmd's index.yml (no YAML at all)."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.backends.freshness import freshness
from memwarm_cli.backends.freshness.export_check import FreshnessJob
from memwarm_cli.backends.freshness.freshness import Judged, judge
from memwarm_cli.backends.init import agent_steps
from memwarm_cli.backends.qmd import qmd_output
from tests.backends.support import by_agent, real_qmd_scenario

pytestmark = pytest.mark.qmd

NOTES = {"MEMORY.md": "# Memory\nThe heron rota.\n", "memory/2026-01-01.md": "# Day\nOtter drills.\n"}


def _only_this_thread_left(timeout: float = 15.0) -> None:
    """Threads other tests left behind (a cancelled run's straggler killer sleeps a few seconds) would
    rightly keep forked_map from forking: wait for them, so the test sees what a memwarm process sees."""
    deadline = time.monotonic() + timeout
    for thread in threading.enumerate():
        if thread is not threading.main_thread():
            thread.join(max(0.0, deadline - time.monotonic()))
    assert threading.active_count() == 1, [thread.name for thread in threading.enumerate()]


def test_a_run_walks_each_agent_once_before_its_threads_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario = real_qmd_scenario(
        tmp_path, {"a": NOTES, "b": NOTES, "c": NOTES}, {"memory": {"backend": "qmd"}}
    )
    cold, cold_report = scenario.run_json(["--concurrency", "2"])
    assert cold.returncode == 0, cold.stderr
    assert [agent["status"] for agent in cold_report["agents"]] == ["armed"] * 3

    walks = tmp_path / "walks.log"

    def recording(job: FreshnessJob, token: Any = None) -> Judged:
        with walks.open("a", encoding="utf-8") as log:  # O_APPEND: the forked workers' lines stay whole
            log.write(f"{os.getpid()} {threading.current_thread().name} {job.qmd_version!r}\n")
        return judge(job, token)

    def walk_again(*_args: Any) -> Judged:
        raise AssertionError("a step walked the agent's files again")

    def read_yaml(*_args: Any) -> Any:
        raise AssertionError("a warm agent's pass read index.yml")

    monkeypatch.setattr(freshness, "judge", recording)
    monkeypatch.setattr(agent_steps, "judge", walk_again)
    monkeypatch.setattr(qmd_output, "read_index_yml", read_yaml)
    _only_this_thread_left()
    result, report = scenario.run_json(["--concurrency", "2"])
    assert result.returncode == 0, result.stderr
    assert [agent["status"] for agent in report["agents"]] == ["fresh"] * 3
    assert {c["action"] for agent in report["agents"] for c in agent["collections"]} == {"kept"}

    lines = [line.split(" ", 2) for line in walks.read_text(encoding="utf-8").splitlines()]
    assert len(lines) == 3  # one walk per agent
    assert {thread for _, thread, _ in lines} == {"MainThread"}  # none in the pool's threads
    assert {version for _, _, version in lines} == {"''"}  # before any agent's version was known
    pids = {int(pid) for pid, _, _ in lines}
    assert os.getpid() in pids and len(pids) == 2  # this process's share and one forked worker's

    # A change is still seen: the walked snapshot carries the files as they were before the pool.
    (scenario.workspace("b") / "memory" / "2026-01-02.md").write_text("# New\nBadger.\n", encoding="utf-8")
    monkeypatch.undo()
    again, again_report = scenario.run_json(["--concurrency", "2"])
    assert again.returncode == 0, again.stderr
    assert {agent: outcome["status"] for agent, outcome in by_agent(again_report).items()} == {
        "a": "fresh",
        "b": "armed",
        "c": "fresh",
    }


def test_one_lane_walks_here_and_a_dry_run_walks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    scenario = real_qmd_scenario(tmp_path, {"a": NOTES, "b": NOTES}, {"memory": {"backend": "qmd"}})
    pids: list[int] = []

    def recording(job: FreshnessJob, token: Any = None) -> Judged:
        pids.append(os.getpid())  # a forked worker's append would not reach this list
        return judge(job, token)

    monkeypatch.setattr(freshness, "judge", recording)
    dry, _ = scenario.run_json(["--dry-run"])
    assert dry.returncode == 0, dry.stderr
    assert pids == []
    result, report = scenario.run_json(["--concurrency", "1"])
    assert result.returncode == 0, result.stderr
    assert [agent["status"] for agent in report["agents"]] == ["armed", "armed"]
    assert pids == [os.getpid(), os.getpid()]
