"""The fake qmd (tests/backends/support.py) answers as qmd 2.8.3 does where it answers at all, so
init-backends' collection paths (kept, rebound, taken over, conflict, no longer configured) are covered
without Node too. The first test holds the fake to the real qmd, command by command.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.backends.qmd.qmd_output import parse_collection_list, read_index_yml
from memwarm_cli.exitcodes import ExitCode
from tests.backends.support import Scenario, install_fake_qmd, make_scenario, require_real_qmd

NOTES = {"MEMORY.md": "# M\nKestrel.\n", "memory/a.md": "# A\nOcelot.\n", "memory/b.md": "# B\n"}


def _fake_scenario(tmp_path: Path, config: dict[str, Any] | None = None) -> tuple[Scenario, Path]:
    scenario = make_scenario(tmp_path, {"main": NOTES}, config or {"memory": {"backend": "qmd"}})
    state = install_fake_qmd(tmp_path / "fakebin")
    scenario.path_dirs = [tmp_path / "fakebin"]
    return scenario, state


def _run(scenario: Scenario, state: Path, *args: str) -> tuple[Any, dict[str, Any]]:
    return scenario.run_json(list(args), extra_env={"FAKE_QMD_DIR": str(state)})


def _fake_qmd(scenario: Scenario, state: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The fake, run by hand in the agent's env (as a user would run qmd)."""
    fake = state.parent / "qmd"
    return scenario.qmd("main", *args, executable=fake, extra_env={"FAKE_QMD_DIR": str(state)})


def _actions(report: dict[str, Any]) -> dict[str, str]:
    return {c["name"]: c["action"] for c in report["agents"][0]["collections"]}


def _index(scenario: Scenario) -> dict[str, tuple[str | None, str | None]]:
    recorded = read_index_yml(scenario.qmd_dir("main") / "xdg-config" / "qmd" / "index.yml")
    return {name: (c.path, c.pattern) for name, c in recorded.items()}


@pytest.mark.qmd
def test_the_fake_answers_as_the_real_qmd(tmp_path: Path) -> None:
    real = require_real_qmd()
    outcomes: dict[str, list[tuple[Any, ...]]] = {}
    for label in ("real", "fake"):
        scenario = make_scenario(tmp_path / label, {"main": NOTES}, {})
        state = install_fake_qmd(tmp_path / label / "fakebin")
        executable = real if label == "real" else state.parent / "qmd"
        workspace = scenario.workspace("main")
        for directory in ("xdg-config/qmd", "xdg-cache/qmd"):
            (scenario.qmd_dir("main") / directory).mkdir(parents=True)
        (tmp_path / label / "link").symlink_to(workspace)
        steps = [
            ["collection", "list"],
            ["collection", "add", str(tmp_path / label / "link"), "--name", "root", "--mask", "MEMORY.md"],
            ["collection", "add", "memory", "--name", "dir", "--mask", "**/*.md"],
            ["collection", "add", str(workspace), "--name", "root", "--mask", "other.md"],
            ["collection", "add", str(workspace), "--name", "mine", "--mask", "MEMORY.md"],
            ["collection", "add", str(workspace / "nowhere"), "--name", "gone", "--mask", "*.md"],
            ["collection", "list"],
            ["collection", "remove", "nosuch"],
            ["collection", "remove", "root"],
            ["collection", "list"],
        ]
        seen = []
        for step in steps:
            proc = scenario.qmd("main", *step, executable=executable, extra_env={"FAKE_QMD_DIR": str(state)})
            stdout = proc.stdout.replace(str(tmp_path / label), "<tmp>")
            if step[1] == "list":
                listed = {n: (c.path, c.pattern) for n, c in parse_collection_list(proc.stdout).items()}
                shown: Any = (listed, re.sub(r"Updated: .*", "", stdout))
            elif step[1] == "add" and proc.returncode == 0:
                lines = stdout.splitlines()
                shown = (lines[:2], lines[-1])  # what it made, and that it did; the indexing lines vary
            else:
                shown = stdout
            index = {
                name: (str(path).replace(str(tmp_path / label), "<tmp>"), pattern)
                for name, (path, pattern) in _index(scenario).items()
            }
            stderr = proc.stderr.replace(str(tmp_path / label), "<tmp>")
            asked = [arg.replace(str(tmp_path / label), "<tmp>") for arg in step]
            seen.append((asked, proc.returncode, shown, stderr, index))
        outcomes[label] = seen
    for real_step, fake_step in zip(outcomes["real"], outcomes["fake"], strict=True):
        assert fake_step == real_step


