"""init-backends against small fake `qmd` executables: missing binary, hang, crash, locked database,
busy agent, interruption, the per-state-dir embed lock and the exit codes."""

from __future__ import annotations

import fcntl
import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.backends.init.init_report import InitOptions, StepEvent
from memwarm_cli.backends.init.init_run import run_init_backends
from memwarm_cli.backends.state.locks import embed_lock_path
from memwarm_cli.config import load_config
from memwarm_cli.exitcodes import ExitCode
from memwarm_cli.profiles.releases import P0
from tests.backends.support import (
    NOTES,
    SEARCH_OFF,
    Scenario,
    by_agent,
    fake_log,
    fake_scenario,
    install_fake_qmd,
    make_scenario,
    process_alive,
    wait_for_marker,
)
from tests.conftest import MEMWARM, run_memwarm
from tests.signal_defaults import DEFAULT_SIGNALS


def run(scenario: Scenario, state: Path, args: list[str] | None = None) -> tuple[Any, dict[str, Any]]:
    return scenario.run_json(args or [], extra_env={"FAKE_QMD_DIR": str(state)})


def test_missing_binary_fails_without_running_anything(tmp_path: Path) -> None:
    scenario = make_scenario(tmp_path, {"main": NOTES, "ops": NOTES}, {"memory": {"backend": "qmd"}})
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    # Only an empty dir on PATH: a qmd installed on this machine (/usr/bin, /usr/local/bin) cannot leak in.
    result, report = scenario.run_json(extra_env={"PATH": str(empty)})
    assert result.returncode == ExitCode.FINDINGS
    # OpenClaw's reason, then where memwarm looked (the PATH qmd would get) and the two ways out.
    reason = (
        f'qmd binary unavailable (qmd): spawn qmd ENOENT; looked for "qmd" on PATH={empty}; install qmd '
        "(npm install -g @tobilu/qmd@2.8.3, on Node.js 22 or later), or set memory.qmd.command to its "
        "absolute path"
    )
    for agent in report["agents"]:
        assert agent["status"] == "failed"
        assert agent["reason"] == reason
        assert agent["commands"] == []
    assert (
        'qmd memory startup initialization failed for agent "main": qmd binary unavailable (qmd)'
        in result.stderr
    )
    # Nothing prepared for qmd (no dirs, lock or fingerprint): only the failure, recorded for `status`.
    written = sorted(str(p.relative_to(scenario.state)) for p in (scenario.state / "agents").rglob("*"))
    assert written == [
        f"agents/{agent_id}{suffix}"
        for agent_id in ("main", "ops")
        for suffix in ("", "/qmd", "/qmd/memwarm-last-run.json")
    ]
    record = json.loads((scenario.qmd_dir("main") / "memwarm-last-run.json").read_text())
    assert (record["status"], record["reason"]) == ("failed", reason)
    assert f"{reason}\n" in result.stderr  # the log line says it all too, on one line


@pytest.mark.parametrize("kind", ["not-executable", "directory", "missing"])
def test_unrunnable_command_path_is_reported_alike_by_run_and_dry_run(tmp_path: Path, kind: str) -> None:
    """One lookup (resolve_executable) for both: a dry run said ENOENT where exec says EACCES."""
    command = tmp_path / "bin" / "qmd"
    command.parent.mkdir()
    if kind == "not-executable":
        command.write_text("#!/bin/sh\n", encoding="utf-8")
        command.chmod(0o644)
    elif kind == "directory":
        command.mkdir()
    scenario, state = fake_scenario(tmp_path, command=str(command))
    code = "ENOENT" if kind == "missing" else "EACCES"
    if kind == "missing":
        hint = f"{command} does not exist; install qmd (npm install -g @tobilu/qmd@2.8.3, on Node.js 22"
        hint += " or later), or set memory.qmd.command to its absolute path"
    else:
        hint = f"{command} is not an executable file; make it one, or set memory.qmd.command to qmd's"
        hint += " absolute path"
    expected = f"qmd binary unavailable ({command}): spawn {command} {code}; {hint}"
    for args in ([], ["--dry-run"]):
        result, report = run(scenario, state, args)
        assert result.returncode == ExitCode.FINDINGS, result.stderr
        assert (report["agents"][0]["status"], report["agents"][0]["reason"]) == ("failed", expected), args


