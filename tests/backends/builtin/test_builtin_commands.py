"""`status` and `init-backends` on 2026.9.6 with the builtin index: the verdicts in every view, and
init-backends' faults with a fake installed OpenClaw (fake_openclaw.py): not installed, a Node it refuses,
a crash, a hang bounded by --timeout, a signal mid-build. The real release's builds are held in
tests/interop/ (`make interop`)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from memwarm_cli.backends.builtin.builtin_status import SESSIONS_NOT_JUDGED
from tests.backends.builtin.fake_openclaw import NODE_RANGE, calls, install_fake_openclaw
from tests.backends.builtin.index_support import NONE_META, agent_db, build_index, row_for
from tests.backends.support import Scenario, make_scenario, process_alive, wait_for_marker
from tests.conftest import MEMWARM, run_in_terminal, run_memwarm, strip_ansi
from tests.signal_defaults import DEFAULT_SIGNALS

NOTES = {"MEMORY.md": "# Memory\nThe heron ships on Fridays.\n", "memory/2026-04-11.md": "# Heron\n"}
P3 = ["--openclaw", "2026.9.6"]


def _scenario(
    tmp_path: Path, search: dict[str, Any] | None = None, agents: tuple[str, ...] = ("alpha", "beta")
) -> Scenario:
    config = {"memory": {"search": {"provider": "none", **(search or {})}}}
    scenario = make_scenario(tmp_path / "s", dict.fromkeys(agents, NOTES), config)
    scenario.config["agents"]["list"][0]["default"] = True  # 2026.9.6 wants an owner of a multi-agent roster
    scenario.write_config()
    return scenario


def _warm(scenario: Scenario, agent: str) -> None:
    build_index(
        agent_db(scenario.state, agent), NONE_META, [row_for(scenario.workspace(agent), r) for r in NOTES]
    )


def _fake(scenario: Scenario, tmp_path: Path) -> Path:
    scenario.path_dirs = [install_fake_openclaw(tmp_path / "fake")]
    return tmp_path / "openclaw-calls.log"


def _env(scenario: Scenario, log: Path | None = None, **extra: str) -> dict[str, str]:
    return scenario.env({"FAKE_OPENCLAW_LOG": str(log or scenario.root / "unused.log"), **extra})


def _json(args: list[str], env: dict[str, str]) -> tuple[int, dict[str, Any], str]:
    result = run_memwarm([*P3, *args, "--json"], env)
    return result.returncode, json.loads(result.stdout), result.stderr


def test_status_names_each_verdict_and_the_release(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path, agents=("alpha", "beta", "gamma"))
    scenario.config["agents"]["list"][2]["memory"] = {"search": {"enabled": False}}
    scenario.write_config()
    _warm(scenario, "beta")
    code, report, _ = _json(["status"], _env(scenario))
    assert code == 1  # a cold agent: its first search builds the whole index
    agents = {a["agentId"]: a for a in report["agents"]}
    assert [(a["agentId"], a["status"]) for a in report["agents"]] == [
        ("alpha", "cold"),
        ("beta", "warm"),
        ("gamma", "skipped"),
    ]
    assert report["backend"] == {"name": "builtin", "release": "OpenClaw 2026.9.6 (P3)"}
    assert report["summary"] == {"warm": 1, "stale": 0, "invalid": 0, "cold": 1, "failed": 0, "skipped": 1}
    assert agents["gamma"]["why"] == [
        "memory search is disabled for this agent (memory.search.enabled is false)"
    ]
    assert agents["beta"]["index"]["identity"]["status"] == "valid" and agents["beta"]["staleFiles"] == 0
    (scenario.workspace("beta") / "memory" / "2026-04-12.md").write_text("new\n", encoding="utf-8")
    code, report, _ = _json(["status", "--agent", "beta"], _env(scenario))
    assert code == 4 and report["agents"][0]["status"] == "stale"
    assert report["agents"][0]["why"] == ["1 new file: memory/2026-04-12.md", SESSIONS_NOT_JUDGED]
    assert report["agents"][0]["sessions"] == "not judged" and agents["gamma"]["sessions"] is None
    assert report["agents"][0]["index"]["files"] == {
        "new": ["memory/2026-04-12.md"],
        "changed": [],
        "gone": [],
    }


def test_a_warm_verdict_says_session_transcripts_are_not_judged_where_they_are_indexed(
    tmp_path: Path,
) -> None:
    scenario = _scenario(tmp_path)
    scenario.config["agents"]["list"][0]["memory"] = {"search": {"rememberAcrossConversations": False}}
    scenario.write_config()
    rows = [row_for(scenario.workspace("alpha"), r) for r in NOTES]
    build_index(agent_db(scenario.state, "alpha"), {**NONE_META, "sources": ["memory"]}, rows)
    _warm(scenario, "beta")
    code, report, _ = _json(["status"], _env(scenario))
    agents = {a["agentId"]: a for a in report["agents"]}
    assert code == 0 and {a["status"] for a in agents.values()} == {"warm"}
    assert (agents["alpha"]["sources"], agents["alpha"]["sessions"], agents["alpha"]["why"]) == (
        ["memory"],
        "not indexed",
        [],
    )
    assert (agents["beta"]["sources"], agents["beta"]["sessions"], agents["beta"]["why"]) == (
        ["memory", "sessions"],
        "not judged",
        [SESSIONS_NOT_JUDGED],
    )
    plain = run_memwarm([*P3, "status"], _env(scenario)).stdout.splitlines()
    assert plain[1].split("\t")[-1] == "-" and plain[2].split("\t")[-1] == SESSIONS_NOT_JUDGED


def test_status_plain_and_prometheus_views(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path)
    _warm(scenario, "beta")
    plain = run_memwarm([*P3, "status"], _env(scenario))
    lines = plain.stdout.splitlines()
    assert lines[0].startswith("agent\tstatus\tmode\tdocuments")
    assert lines[1].split("\t")[:4] == ["alpha", "cold", "none", "-"] and lines[2].split("\t")[:4] == [
        "beta",
        "warm",
        "none",
        "2",
    ]
    assert "2 agents: 1 warm, 1 cold (builtin memory index)" in plain.stderr
    text = run_memwarm([*P3, "status", "--format", "prometheus"], _env(scenario)).stdout
    samples = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }
    assert samples[("memwarm_agent_warm", (("agent", "beta"),))] == 1
    assert samples[("memwarm_agent_status", (("agent", "alpha"), ("status", "cold")))] == 1
    assert samples[("memwarm_index_files", (("agent", "beta"),))] == 2
    textfile = tmp_path / "memwarm.prom"
    quiet = run_memwarm([*P3, "status", "--textfile", str(textfile)], _env(scenario))
    assert quiet.stdout == "" and textfile.read_text(encoding="utf-8") == text


def test_a_qmd_config_keeps_its_retired_answer(tmp_path: Path) -> None:
    scenario = make_scenario(tmp_path / "s", {"alpha": NOTES}, {"memory": {"backend": "qmd"}})
    result = run_memwarm([*P3, "status"], _env(scenario))
    assert result.returncode == 6 and "openclaw doctor --fix" in result.stdout


def test_openclaw_not_installed_is_one_line_for_the_run(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path)
    result = run_memwarm([*P3, "init-backends"], _env(scenario))
    assert result.returncode == 1
    assert result.stderr.count("OpenClaw is not installed") == 1
    assert (
        "init-backends: 2 agents in" in result.stderr
        and '2 cold, not built ("alpha", "beta")' in result.stderr
    )


def test_a_node_the_release_refuses_starts_nothing(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path)
    log = _fake(scenario, tmp_path)
    code, report, err = _json(["init-backends"], _env(scenario, log, FAKE_NODE_VERSION="v22.22.3"))
    assert code == 1 and calls(log) == []
    assert err.count(f"needs Node {NODE_RANGE}") == 1 and "(v22.22.3)" in err
    assert {a["status"] for a in report["agents"]} == {"cold"}
    assert report["openclawCli"]["nodeVersion"] == "v22.22.3"


def test_a_build_runs_the_release_cli_with_the_users_state_and_config(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path)
    _warm(scenario, "beta")
    log = _fake(scenario, tmp_path)
    code, report, _ = _json(["init-backends"], _env(scenario, log))
    (call,) = calls(log)  # the cold agent only: the warm one is left alone
    assert call.split()[1:5] == ["memory", "index", "--agent", "alpha"] and "--force" not in call
    assert f"STATE={scenario.state} CONFIG={scenario.config_path}" in call
    # The fake builds nothing: the index is judged again after the build, and still cold.
    alpha = report["agents"][0]
    assert (alpha["status"], alpha["after"]["status"], alpha["command"]["indexedFiles"]) == (
        "failed",
        "cold",
        2,
    )
    assert "ended without error, but" in alpha["reason"] and code == 1
    assert report["agents"][1]["status"] == "warm"


def test_stale_agents_are_left_unless_asked_and_force_rebuilds(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path)
    for agent in ("alpha", "beta"):
        _warm(scenario, agent)
    (scenario.workspace("alpha") / "MEMORY.md").write_text("# Memory\nchanged\n", encoding="utf-8")
    log = _fake(scenario, tmp_path)
    code, report, _ = _json(["init-backends"], _env(scenario, log))
    assert code == 0 and calls(log) == []
    assert [a["status"] for a in report["agents"]] == ["stale", "warm"]
    assert "--include-stale indexes it now" in report["agents"][0]["reason"]
    _json(["init-backends", "--include-stale"], _env(scenario, log))
    assert [c.split()[1:5] for c in calls(log)] == [["memory", "index", "--agent", "alpha"]]
    _json(["init-backends", "--force"], _env(scenario, log))
    assert [c.split()[1:6] for c in calls(log)[1:]] == [
        ["memory", "index", "--agent", "alpha", "--force"],
        ["memory", "index", "--agent", "beta", "--force"],
    ]


def test_a_crash_fails_the_agent_with_openclaws_message(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path, agents=("alpha",))
    log = _fake(scenario, tmp_path)
    result = run_memwarm([*P3, "init-backends"], _env(scenario, log, FAKE_OPENCLAW_MODE="crash"))
    assert result.returncode == 1
    failed = 'builtin memory index failed for agent "alpha": `openclaw memory index --agent alpha` failed'
    assert f'{failed} (exit 1): Unknown agent id "x"' in result.stderr


def test_a_hang_is_ended_at_the_timeout(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path, agents=("alpha",))
    log = _fake(scenario, tmp_path)
    code, report, _ = _json(
        ["init-backends", "--timeout", "1"], _env(scenario, log, FAKE_OPENCLAW_MODE="hang")
    )
    assert code == 1 and report["agents"][0]["command"]["timedOut"] is True
    assert "timed out after 1s" in report["agents"][0]["reason"]
    pid = int(calls(log)[0].split()[0])
    assert not process_alive(pid)


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_signal_ends_the_build_and_reports(tmp_path: Path, sig: int, code: int) -> None:
    scenario = _scenario(tmp_path)
    log = _fake(scenario, tmp_path)
    proc = subprocess.Popen(
        [MEMWARM, *P3, "init-backends", "--json"],
        env=_env(scenario, log, FAKE_OPENCLAW_MODE="hang"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=DEFAULT_SIGNALS,
    )
    try:
        wait_for_marker(proc, Path(str(log) + ".started"), "openclaw memory index")
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == code, err
    report = json.loads(out)
    assert report["interrupted"] == signal.Signals(sig).name
    assert [a["status"] for a in report["agents"]] == ["failed", "cold"]  # beta never started
    assert "interrupted" in report["agents"][0]["reason"] and len(calls(log)) == 1
    pid = int(calls(log)[0].split()[0])
    deadline = time.monotonic() + 30
    while process_alive(pid) and time.monotonic() < deadline:  # a guard, not a timing
        time.sleep(0.05)
    assert not process_alive(pid)


def test_the_provider_notice_comes_before_a_build_that_embeds(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path, {"provider": "openai"}, agents=("alpha",))
    log = _fake(scenario, tmp_path)
    result = run_memwarm([*P3, "init-backends"], _env(scenario, log))
    notice = (
        'building the index of "alpha" will call your embedding provider openai, model text-embedding-3-small'
    )
    assert notice in result.stderr
    assert result.stderr.index(notice) < result.stderr.index('for agent "alpha"')


def test_a_dry_run_shows_the_plan_and_runs_nothing(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path)
    _warm(scenario, "beta")
    log = _fake(scenario, tmp_path)
    result = run_memwarm([*P3, "init-backends", "--dry-run"], _env(scenario, log))
    assert result.returncode == 0 and calls(log) == []
    assert 'agent "alpha": build (no index yet:' in result.stdout
    assert "  $ openclaw memory index --agent alpha" in result.stdout
    assert f"OPENCLAW_STATE_DIR={scenario.state}" in result.stdout
    assert 'agent "beta": warm: ' in result.stdout
    assert not agent_db(scenario.state, "alpha").exists()
    scenario.path_dirs = []
    without = run_memwarm([*P3, "init-backends", "--dry-run"], _env(scenario))
    assert "a real run would build nothing: OpenClaw is not installed" in without.stderr


def test_status_on_a_terminal_shows_the_builtin_table(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path)
    _warm(scenario, "beta")
    screen = " ".join(strip_ansi(run_in_terminal([*P3, "status"], _env(scenario), 100)).split())
    assert "memwarm status" in screen and "provider" in screen
    assert "alpha │ cold │ none" in screen and "beta │ warm │ none │ 2 │ 0" in screen
    assert "2 agents: 1 warm, 1 cold (builtin memory index)" in screen


def test_init_backends_on_a_terminal_shows_the_build_in_progress(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path, agents=("alpha",))
    log = _fake(scenario, tmp_path)
    screen = strip_ansi(
        run_in_terminal(
            [*P3, "init-backends", "--timeout", "1"], _env(scenario, log, FAKE_OPENCLAW_MODE="hang"), 100
        )
    )
    assert "openclaw memory index" in screen and "(timeout 1.0s)" in screen  # the live display
    assert 'builtin memory index failed for agent "alpha"' in screen


def test_an_installed_qmd_release_is_not_started(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path, agents=("alpha",))
    scenario.path_dirs = [install_fake_openclaw(tmp_path / "fake", version="2026.6.35")]
    log = tmp_path / "openclaw-calls.log"
    result = run_memwarm([*P3, "init-backends"], _env(scenario, log))
    assert result.returncode == 1 and calls(log) == []
    assert "is OpenClaw 2026.6.35, a release with qmd and no builtin memory index" in result.stderr


def test_another_installed_release_is_named_before_it_builds(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path, agents=("alpha",))
    scenario.path_dirs = [install_fake_openclaw(tmp_path / "fake", version="2026.8.2")]
    log = tmp_path / "openclaw-calls.log"
    result = run_memwarm([*P3, "init-backends"], _env(scenario, log))
    assert len(calls(log)) == 1
    assert "the openclaw that builds is OpenClaw 2026.8.2 (P2), while this run judges" in result.stderr


def test_a_quiet_run_says_which_index_openclaw_will_not_search(tmp_path: Path) -> None:
    """-q (cron): an `invalid` identity pauses OpenClaw's search until a forced rebuild, so the run
    says so in one line, beside a warm agent too, and exits 4; a run with every agent warm stays silent."""
    scenario = _scenario(tmp_path)
    log = _fake(scenario, tmp_path)
    _warm(scenario, "beta")
    rows = [row_for(scenario.workspace("alpha"), r) for r in NOTES]
    build_index(agent_db(scenario.state, "alpha"), {**NONE_META, "chunkingVersion": 4}, rows)
    result = run_memwarm([*P3, "init-backends", "-q"], _env(scenario, log))
    assert result.returncode == 4 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        'init-backends: 1 index OpenClaw will not search ("alpha"): '
    )
    assert "--force" in lines[0]
    agent_db(scenario.state, "alpha").unlink()
    _warm(scenario, "alpha")
    quiet = run_memwarm([*P3, "init-backends", "-q"], _env(scenario, log))
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")
