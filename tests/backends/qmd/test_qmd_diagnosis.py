"""Errors that point the way: a qmd that is not found says where memwarm looked and the two fixes; a qmd
that dies by a signal says which, and names the node it probably ran on (fakes on PATH), and the real qmd
on this machine's older Node does exactly that (it segfaults)."""

from __future__ import annotations

import json
import re
import signal
import threading
import time
from pathlib import Path

import pytest

from memwarm_cli.backends.qmd import qmd_diagnosis
from memwarm_cli.cancel import Cancelled, CancelToken
from memwarm_cli.exitcodes import ExitCode
from tests.backends.support import (
    NOTES,
    REAL_QMD,
    fake_scenario,
    make_scenario,
    process_alive,
    require_real_qmd,
    signal_once_started,
)
from tests.conftest import run_memwarm

CRASH = "kill -SEGV $$\n"


def fake_node(bin_dir: Path, version: str, log: Path | None = None) -> Path:
    """A `node` that answers `--version` (and logs each call to `log`)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    node = bin_dir / "node"
    record = f'echo "$*" >> "{log}"\n' if log is not None else ""
    node.write_text(f"#!/bin/sh\n{record}echo {version}\n", encoding="utf-8")
    node.chmod(0o755)
    return node


def test_a_qmd_killed_by_sigsegv_names_the_signal_and_the_node_it_ran_on(tmp_path: Path) -> None:
    scenario, state = fake_scenario(tmp_path, {"list": CRASH})
    node = fake_node(tmp_path / "fakebin", "v20.11.1")
    result, report = scenario.run_json(extra_env={"FAKE_QMD_DIR": str(state)})
    assert result.returncode == ExitCode.FINDINGS
    agent = report["agents"][0]
    assert agent["status"] == "failed"
    assert agent["reason"] == (
        'qmd collection list failed: qmd crashed (signal 11, SIGSEGV) in "qmd collection list --json": '
        f"qmd needs Node.js 22 or later; the node on the PATH memwarm passes to qmd is {node} (v20.11.1)"
    )
    assert [c["exitCode"] for c in agent["commands"] if c["argv"][1:3] == ["collection", "list"]] == [-11]
    assert f'failed for agent "main": {agent["reason"]}\n' in result.stderr


def test_node_is_asked_once_however_many_agents_crash(tmp_path: Path) -> None:
    scenario, state = fake_scenario(tmp_path, {"update": CRASH}, agents=("a", "b", "c"))
    calls = tmp_path / "node-calls"
    fake_node(tmp_path / "fakebin", "v20.11.1", log=calls)
    result, report = scenario.run_json(extra_env={"FAKE_QMD_DIR": str(state)})
    assert result.returncode == ExitCode.FINDINGS
    assert all("qmd crashed (signal 11, SIGSEGV)" in a["reason"] for a in report["agents"])
    assert calls.read_text().splitlines() == ["--version"]


def test_a_node_new_enough_points_elsewhere_and_output_is_kept(tmp_path: Path) -> None:
    scenario, state = fake_scenario(
        tmp_path, {"update": 'echo "free(): invalid pointer" >&2; kill -BUS $$\n'}
    )
    node = fake_node(tmp_path / "fakebin", "v22.23.0")
    _, report = scenario.run_json(extra_env={"FAKE_QMD_DIR": str(state)})
    assert report["agents"][0]["reason"] == (
        'qmd boot update failed: Error: qmd crashed (signal 7, SIGBUS) in "qmd update": qmd needs '
        f"Node.js 22 or later; the node on the PATH memwarm passes to qmd is {node} (v22.23.0), new enough: "
        "the crash has another cause (see qmd's output); its output: free(): invalid pointer"
    )


def test_an_abort_is_not_blamed_on_the_node_on_path(tmp_path: Path) -> None:
    """An old Node's ABI mismatch is a SIGSEGV; an abort (std::bad_alloc) is qmd's own, and a launcher
    such as tools/bin/qmd runs its own Node 22 whatever node PATH holds."""
    scenario, state = fake_scenario(
        tmp_path, {"update": 'echo "terminate called after throwing std::bad_alloc" >&2; kill -ABRT $$\n'}
    )
    fake_node(tmp_path / "fakebin", "v20.20.2")
    _, report = scenario.run_json(extra_env={"FAKE_QMD_DIR": str(state)})
    assert report["agents"][0]["reason"] == (
        'qmd boot update failed: Error: qmd crashed (signal 6, SIGABRT) in "qmd update" (see its output); '
        "its output: terminate called after throwing std::bad_alloc"
    )


def test_a_signal_qmd_did_not_raise_itself_is_not_called_a_crash(tmp_path: Path) -> None:
    scenario, state = fake_scenario(tmp_path, {"update": "kill -KILL $$\n"})
    _, report = scenario.run_json(extra_env={"FAKE_QMD_DIR": str(state)})
    assert report["agents"][0]["reason"] == (
        'qmd boot update failed: Error: qmd was killed (signal 9, SIGKILL) in "qmd update"'
    )


def test_node_requirement_without_node_or_with_a_silent_one(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    assert qmd_diagnosis.node_requirement({"PATH": str(empty)}) == (
        f"qmd needs Node.js 22 or later; there is no node on the PATH memwarm passes to qmd ({empty})"
    )
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "node").write_text("#!/bin/sh\nexit 1\n", encoding="utf-8")
    (broken / "node").chmod(0o755)
    assert qmd_diagnosis.node_requirement({"PATH": str(broken)}).endswith(
        f"is {broken / 'node'} (its version is unknown)"
    )


def test_node_version_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    slow = tmp_path / "slow"
    slow.mkdir()
    (slow / "node").write_text("#!/bin/sh\nexec sleep 30\n", encoding="utf-8")
    (slow / "node").chmod(0o755)
    monkeypatch.setattr(qmd_diagnosis, "NODE_VERSION_TIMEOUT_SECONDS", 0.3)
    assert qmd_diagnosis.node_on_path({"PATH": str(slow)}) == (str(slow / "node"), None)


@pytest.mark.parametrize("signum", [11, 7, 4, 6, 8])
def test_the_crash_signals(signum: int) -> None:
    assert qmd_diagnosis.killed_message("qmd update", signum, {"PATH": "/nonexistent"}).startswith(
        f"qmd crashed (signal {signum}, "
    )


# --- qmd not found: status and search say it too -----------------------------------------------------


def _hint(path: Path) -> str:
    return (
        f'looked for "qmd" on PATH={path}; install qmd (npm install -g @tobilu/qmd@2.8.3, on Node.js 22 '
        "or later), or set memory.qmd.command to its absolute path"
    )


def test_status_says_where_it_looked(tmp_path: Path) -> None:
    scenario = make_scenario(tmp_path, {"main": NOTES}, {"memory": {"backend": "qmd"}})
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    status = run_memwarm(["status", "--json"], scenario.env({"PATH": str(empty)}))
    assert status.returncode == ExitCode.FINDINGS
    assert f"qmd binary unavailable (qmd): {_hint(empty)}" in json.loads(status.stdout)["agents"][0]["why"]


@pytest.mark.qmd
def test_search_says_where_it_looked(tmp_path: Path) -> None:
    """An index made by the real qmd, then searched with a PATH that lacks it (a cron job's, say)."""
    scenario = make_scenario(tmp_path, {"main": NOTES}, {"memory": {"backend": "qmd"}})
    scenario.path_dirs = [require_real_qmd().parent]
    assert scenario.run(["--no-embed"]).returncode == ExitCode.OK
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    search = run_memwarm(["search", "anything"], scenario.env({"PATH": str(empty)}))
    assert search.returncode == ExitCode.FINDINGS
    assert search.stderr == f"memwarm: error: Memory search failed: spawn qmd ENOENT; {_hint(empty)}\n"


# --- the real qmd on an older Node ------------------------------------------------------------------


def _system_node_major() -> int | None:
    found = qmd_diagnosis.node_on_path({"PATH": "/usr/local/bin:/usr/bin:/bin"})
    return qmd_diagnosis.node_major(found[1]) if found is not None else None


@pytest.mark.qmd
@pytest.mark.skipif(
    (_system_node_major() or 99) >= 22, reason="needs a Node.js older than 22 on /usr/bin (this machine's is)"
)
def test_the_real_qmd_on_an_older_node_is_reported_as_a_crash(tmp_path: Path) -> None:
    """npm's launcher (`#!/usr/bin/env node`) on a PATH whose first node is older than 22, as a global
    `npm install -g @tobilu/qmd` under an old system Node gives it: qmd's native module segfaults."""
    require_real_qmd()
    launcher = REAL_QMD.parent.parent / "node_modules" / ".bin" / "qmd"
    scenario = make_scenario(
        tmp_path, {"main": NOTES}, {"memory": {"backend": "qmd", "qmd": {"command": str(launcher)}}}
    )
    result, report = scenario.run_json()  # PATH: the system's, so its node
    assert result.returncode == ExitCode.FINDINGS, result.stderr
    reason = report["agents"][0]["reason"]
    assert re.search(
        r"qmd crashed \(signal 11, SIGSEGV\) in \"qmd [a-z -]+\": qmd needs Node\.js 22 or later; "
        r"the node on the PATH memwarm passes to qmd is /\S+/node \(v(1\d|2[01])\.",
        reason,
    ), reason


@pytest.mark.parametrize("command", [["init-backends", "--json"], ["config", "check"]])
def test_a_signal_while_node_is_asked_its_version_stops_it_at_once(
    tmp_path: Path, command: list[str]
) -> None:
    """`node --version` (after a crash, or in `config check` for a `#!/usr/bin/env node` qmd) ran to its
    5 s limit whatever signal came, and a `config check` interrupted meanwhile left it running."""
    scenario, state = fake_scenario(tmp_path, {"list": CRASH, "update": CRASH})
    if command[0] == "config":  # config check asks the node a `#!/usr/bin/env node` qmd would run on
        qmd = tmp_path / "fakebin" / "qmd"
        qmd.write_text("#!/usr/bin/env node\n" + qmd.read_text().split("\n", 1)[1])
    node = tmp_path / "fakebin" / "node"
    # A node that says it started, ignores TERM and INT, and never answers.
    node.write_text(f'#!/bin/bash\ntrap "" TERM INT\necho $$ > "{state}/node-pid"\nsleep 300\n')
    node.chmod(0o755)
    returncode, err, _ = signal_once_started(scenario, state, command, signal.SIGTERM, marker="node-pid")
    assert returncode == 143, err
    # Killed and reaped before memwarm exits, not left to run (or to its limit) behind it.
    assert not process_alive(int((state / "node-pid").read_text())), "node --version outlived memwarm"


def test_node_version_ends_at_the_cancellation_not_at_its_limit(tmp_path: Path) -> None:
    """The wait for `node --version` checks the run's cancellation: a node that ignores TERM and never
    answers is killed when the run is cancelled, and the ask raises Cancelled instead of returning None
    at its 5 s limit (which is what the bug did: no clock decides this test)."""
    node = tmp_path / "node"
    node.write_text(f'#!/bin/bash\ntrap "" TERM INT\necho $$ > "{tmp_path}/node-pid"\nsleep 300\n')
    node.chmod(0o755)
    token = CancelToken()

    def cancel_once_node_runs() -> None:
        for _ in range(6000):  # a hang guard only (5 minutes)
            if (tmp_path / "node-pid").exists():
                break
            time.sleep(0.05)
        token.cancel(signal.SIGTERM)

    canceller = threading.Thread(target=cancel_once_node_runs)
    canceller.start()
    try:
        with pytest.raises(Cancelled):
            qmd_diagnosis.node_version(str(node), {"PATH": "/usr/bin:/bin"}, token)
    finally:
        canceller.join()
    assert not process_alive(int((tmp_path / "node-pid").read_text()))


# qmd 0.9.0 as npm installs it (`npm install -g @tobilu/qmd@0.9.0`): bin/qmd links to the package's own
# bash launcher, which looks for bun and, on a Node-only machine, prints this and exits 1 (its real text).
QMD_0_9_LAUNCHER = """#!/usr/bin/env bash
# qmd - Quick Markdown Search
set -euo pipefail

# Find bun - prefer PATH, fallback to known locations
find_bun() {
  if command -v bun &>/dev/null; then command -v bun; return 0; fi
  return 1
}

BUN=$(find_bun) || { echo "Error: bun not found. Install from https://bun.sh" >&2; exit 1; }
exec "$BUN" "$(dirname "$0")/src/qmd.ts" "$@"
"""


def install_qmd_0_9(prefix: Path) -> Path:
    """<prefix>/bin/qmd -> ../lib/node_modules/@tobilu/qmd/qmd, with the package.json npm installs."""
    package = prefix / "lib" / "node_modules" / "@tobilu" / "qmd"
    package.mkdir(parents=True)
    (package / "package.json").write_text(
        json.dumps(
            {
                "name": "@tobilu/qmd",
                "version": "0.9.0",
                "bin": {"qmd": "./qmd"},
                "engines": {"bun": ">=1.0.0"},
            }
        )
    )
    launcher = package / "qmd"
    launcher.write_text(QMD_0_9_LAUNCHER, encoding="utf-8")
    launcher.chmod(0o755)
    (prefix / "bin").mkdir()
    (prefix / "bin" / "qmd").symlink_to(launcher)
    return prefix / "bin"


FIX = "fix: npm install -g @tobilu/qmd@2.8.3 (on Node.js 22 or later)"


def test_qmd_0_9_is_named_too_old_with_the_fix_by_status_init_backends_and_config_check(
    tmp_path: Path,
) -> None:
    scenario = make_scenario(tmp_path, {"main": NOTES}, {"memory": {"backend": "qmd"}})
    scenario.path_dirs = [install_qmd_0_9(tmp_path / "npm-global")]
    status = run_memwarm(["status", "--json"], scenario.env())
    assert status.returncode == ExitCode.FINDINGS, status.stderr
    (agent,) = json.loads(status.stdout)["agents"]
    assert agent["status"] == "failed"
    bun = 'qmd (qmd) is a bun-only release (qmd 0.9.0: its launcher says "bun not found")'
    assert any(why.startswith(bun) and why.endswith(FIX) for why in agent["why"]), agent["why"]

    result, report = scenario.run_json()
    assert result.returncode == ExitCode.FINDINGS
    (outcome,) = report["agents"]
    assert (
        outcome["status"] == "failed"
        and outcome["reason"].startswith(bun)
        and outcome["reason"].endswith(FIX)
    )
    assert [c["argv"][1:] for c in outcome["commands"]] == [["--version"]]  # nothing after it

    check = run_memwarm(["config", "check", "--json"], scenario.env())
    findings = [f["message"] for f in json.loads(check.stdout)["findings"]]
    assert any("is 0.9.0, a bun-only release" in m and FIX in m for m in findings), findings


def test_a_qmd_that_prints_an_old_version_is_too_old(tmp_path: Path) -> None:
    """With bun there, qmd 0.9.0 answers `qmd 0.9.0`; 1.x keeps no collections in its index."""
    for version in ("0.9.0", "1.1.6"):
        scenario, state = fake_scenario(tmp_path / version, {"version": f'echo "qmd {version}"; exit 0\n'})
        status = run_memwarm(["status", "--json"], scenario.env({"FAKE_QMD_DIR": str(state)}))
        (agent,) = json.loads(status.stdout)["agents"]
        assert agent["status"] == "failed" and agent["qmdVersion"] == f"qmd {version}"
        assert any(f"qmd (qmd) is {version}, " in why and FIX in why for why in agent["why"]), agent["why"]
    assert qmd_diagnosis.version_problem("qmd", "qmd 2.8.3 (facd35e)") is None
    assert qmd_diagnosis.version_problem("qmd", "qmd 2.0.0") is None


def test_status_asks_each_distinct_qmd_its_version_once(tmp_path: Path) -> None:
    """200 agents spawned `qmd --version` 200 times (10,000 agents: minutes)."""
    scenario, state = fake_scenario(tmp_path, agents=tuple(f"a{i}" for i in range(12)))
    result = run_memwarm(["status", "--json"], scenario.env({"FAKE_QMD_DIR": str(state)}))
    report = json.loads(result.stdout)
    assert {a["qmdVersion"] for a in report["agents"]} == {"qmd 2.8.3 (fake)"}
    assert {a["qmdVersionSource"] for a in report["agents"]} == {"asked"}
    log = [line.split(" ", 1)[1] for line in (state / "log").read_text().splitlines()]
    assert log == ["--version"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("qmd 2.8.3 (facd35e)", (2, 8, 3)),
        ("2.8.3", (2, 8, 3)),
        ("v0.9.0", (0, 9, 0)),
        ("1.2.x 3.4.5", (3, 4, 5)),
        ("10.20.30.40", (10, 20, 30)),
        ("1.2", None),
        (".1.2.3", None),
        ("", None),
        (None, None),
    ],
)
def test_qmd_semver_reads_the_first_version(text: str | None, expected: tuple[int, int, int] | None) -> None:
    assert qmd_diagnosis.qmd_semver(text) == expected