def test_configured_command_keeps_only_its_first_token(tmp_path: Path) -> None:
    scenario, state = fake_scenario(tmp_path, command=f"{tmp_path / 'fakebin' / 'qmd'} --ignored-arg")
    scenario.path_dirs = []
    result, report = run(scenario, state)
    assert result.returncode == 0, result.stderr
    assert report["agents"][0]["status"] == "armed"
    assert "collection list --json" in fake_log(state)
    assert not any("--ignored-arg" in line for line in fake_log(state))


def test_hang_is_killed_by_the_timeout_with_its_process_group(tmp_path: Path) -> None:
    # The grandchild leaves `waited-out` if it lives its 60 s: killed, it never does (no clock involved).
    body = '(sleep 60; touch "$FAKE_QMD_DIR/waited-out") & echo $! >> "$FAKE_QMD_DIR/children"; wait\n'
    scenario, state = fake_scenario(tmp_path, {"update": body})
    result, report = run(scenario, state, ["--timeout", "0.3"])
    assert result.returncode == ExitCode.FINDINGS
    agent = report["agents"][0]
    assert agent["status"] == "failed"
    assert agent["reason"] == "qmd boot update failed: Error: qmd update timed out after 300ms"
    updates = [c for c in agent["commands"] if c["argv"][1:] == ["update"]]
    assert len(updates) == 3 and all(c["timedOut"] for c in updates)  # a timeout is retried twice
    assert "qmd update retry 1/2 after failure (boot): qmd update timed out after 300ms" in result.stderr
    # Killed, not waited out: each grandchild the fake started is gone, and none lived its 60 s.
    for pid in (state / "children").read_text().split():
        assert not process_alive(int(pid)), f"grandchild {pid} survived the timeout"
    assert not (state / "waited-out").exists()
    assert not scenario.fingerprint("main").exists()


def test_crash_reports_its_stderr_and_is_not_retried(tmp_path: Path) -> None:
    body = 'echo "some progress" ; echo "Error: index corrupted (bad page 7)" >&2; exit 3\n'
    scenario, state = fake_scenario(tmp_path, {"update": body})
    result, report = run(scenario, state)
    assert result.returncode == ExitCode.FINDINGS
    agent = report["agents"][0]
    assert agent["reason"] == (
        "qmd boot update failed: Error: qmd update failed (code 3): Error: index corrupted (bad page 7)"
    )
    assert [c["exitCode"] for c in agent["commands"] if c["argv"][1:] == ["update"]] == [3]


def test_database_locked_twice_then_success(tmp_path: Path) -> None:
    body = (
        'n=$(cat "$FAKE_QMD_DIR/count" 2>/dev/null || echo 0); echo $((n+1)) > "$FAKE_QMD_DIR/count"\n'
        'if [ "$n" -lt 2 ]; then echo "SqliteError: SQLITE_BUSY: database is locked" >&2; exit 1; fi\n'
    )
    scenario, state = fake_scenario(tmp_path, {"update": body})
    started = time.monotonic()
    result, report = run(scenario, state)
    elapsed = time.monotonic() - started
    assert result.returncode == 0, result.stderr
    agent = report["agents"][0]
    assert agent["status"] == "armed"
    assert [c["exitCode"] for c in agent["commands"] if c["argv"][1:] == ["update"]] == [1, 1, 0]
    assert "qmd update retry 1/2 after failure (boot)" in result.stderr
    assert "qmd update retry 2/2 after failure (boot)" in result.stderr
    assert elapsed >= 1.5  # 500 ms then 1000 ms
    assert scenario.fingerprint("main").exists()


