"""On a release without the qmd backend (2026.8.1 and later: P2, P3), `init-backends`, `status` and
`search` run no qmd, create nothing under the state dir and exit 6, each agent `retired` with a line
naming the release; on 2026.6.35 the same config is worked on as before.

qmd here is a fake on PATH that only records that it was called (a real executable, appending to a log):
on P2/P3 the log must stay absent; the 6.35 control shows that the same runs on P0 do call it.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.backends.support import Scenario, make_scenario, real_qmd_scenario
from tests.conftest import run_in_terminal, run_memwarm, strip_ansi

AGENTS = ("alpha", "beta")
NOTES = {"MEMORY.md": "# Memory\nThe heron project ships on Fridays.\n", "memory/2026-04-11.md": "# Heron\n"}
QMD_CONFIG: dict[str, Any] = {"memory": {"backend": "qmd", "qmd": {"searchMode": "search"}}}
RELEASES = [("2026.8.2", "P2"), ("2026.9.6", "P3")]
RETIRED_EXIT = 6
RECORDING_QMD = '#!/bin/sh\nprintf "%s\\n" "$*" >> "$QMD_CALLS"\nexit 0\n'


def _scenario(tmp_path: Path, config: dict[str, Any] | None = None) -> Scenario:
    scenario = make_scenario(tmp_path / "s", dict.fromkeys(AGENTS, NOTES), dict(config or QMD_CONFIG))
    scenario.config["agents"]["list"][0]["default"] = True  # the agent `search` takes without --agent
    scenario.write_config()
    fake = tmp_path / "fakebin"
    fake.mkdir()
    script = fake / "qmd"
    script.write_text(RECORDING_QMD, encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    scenario.path_dirs = [fake]
    return scenario


def _env(scenario: Scenario, tmp_path: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    return scenario.env({"QMD_CALLS": str(tmp_path / "qmd-calls.log"), **(extra or {})})


def _calls(tmp_path: Path) -> list[str]:
    log = tmp_path / "qmd-calls.log"
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []


def _tree(root: Path) -> dict[str, tuple[int, int, str]]:
    """Every entry under `root`: its mode, mtime and (files) content hash."""
    found: dict[str, tuple[int, int, str]] = {}
    for directory, dirs, files in os.walk(root):
        for name in [*dirs, *files]:
            path = Path(directory, name)
            info = path.lstat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if stat.S_ISREG(info.st_mode) else ""
            found[str(path.relative_to(root))] = (info.st_mode, info.st_mtime_ns, digest)
    return found


def _qmd_dir(scenario: Scenario, agent: str) -> Path:
    return scenario.state / "agents" / agent / "qmd"


@pytest.mark.parametrize(("version", "profile"), RELEASES)
def test_init_backends_retires_every_agent_and_touches_nothing(
    tmp_path: Path, version: str, profile: str
) -> None:
    scenario = _scenario(tmp_path)
    env = _env(scenario, tmp_path)
    before = _tree(scenario.root)

    run = run_memwarm(["--openclaw", version, "init-backends"], env)
    assert run.returncode == RETIRED_EXIT, run.stderr
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    for agent in AGENTS:
        line = next(x for x in lines if x.startswith(f'agent "{agent}": retired: '))
        assert f"OpenClaw {version} ({profile}) has no qmd backend: it was removed in 2026.8.1" in line
        assert f"`openclaw doctor --fix` deletes {_qmd_dir(scenario, agent)}/" in line
        assert "refuses this config while it has memory.backend, memory.qmd" in line
    assert lines[-1].startswith('init-backends: 2 agents: 2 retired ("alpha", "beta")')

    quiet = run_memwarm(["init-backends", "-q", "--openclaw", version], env)  # after the command too
    # -q still says, in one line, that nothing was warmed and what to do: a cron job never goes silent.
    assert (quiet.returncode, quiet.stdout) == (RETIRED_EXIT, "")
    assert quiet.stderr == (
        f"init-backends: no agent could be warmed: OpenClaw {version} ({profile}) has no qmd backend and the "
        "config still sets it up (memory.backend, memory.qmd); `openclaw doctor --fix` moves it to the "
        "builtin index, which init-backends then builds\n"
    )

    result = run_memwarm(["--openclaw", version, "init-backends", "--json", "--force", "--probe"], env)
    assert result.returncode == RETIRED_EXIT, result.stderr
    report = json.loads(result.stdout)
    assert report["openclaw"]["version"] == version and report["openclaw"]["profile"] == profile
    assert (report["schema"], report["command"], report["exitCode"]) == (1, "init-backends", RETIRED_EXIT)
    assert report["dryRun"] is False
    assert report["summary"]["retired"] == 2 and report["summary"]["armed"] == 0
    assert report["retired"]["removedIn"] == "2026.8.1"
    assert report["retired"]["refusedConfigKeys"] == ["memory.backend", "memory.qmd"]
    assert report["stateDir"] == str(scenario.state)
    assert [a["agentId"] for a in report["agents"]] == list(AGENTS)
    for entry in report["agents"]:
        qmd_dir = _qmd_dir(scenario, entry["agentId"])
        assert entry["status"] == "retired"
        assert entry["reason"].startswith(f"OpenClaw {version} ({profile}) has no qmd backend")
        assert entry["qmdDir"] == str(qmd_dir)
        assert entry["indexPath"] == str(qmd_dir / "xdg-cache" / "qmd" / "index.sqlite")
        assert (entry["qmdDirExists"], entry["indexExists"]) == (False, False)
        assert entry["workspace"] == str(scenario.workspace(entry["agentId"]))

    assert _tree(scenario.root) == before  # no lock, record, export or directory
    assert _calls(tmp_path) == []  # not even `qmd --version`


@pytest.mark.parametrize(("version", "profile"), RELEASES)
def test_a_dry_run_shows_the_agents_retired_and_runs_no_qmd(
    tmp_path: Path, version: str, profile: str
) -> None:
    scenario = _scenario(tmp_path)
    env = _env(scenario, tmp_path)
    before = _tree(scenario.root)
    plan = run_memwarm(["--openclaw", version, "init-backends", "--dry-run", "--agent", "beta"], env)
    assert plan.returncode == RETIRED_EXIT, plan.stderr
    (line,) = plan.stdout.splitlines()
    assert line.startswith(f'agent "beta": retired: OpenClaw {version} ({profile}) has no qmd backend')
    assert "nothing to plan (dry run)" in plan.stderr
    as_json = run_memwarm(["--openclaw", version, "init-backends", "--dry-run", "--json"], env)
    assert as_json.returncode == RETIRED_EXIT
    report = json.loads(as_json.stdout)
    assert report["dryRun"] is True and {a["status"] for a in report["agents"]} == {"retired"}
    assert "planned" not in report["agents"][0]  # no qmd command to plan
    assert _tree(scenario.root) == before
    assert _calls(tmp_path) == []


@pytest.mark.parametrize(("version", "profile"), RELEASES)
def test_status_reports_retired_in_every_view(tmp_path: Path, version: str, profile: str) -> None:
    scenario = _scenario(tmp_path)
    env = _env(scenario, tmp_path)
    before = _tree(scenario.root)

    plain = run_memwarm(["--openclaw", version, "status"], env)
    assert plain.returncode == RETIRED_EXIT, plain.stderr
    header, *rows = plain.stdout.splitlines()
    assert header.split("\t")[:2] == ["agent", "status"]
    assert [row.split("\t")[:2] for row in rows] == [[a, "retired"] for a in AGENTS]
    assert all(row.split("\t")[-1].startswith(f"OpenClaw {version} ({profile}) has no qmd") for row in rows)
    assert all(len(row.split("\t")) == len(header.split("\t")) for row in rows)
    assert plain.stderr.startswith("# status: 2 agents: 2 retired")

    report = json.loads(run_memwarm(["--openclaw", version, "status", "--json"], env).stdout)
    assert (report["command"], report["exitCode"], report["openclaw"]["profile"]) == ("status", 6, profile)
    assert report["summary"]["retired"] == 2 and report["summary"]["warm"] == 0
    for entry in report["agents"]:
        assert entry["status"] == "retired"
        assert len(entry["why"]) == 1 and f"OpenClaw {version} ({profile})" in entry["why"][0]
        expected = str(_qmd_dir(scenario, entry["agentId"]) / "xdg-cache" / "qmd" / "index.sqlite")
        assert entry["index"] == {"indexPath": expected, "exists": False}

    prom = run_memwarm(["--openclaw", version, "status", "--format", "prometheus"], env)
    assert prom.returncode == RETIRED_EXIT, prom.stderr
    families = {f.name: f for f in text_string_to_metric_families(prom.stdout)}
    statuses = {
        (s.labels["agent"], s.labels["status"]): s.value for s in families["memwarm_agent_status"].samples
    }
    for agent in AGENTS:
        assert statuses[(agent, "retired")] == 1
        assert statuses[(agent, "warm")] == statuses[(agent, "failed")] == 0
    assert "retired" in families["memwarm_agent_status"].documentation  # the value is documented
    assert families["memwarm_agent_warm"].samples == []
    assert [s.value for s in families["memwarm_status_ok"].samples] == [1]

    textfile = tmp_path / "memwarm.prom"
    quiet = run_memwarm(["--openclaw", version, "status", "--textfile", str(textfile)], env)
    assert (quiet.returncode, quiet.stdout) == (RETIRED_EXIT, "")
    assert textfile.read_text(encoding="utf-8") == prom.stdout

    assert _tree(scenario.root) == before
    assert _calls(tmp_path) == []


def test_status_on_a_terminal_shows_the_retired_table(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path)
    screen = strip_ansi(run_in_terminal(["--openclaw", "2026.9.6", "status"], _env(scenario, tmp_path), 100))
    assert "memwarm status" in screen and "retired" in screen
    assert "OpenClaw 2026.9.6 (P3) has no qmd" in " ".join(screen.split())
    assert _calls(tmp_path) == []


@pytest.mark.parametrize(("version", "profile"), RELEASES)
def test_search_refuses_with_one_line(tmp_path: Path, version: str, profile: str) -> None:
    scenario = _scenario(tmp_path)
    env = _env(scenario, tmp_path)
    before = _tree(scenario.root)
    for argv in (["search", "heron"], ["search", "--json", "--agent", "beta", "heron"]):
        result = run_memwarm(["--openclaw", version, *argv], env)
        assert result.returncode == RETIRED_EXIT, result.stderr
        assert result.stdout == ""
        (line,) = result.stderr.splitlines()
        assert line.startswith("memwarm: error: no qmd memory search for agent ")
        assert f"OpenClaw {version} ({profile}) has no qmd backend" in line
    assert 'agent "alpha"' in run_memwarm(["--openclaw", version, "search", "heron"], env).stderr
    assert _tree(scenario.root) == before
    assert _calls(tmp_path) == []


def test_an_index_already_there_is_reported_and_left_unchanged(tmp_path: Path) -> None:
    scenario = _scenario(tmp_path)
    index = _qmd_dir(scenario, "alpha") / "xdg-cache" / "qmd" / "index.sqlite"
    index.parent.mkdir(parents=True)
    index.write_bytes(b"an index of the 6.35 days")
    before = _tree(scenario.root)
    env = _env(scenario, tmp_path)
    init = run_memwarm(["--openclaw", "2026.9.6", "init-backends", "--json"], env)
    alpha, beta = json.loads(init.stdout)["agents"]
    assert (alpha["qmdDirExists"], alpha["indexExists"]) == (True, True)
    assert (
        f"deletes {_qmd_dir(scenario, 'alpha')}/ (an index is there and will be deleted)" in alpha["reason"]
    )
    assert (beta["qmdDirExists"], beta["indexExists"]) == (False, False)
    assert "will be deleted" not in beta["reason"]
    status = run_memwarm(["--openclaw", "2026.9.6", "status", "--json"], env)
    assert json.loads(status.stdout)["agents"][0]["index"]["exists"] is True
    assert _tree(scenario.root) == before
    assert index.read_bytes() == b"an index of the 6.35 days"
    assert _calls(tmp_path) == []


def test_a_2026_9_shaped_config_gets_the_builtin_index_not_retired(tmp_path: Path) -> None:
    """Without qmd keys there is nothing retired: 2026.9's only memory engine is its builtin index, which
    init-backends judges (cold: never built) and leaves unbuilt here, with no openclaw on the PATH."""
    scenario = _scenario(tmp_path)
    workspaces = {agent: str(scenario.workspace(agent)) for agent in AGENTS}
    scenario.config = {
        "memory": {"search": {"enabled": True}},
        "agents": {
            "ownership": "explicit",
            "defaults": {"systemAgent": {"agentId": "beta"}},
            "entries": {agent: {"workspace": path} for agent, path in workspaces.items()},
        },
    }
    scenario.write_config()
    env = _env(scenario, tmp_path)
    # No --openclaw: the config's shape chooses the newest profile.
    run = run_memwarm(["init-backends", "--json"], env)
    report = json.loads(run.stdout)
    assert report["openclaw"]["profile"] == "P3" and report["openclaw"]["source"] == "config-shape"
    assert [(a["agentId"], a["status"]) for a in report["agents"]] == [("alpha", "cold"), ("beta", "cold")]
    assert report["agents"][0]["workspace"] == workspaces["alpha"]
    assert report["backend"]["name"] == "builtin" and "retired" not in report
    assert run.returncode == 1 and "OpenClaw is not installed" in run.stderr
    search = run_memwarm(["search", "heron"], env)
    assert search.returncode == RETIRED_EXIT and 'agent "beta"' in search.stderr  # the system agent
    for argv in (
        ["prelude", "--agent", "alpha"],
        ["scan", "--agent", "alpha"],
        ["context", "--agent", "alpha"],
    ):
        assert run_memwarm(argv, env).returncode == 0, argv
    assert _calls(tmp_path) == []


@pytest.mark.parametrize("version", ["2026.8.2", "2026.9.6"])
def test_the_startup_commands_still_work_on_the_qmd_config(tmp_path: Path, version: str) -> None:
    scenario = _scenario(tmp_path)
    env = _env(scenario, tmp_path, {"MEMWARM_OPENCLAW": version})  # chosen from the environment
    for argv in (["prelude", "--agent", "beta"], ["scan", "--all-agents"], ["context", "--agent", "beta"]):
        result = run_memwarm(argv, env)
        assert result.returncode == 0, (argv, result.stderr)
    assert run_memwarm(["status"], env).returncode == RETIRED_EXIT
    assert _calls(tmp_path) == []


def test_on_2026_6_35_the_same_config_still_runs_qmd(tmp_path: Path) -> None:
    """The control: the recording qmd is called, and status is not `retired`."""
    scenario = _scenario(tmp_path)
    env = _env(scenario, tmp_path)
    result = run_memwarm(["--openclaw", "2026.6.35", "status", "--json"], env)
    assert result.returncode not in (0, RETIRED_EXIT), result.stderr  # the fake answers no version: failed
    assert {a["status"] for a in json.loads(result.stdout)["agents"]} == {"failed"}
    assert "--version" in _calls(tmp_path)


@pytest.mark.qmd
def test_an_index_built_on_6_35_is_named_on_9_6_and_kept(tmp_path: Path) -> None:
    """The real qmd builds the index on 2026.6.35; on 2026.9.6 status sees it and leaves it as it is."""
    scenario = real_qmd_scenario(tmp_path / "s", {"alpha": NOTES}, QMD_CONFIG)
    first = run_memwarm(["--openclaw", "2026.6.35", "init-backends", "-q"], scenario.env())
    assert first.returncode == 0, first.stderr
    assert run_memwarm(["--openclaw", "2026.6.35", "status", "-q"], scenario.env()).returncode == 0
    before = _tree(scenario.state)
    status = run_memwarm(["--openclaw", "2026.9.6", "status", "--json"], scenario.env())
    assert status.returncode == RETIRED_EXIT, status.stderr
    (agent,) = json.loads(status.stdout)["agents"]
    assert agent["status"] == "retired" and agent["index"]["exists"] is True
    assert "(an index is there and will be deleted)" in agent["why"][0]
    assert run_memwarm(["--openclaw", "2026.9.6", "init-backends", "-q"], scenario.env()).returncode == 6
    assert _tree(scenario.state) == before