def test_an_unchanged_collection_is_kept_without_qmd_add(tmp_path: Path) -> None:
    scenario, state = _fake_scenario(tmp_path)
    result, report = _run(scenario, state)
    assert result.returncode == 0, result.stderr
    assert _actions(report) == {"memory-root-main": "added", "memory-dir-main": "added"}
    workspace = scenario.workspace("main")
    assert _index(scenario) == {
        "memory-root-main": (str(workspace), "MEMORY.md"),
        "memory-dir-main": (str(workspace / "memory"), "**/*.md"),
    }
    result, report = _run(scenario, state, "--force")  # past the fingerprint: qmd lists the collections
    assert result.returncode == 0, result.stderr
    assert _actions(report) == {"memory-root-main": "kept", "memory-dir-main": "kept"}
    argvs = [c["argv"][1:3] for c in report["agents"][0]["commands"]]
    assert ["collection", "list"] in argvs and ["collection", "add"] not in argvs


def test_a_moved_workspace_rebinds_its_collections(tmp_path: Path) -> None:
    scenario, state = _fake_scenario(tmp_path)
    old = scenario.workspace("main")
    assert _run(scenario, state)[0].returncode == 0
    moved = tmp_path / "moved-ws"
    old.rename(moved)
    scenario.agents["main"] = moved
    scenario.config["agents"]["list"][0]["workspace"] = str(moved)
    scenario.write_config()
    result, report = _run(scenario, state)
    assert result.returncode == 0, result.stderr
    collections = {c["name"]: c for c in report["agents"][0]["collections"]}
    assert {name: c["action"] for name, c in collections.items()} == {
        "memory-root-main": "rebound",
        "memory-dir-main": "rebound",
    }
    assert collections["memory-dir-main"]["detail"] == f"was {old / 'memory'} (**/*.md)"
    assert _index(scenario) == {
        "memory-root-main": (str(moved), "MEMORY.md"),
        "memory-dir-main": (str(moved / "memory"), "**/*.md"),
    }


def test_a_users_collection_on_the_same_path_is_a_conflict_and_never_removed(tmp_path: Path) -> None:
    scenario, state = _fake_scenario(tmp_path)
    workspace = scenario.workspace("main")
    made = _fake_qmd(
        scenario, state, "collection", "add", str(workspace), "--name", "mine", "--mask", "MEMORY.md"
    )
    assert made.returncode == 0, made.stderr
    result, report = _run(scenario, state)
    assert result.returncode == ExitCode.FINDINGS
    agent = report["agents"][0]
    assert agent["status"] == "failed"
    assert agent["reason"] == (
        "qmd collection add conflict for memory-root-main: path+pattern already bound by mine, "
        "which memwarm does not manage (left in place; remove or rename it)"
    )
    assert _actions(report) == {"memory-root-main": "conflict", "memory-dir-main": "added"}
    assert _index(scenario)["mine"] == (str(workspace), "MEMORY.md")
    assert not any(c["argv"][1:3] == ["collection", "remove"] for c in agent["commands"])
    assert not scenario.fingerprint("main").exists()


def test_the_gateways_old_collection_name_is_taken_over(tmp_path: Path) -> None:
    scenario, state = _fake_scenario(tmp_path)
    workspace = scenario.workspace("main")
    alt = ["collection", "add", str(workspace), "--name", "memory-alt-main", "--mask", "MEMORY.md"]
    assert _fake_qmd(scenario, state, *alt).returncode == 0
    result, report = _run(scenario, state)
    assert result.returncode == 0, result.stderr
    root = next(c for c in report["agents"][0]["collections"] if c["name"] == "memory-root-main")
    assert (root["action"], root["detail"]) == ("rebound", "took over path+pattern from memory-alt-main")
    assert "[main] qmd collection add conflict for memory-root-main: path+pattern already bound by " in (
        result.stderr
    )
    assert set(_index(scenario)) == {"memory-root-main", "memory-dir-main"}


def test_a_collection_no_longer_configured_stays_with_a_warning_once(tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "old.md").write_text("# Old\n", encoding="utf-8")
    config = {
        "memory": {"backend": "qmd"},
        "agents": {"list": [{"id": "main", "memorySearch": {"extraPaths": [str(extra)]}}]},
    }
    scenario, state = _fake_scenario(tmp_path, config)
    result, report = _run(scenario, state)
    assert result.returncode == 0, result.stderr
    (dropped,) = [c["name"] for c in report["agents"][0]["collections"] if c["kind"] != "default"]
    scenario.config["agents"]["list"][0].pop("memorySearch")
    scenario.write_config()
    result, report = _run(scenario, state)
    assert result.returncode == 0, result.stderr
    warning = f"qmd collection {dropped} is no longer configured but stays in the index"
    assert f"[main] {warning}" in result.stderr
    assert _index(scenario)[dropped] == (str(extra), "**/*.md")
    (scenario.workspace("main") / "memory" / "c.md").write_text("# C\n", encoding="utf-8")
    result, report = _run(scenario, state)
    assert report["agents"][0]["status"] == "armed" and report["agents"][0]["warnings"] == []