def test_agent_locked_by_another_run_is_busy(tmp_path: Path) -> None:
    scenario = make_scenario(tmp_path, {"main": NOTES, "ops": NOTES}, {"memory": {"backend": "qmd"}})
    state = install_fake_qmd(tmp_path / "fakebin")
    scenario.path_dirs = [tmp_path / "fakebin"]
    lock_path = scenario.qmd_dir("main") / "memwarm-init.lock"
    lock_path.parent.mkdir(parents=True)
    with open(lock_path, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        result, report = run(scenario, state)
    assert result.returncode == 0, result.stderr
    agents = by_agent(report)
    assert agents["main"]["status"] == "busy"
    assert agents["ops"]["status"] == "armed"
    assert 'skipped for agent "main": busy' in result.stderr
    # Released: the next run takes it.
    _, report = run(scenario, state)
    assert by_agent(report)["main"]["status"] == "armed"


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130), (signal.SIGHUP, 129)])
def test_signal_mid_run_stops_children_releases_locks_and_leaves_no_fingerprint(
    tmp_path: Path, sig: int, code: int
) -> None:
    # The child's pid is on record before the test is told to signal: a loaded machine once let the
    # signal in between the two, and the group died before it wrote `children`.
    body = (
        '(sleep 60; touch "$FAKE_QMD_DIR/waited-out") & echo $! >> "$FAKE_QMD_DIR/children"; '
        'touch "$FAKE_QMD_DIR/update-started"; wait\n'
    )
    scenario, state = fake_scenario(tmp_path, {"update": body})
    proc = subprocess.Popen(
        [MEMWARM, "init-backends", "--json"],
        env=scenario.env({"FAKE_QMD_DIR": str(state)}),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        preexec_fn=DEFAULT_SIGNALS,  # the signal's default, whatever the test run inherited
    )
    try:
        wait_for_marker(proc, state / "update-started", "qmd update")
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=300)  # a hang guard only: the children's fate is the check
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err.decode()
    report = json.loads(out)
    assert report["interrupted"] == signal.Signals(sig).name
    assert report["agents"][0]["status"] == "failed"
    assert "interrupted" in report["agents"][0]["reason"]
    for pid in (state / "children").read_text().split():
        assert not process_alive(int(pid))
    assert not (state / "waited-out").exists()  # stopped at the signal, not after qmd's 60 s
    assert not scenario.fingerprint("main").exists()
    with open(scenario.qmd_dir("main") / "memwarm-init.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # released


def test_embed_runs_one_at_a_time_and_a_failure_is_degraded(tmp_path: Path) -> None:
    body = (
        'echo "start $(date +%s%N)" >> "$FAKE_QMD_DIR/embeds"; sleep 0.3; '
        'echo "end $(date +%s%N)" >> "$FAKE_QMD_DIR/embeds"\n'
        'if [ "$XDG_CACHE_HOME" = "${FAILING_CACHE:-}" ]; then\n'
        '  echo "fetch failed: model download" >&2; exit 1\n'
        "fi\n"
    )
    scenario, state = fake_scenario(tmp_path, {"embed": body}, agents=("a", "b", "c"), searchMode="query")
    failing = scenario.qmd_dir("b") / "xdg-cache"
    result, report = scenario.run_json(
        ["--concurrency", "3"], extra_env={"FAKE_QMD_DIR": str(state), "FAILING_CACHE": str(failing)}
    )
    assert result.returncode == ExitCode.DEGRADED, result.stderr
    statuses = {a["agentId"]: a["status"] for a in report["agents"]}
    assert statuses == {"a": "armed", "b": "degraded", "c": "armed"}
    assert report["concurrency"] == 3
    assert (
        "qmd embed failed (boot): Error: qmd embed failed (code 1): fetch failed"
        in by_agent(report)["b"]["reason"]
    )
    events = (state / "embeds").read_text().split("\n")
    kinds = [e.split()[0] for e in events if e]
    assert kinds == ["start", "end"] * 3  # never two embeds at once

    # --no-embed skips it; the other agents are fresh and b retries only after its backoff.
    result, report = scenario.run_json(["--no-embed", "--force"], extra_env={"FAKE_QMD_DIR": str(state)})
    assert result.returncode == 0, result.stderr
    assert not any(c["argv"][1:] == ["embed"] for a in report["agents"] for c in a["commands"])


def test_exit_codes_for_config_and_usage_errors(tmp_path: Path) -> None:
    scenario, state = fake_scenario(tmp_path)
    missing = subprocess.run(
        [MEMWARM, "--config", str(tmp_path / "nope.json"), "init-backends"],
        env=scenario.env(),
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert missing.returncode == ExitCode.CONFIG
    unknown = scenario.run(["--agent", "ghost"], extra_env={"FAKE_QMD_DIR": str(state)})
    assert unknown.returncode == ExitCode.USAGE
    assert 'unknown agent "ghost"' in unknown.stderr


def test_overflowing_duration_falls_back_instead_of_crashing(tmp_path: Path) -> None:
    """`update.interval: "999...9"` (400 digits) crashed config show/check and --dry-run with a traceback."""
    scenario, state = fake_scenario(tmp_path, update={"interval": "9" * 400, "embedInterval": "9" * 400})
    env = scenario.env({"FAKE_QMD_DIR": str(state)})
    for args in (["config", "show"], ["config", "check"], ["init-backends", "--dry-run"]):
        result = run_memwarm(args, env)
        assert "Traceback" not in result.stderr, (args, result.stderr)
        assert result.returncode in (0, ExitCode.FINDINGS), (args, result.returncode, result.stderr)
    result, report = run(scenario, state, ["--dry-run"])
    assert result.returncode == 0, result.stderr
    assert report["agents"][0]["status"] == "planned"
    check = run_memwarm(["config", "check"], env)
    assert "is not a duration" in check.stdout + check.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "NaN", "Infinity"])
def test_non_finite_timeout_is_a_one_line_usage_error(tmp_path: Path, value: str) -> None:
    scenario, state = fake_scenario(tmp_path)
    result = scenario.run(["--timeout", value], extra_env={"FAKE_QMD_DIR": str(state)})
    assert result.returncode == ExitCode.USAGE, result.stderr
    assert result.stderr.count("\n") == 1 and "--timeout" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert fake_log(state) == []


@pytest.mark.parametrize("value", ["3000000", "1e308"])
def test_huge_timeout_flag_is_clamped_to_what_set_timeout_allows(tmp_path: Path, value: str) -> None:
    """poll() refused more than 2**31-1 ms ("timeout is too large"); 1e308 s overflowed to inf ms."""
    scenario, state = fake_scenario(tmp_path)
    result, report = run(scenario, state, ["--timeout", value, "--embed"])
    assert result.returncode == 0, result.stderr
    assert report["agents"][0]["status"] == "armed", report["agents"][0]["reason"]


def test_huge_configured_timeouts_are_clamped(tmp_path: Path) -> None:
    # The largest the release accepts (a safe integer: 1e300 makes it refuse the config, and memwarm too).
    huge = {"commandTimeoutMs": 3_000_000_000, "updateTimeoutMs": 10**15, "embedTimeoutMs": 2**53 - 1}
    scenario, state = fake_scenario(tmp_path, update=huge, limits={"timeoutMs": 2**40})
    result, report = run(scenario, state, ["--embed", "--probe"])
    assert result.returncode == 0, result.stderr
    agent = report["agents"][0]
    assert agent["status"] == "armed", agent["reason"]
    assert any(c["argv"][1:] == ["embed"] for c in agent["commands"])


def test_skips_disabled_and_builtin_agents_with_the_reason(tmp_path: Path) -> None:
    scenario, state = fake_scenario(tmp_path, agents=("main", "off"), entries=SEARCH_OFF)
    result, report = run(scenario, state)
    assert result.returncode == 0, result.stderr
    agents = by_agent(report)
    assert [a["agentId"] for a in report["agents"]] == ["main", "off"]  # config order
    assert (agents["off"]["status"], agents["off"]["reason"]) == ("skipped", "memory search disabled")
    assert agents["main"]["status"] == "armed"
    only_main = scenario.run(["-q", "--agent", "MAIN"], extra_env={"FAKE_QMD_DIR": str(state)})
    assert only_main.returncode == 0
    assert only_main.stderr == ""  # -q: only failures
    # The backend is memory.backend, for every agent (OpenClaw 2026.6.35 has no per-agent one).
    scenario.config["memory"]["backend"] = "builtin"
    scenario.write_config()
    result, report = run(scenario, state)
    # Every agent skipped: nothing warmed, which a cron job tells from success by the code (7).
    assert result.returncode == ExitCode.NOTHING_WARMED, result.stderr
    plain = by_agent(report)["main"]
    assert (plain["status"], plain["reason"], plain["backendSource"]) == (
        "skipped",
        "builtin",
        "memory.backend",
    )


def test_quiet_prints_failures_only(tmp_path: Path) -> None:
    scenario, state = fake_scenario(tmp_path, {"update": "echo broken >&2; exit 9\n"})
    result = scenario.run(["-q"], extra_env={"FAKE_QMD_DIR": str(state)})
    assert result.returncode == ExitCode.FINDINGS
    lines = result.stderr.strip().splitlines()
    assert lines == [
        'qmd memory startup initialization failed for agent "main": '
        "qmd boot update failed: Error: qmd update failed (code 9): broken"
    ]


def test_failed_embed_backs_off_even_when_notes_change(tmp_path: Path) -> None:
    scenario, state = fake_scenario(tmp_path, {"embed": "echo offline >&2; exit 1\n"}, searchMode="vsearch")
    result, report = run(scenario, state)
    assert result.returncode == ExitCode.DEGRADED
    assert "backing off for 60s" in result.stderr
    note = scenario.workspace("main") / "memory" / "a.md"
    note.write_text("# A\nchanged\n")
    os.utime(note, ns=(time.time_ns(), time.time_ns() + 1_000_000))
    result, report = run(scenario, state)
    assert result.returncode == ExitCode.DEGRADED
    argvs = [c["argv"][1:] for c in report["agents"][0]["commands"]]
    assert ["update"] in argvs and ["embed"] not in argvs  # re-indexed for BM25; embed still backing off
    assert "next attempt in" in report["agents"][0]["reason"]
    result, report = run(scenario, state, ["--embed"])  # an explicit --embed tries again at once
    assert [c["argv"][1:] for c in report["agents"][0]["commands"]] == [["embed"]]
    assert report["agents"][0]["status"] == "degraded"


def test_shared_models_dir_is_symlinked_once(tmp_path: Path) -> None:
    scenario, state = fake_scenario(tmp_path)
    shared = scenario.home / ".cache" / "qmd" / "models"
    shared.mkdir(parents=True)
    result, _ = run(scenario, state)
    assert result.returncode == 0, result.stderr
    link = scenario.qmd_dir("main") / "xdg-cache" / "qmd" / "models"
    assert link.is_symlink() and link.resolve() == shared.resolve()


def test_an_empty_models_dir_left_by_a_failed_download_is_replaced_by_the_link(tmp_path: Path) -> None:
    """qmd creates <xdg-cache>/qmd/models when it tries to download offline; models pre-downloaded into
    the shared dir afterwards must still reach the agent. A models dir with anything in it is kept."""
    scenario, state = fake_scenario(tmp_path, agents=("main", "ops"))
    shared = scenario.home / ".cache" / "qmd" / "models"
    shared.mkdir(parents=True)
    empty = scenario.qmd_dir("main") / "xdg-cache" / "qmd" / "models"
    empty.mkdir(parents=True)
    kept = scenario.qmd_dir("ops") / "xdg-cache" / "qmd" / "models"
    kept.mkdir(parents=True)
    (kept / "model.gguf").write_bytes(b"GGUF")
    result, _ = run(scenario, state)
    assert result.returncode == 0, result.stderr
    assert empty.is_symlink() and empty.resolve() == shared.resolve()
    assert not kept.is_symlink() and (kept / "model.gguf").read_bytes() == b"GGUF"


def test_missing_workspace_fails_that_agent_only(tmp_path: Path) -> None:
    scenario = make_scenario(tmp_path, {"main": NOTES, "ops": NOTES}, {"memory": {"backend": "qmd"}})
    state = install_fake_qmd(tmp_path / "fakebin")
    scenario.path_dirs = [tmp_path / "fakebin"]
    gone = tmp_path / "gone"
    scenario.config["agents"]["list"][1]["workspace"] = str(gone)
    scenario.write_config()
    result, report = run(scenario, state)
    assert result.returncode == ExitCode.FINDINGS
    agents = by_agent(report)
    assert agents["main"]["status"] == "armed"
    assert agents["ops"]["reason"] == f"qmd workspace unavailable ({gone}): no such directory"
    assert not gone.exists()


def test_probe_reports_a_search_that_does_not_answer(tmp_path: Path) -> None:
    scenario, state = fake_scenario(tmp_path)
    result, report = run(scenario, state, ["--probe-query", "memory"])  # implies --probe
    assert result.returncode == 0, result.stderr
    probe = report["agents"][0]["probe"]
    assert probe["answered"] is True and probe["hits"] == 0 and probe["latencyMs"] >= 0
    assert (probe["mode"], probe["query"], probe["timeoutMs"]) == ("search", "memory", 120_000)
    search = [c["argv"] for c in report["agents"][0]["commands"] if c["argv"][1] == "search"]
    # As OpenClaw searches: -n limits.maxResults (4 by default in 2026.6.35), every managed collection.
    assert search == [
        ["qmd", "search", "memory", "--json", "-n", "4", "-c", "memory-root-main", "-c", "memory-dir-main"]
    ]
    # A BM25 search that hangs past the probe's timeout: the index cannot answer, the agent fails.
    (state / "search.sh").write_text("sleep 30\n", encoding="utf-8")
    result, report = run(scenario, state, ["--probe", "--probe-timeout", "0.3"])
    assert result.returncode == ExitCode.FINDINGS
    agent = report["agents"][0]
    assert agent["status"] == "failed"
    assert agent["probe"]["answered"] is False and agent["probe"]["timedOut"] is True
    assert "qmd search probe failed: qmd search" in agent["reason"]
    assert "timed out after 300ms" in agent["reason"]


def test_memory_search_backend_spelling_is_refused_as_the_release_refuses_it(tmp_path: Path) -> None:
    """memwarm once read agents.*.memorySearch.backend/.qmd as memory.backend/.qmd; OpenClaw 2026.6.35
    refuses the whole config with them, so init-backends stops (exit 3) before any qmd command."""
    config = {"agents": {"defaults": {"memorySearch": {"backend": "qmd", "qmd": {"searchMode": "search"}}}}}
    scenario = make_scenario(tmp_path, {"main": NOTES}, config)
    state = install_fake_qmd(tmp_path / "fakebin")
    scenario.path_dirs = [tmp_path / "fakebin"]
    result = scenario.run(["--json"], extra_env={"FAKE_QMD_DIR": str(state)})
    assert result.returncode == ExitCode.CONFIG and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert "agents.defaults.memorySearch.backend: unknown key: OpenClaw 2026.6.35 refuses the config" in line
    assert "1 more" in line and fake_log(state) == []


def test_missing_custom_path_outside_the_workspace_is_reported_not_created(tmp_path: Path) -> None:
    outside = tmp_path / "nowhere" / "notes"
    scenario, state = fake_scenario(tmp_path, paths=[{"path": str(outside), "name": "notes"}])
    result, report = run(scenario, state)
    assert result.returncode == 0, result.stderr
    actions = {c["name"]: c["action"] for c in report["agents"][0]["collections"]}
    # A named path outside the workspace keeps its bare name, as OpenClaw 2026.6.35 names it.
    assert actions == {"memory-root-main": "added", "memory-dir-main": "added", "notes": "missing"}
    assert f"qmd collection add skipped for notes: path does not exist ({outside}); memwarm does not" in (
        result.stderr
    )
    assert not outside.exists()


def test_duplicate_document_constraint_rebuilds_managed_collections_once(tmp_path: Path) -> None:
    body = (
        'if [ ! -f "$FAKE_QMD_DIR/failed-once" ]; then touch "$FAKE_QMD_DIR/failed-once"\n'
        '  echo "SqliteError: UNIQUE constraint failed: documents.collection, documents.path" >&2\n'
        "  exit 1\n"
        "fi\n"
    )
    scenario, state = fake_scenario(tmp_path, {"update": body})
    result, report = run(scenario, state)
    assert result.returncode == 0, result.stderr
    assert report["agents"][0]["status"] == "armed"
    argvs = [" ".join(c["argv"][1:3]) for c in report["agents"][0]["commands"]]
    assert argvs == [
        "--version",
        "collection list",
        "collection add",
        "collection add",
        "update",
        "collection remove",
        "collection add",
        "collection remove",
        "collection add",
        "update",
    ]
    assert "qmd update failed with duplicate document constraint (boot); rebuilding" in result.stderr
    assert "qmd managed collections rebuilt for update repair (boot)" in result.stderr


def test_failed_probe_leaves_no_matching_fingerprint_so_the_next_run_is_not_fresh(tmp_path: Path) -> None:
    scenario, state = fake_scenario(tmp_path)
    result, report = run(scenario, state)
    assert report["agents"][0]["status"] == "armed" and scenario.fingerprint("main").exists()
    (state / "search.sh").write_text("echo 'search exploded' >&2; exit 1\n", encoding="utf-8")
    for _ in range(2):  # from the unchanged path (a fingerprint exists), then from a full pass
        result, report = run(scenario, state, ["--probe"])
        assert result.returncode == ExitCode.FINDINGS
        assert report["agents"][0]["status"] == "failed"
        assert "qmd search probe failed" in report["agents"][0]["reason"]
        # Kept (it carries the embed backoff) but matching nothing.
        assert json.loads(scenario.fingerprint("main").read_text(encoding="utf-8"))["digest"] == ""
    result, report = run(scenario, state)
    assert result.returncode == 0, result.stderr
    agent = report["agents"][0]
    assert agent["status"] == "armed"  # the full pass ran again, not "fresh"
    assert [c["argv"][1:] for c in agent["commands"]][-1] == ["update"]


@pytest.mark.long
def test_version_that_hangs_is_cut_short_once_and_remembered(tmp_path: Path) -> None:
    scenario, state = fake_scenario(tmp_path, {"version": "sleep 60\n"})
    # A timeout that --timeout shortened says nothing about qmd: not remembered.
    result, report = run(scenario, state, ["--timeout", "0.3"])
    assert result.returncode == 0, result.stderr
    assert "qmd --version timed out after 300ms" in [c["error"] for c in report["agents"][0]["commands"]]
    scenario.fingerprint("main").unlink()
    result, report = run(scenario, state)
    assert result.returncode == 0, result.stderr
    agent = report["agents"][0]
    version = [c for c in agent["commands"] if c["argv"][1:] == ["--version"]]
    # Capped well below the 30 s command timeout; the agent still gets its index.
    assert [(c["timedOut"], c["error"]) for c in version] == [(True, "qmd --version timed out after 5000ms")]
    assert agent["status"] == "armed"
    result, report = run(scenario, state)
    assert result.returncode == 0, result.stderr
    agent = report["agents"][0]
    assert agent["status"] == "fresh"
    assert agent["commands"] == []  # not asked again: a cron job must not pay for it every run
    assert fake_log(state).count("--version") == 2


def test_agent_lines_come_in_config_order_each_on_one_line(tmp_path: Path) -> None:
    # alpha is slow, beta fails with several lines of stderr holding a terminal escape, gamma is quick.
    update = (
        'case "$PWD" in\n'
        "  */ws-alpha) sleep 1.5 ;;\n"
        "  */ws-beta) printf 'boom\\nline2\\n\\033[31mred\\033[0m\\n' >&2; exit 3 ;;\n"
        "esac\n"
    )
    scenario, state = fake_scenario(tmp_path, {"update": update}, agents=("alpha", "beta", "gamma"))
    result, report = scenario.run_json(["--concurrency", "3"], extra_env={"FAKE_QMD_DIR": str(state)})
    assert result.returncode == ExitCode.FINDINGS
    beta = by_agent(report)["beta"]
    assert beta["reason"].endswith("(code 3): boom\nline2\n\x1b[31mred\x1b[0m")  # JSON keeps it as it was
    lines = result.stderr.splitlines()
    error = "qmd update failed (code 3): boom\\nline2\\n\\x1b[31mred\\x1b[0m"
    assert lines[:4] == [
        'qmd memory startup initialization armed for agent "alpha"',
        f"[beta] qmd boot update failed: Error: {error}",
        f'qmd memory startup initialization failed for agent "beta": qmd boot update failed: Error: {error}',
        'qmd memory startup initialization armed for agent "gamma"',
    ]
    assert lines[4].startswith("init-backends: 3 agents in ") and len(lines) == 5
    assert "\x1b" not in result.stderr


def test_state_that_cannot_be_created_is_reported_in_words(tmp_path: Path) -> None:
    scenario, state = fake_scenario(tmp_path)
    blocker = scenario.qmd_dir("main")
    blocker.parent.mkdir(parents=True)
    blocker.write_text("not a directory\n", encoding="utf-8")
    result, report = run(scenario, state)
    assert result.returncode == ExitCode.FINDINGS
    reason = report["agents"][0]["reason"]
    assert reason == f"cannot prepare {blocker}: Not a directory"  # the component in the way
    assert blocker.read_text(encoding="utf-8") == "not a directory\n"


def test_default_concurrency_follows_the_cpus_this_process_may_use(tmp_path: Path) -> None:
    scenario, _ = fake_scenario(tmp_path, agents=("a", "b"))
    one_cpu = str(min(os.sched_getaffinity(0)))
    proc = subprocess.run(
        ["taskset", "-c", one_cpu, MEMWARM, "init-backends", "--dry-run", "--json"],
        env=scenario.env(),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["concurrency"] == 1
    _, report = scenario.run_json(["--dry-run"])
    assert report["concurrency"] == min(len(os.sched_getaffinity(0)), 2)


def test_an_embed_lock_held_past_the_embed_timeout_degrades_instead_of_waiting_for_ever(
    tmp_path: Path,
) -> None:
    """The wait had no limit: a holder that never lets go (a run stopped with Ctrl-Z) held every later
    run that embeds, and its agents' locks with it."""
    scenario, state = fake_scenario(tmp_path, searchMode="query")
    lock_path = embed_lock_path(scenario.state).path
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "w") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        result, report = run(scenario, state, ["--timeout", "1"])
    assert result.returncode == ExitCode.DEGRADED, result.stderr
    agent = report["agents"][0]
    assert agent["status"] == "degraded"
    assert agent["reason"] == (
        f"qmd embed skipped: another process held {lock_path} for 1s (the embed timeout); searchable with "
        "BM25; vectors stale"
    )
    assert not [line for line in fake_log(state) if line.split()[1:2] == ["embed"]]


@pytest.mark.long
def test_the_runs_own_agents_take_turns_at_embed_without_timing_each_other_out(tmp_path: Path) -> None:
    """Three agents embedding 1.5 s each with a 2 s embed timeout: the third waited 3 s for the state dir's
    embed lock behind its own siblings and was 'degraded' ("another process held ..."), with no other
    process anywhere."""
    scenario, state = fake_scenario(
        tmp_path, {"embed": "sleep 1.5\n"}, agents=("a", "b", "c"), searchMode="query"
    )
    result, report = run(scenario, state, ["--timeout", "2", "--concurrency", "3"])
    assert result.returncode == ExitCode.OK, result.stderr
    assert {a["agentId"]: a["status"] for a in report["agents"]} == dict.fromkeys("abc", "armed")
    assert "embed skipped" not in result.stderr


@pytest.mark.long
def test_a_stuck_embed_lock_is_waited_out_once_per_run_not_once_per_agent(tmp_path: Path) -> None:
    """With the run's agents taking turns, each then waited the full timeout on the stuck lock: N agents
    cost N timeouts; the first wait now settles it for the run. Counted, not timed: the run (in this
    process, its events collected) announces a wait on the embed lock with the embed timeout once."""
    scenario, state = fake_scenario(tmp_path, searchMode="query", agents=("a", "b", "c"))
    lock_path = embed_lock_path(scenario.state).path
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    events: list[object] = []
    loaded = load_config(str(scenario.config_path), scenario.env({"FAKE_QMD_DIR": str(state)}))
    with open(lock_path, "w") as holder:
        fcntl.flock(holder, fcntl.LOCK_EX)
        options = InitOptions(concurrency=3, timeout_ms=1000)
        report = run_init_backends(loaded, options, profile=P0, on_event=events.append)
    assert {agent.status for agent in report.agents} == {"degraded"}
    timed_waits = [
        event
        for event in events
        if isinstance(event, StepEvent) and event.step == "waiting for the embed lock" and event.timeout_ms
    ]
    assert [event.timeout_ms for event in timed_waits] == [1000]
