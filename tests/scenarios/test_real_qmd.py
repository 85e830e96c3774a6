"""init-backends with the real qmd 2.8.3 (tools/bin, from `make tools`). Never skipped under CI.

The two-agent scenario is built and run once per module (cold run), then the tests look at it and
change it in order: a second run is fresh, an edited note is found after the next run.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.backends.support import (
    Scenario,
    by_agent,
    make_scenario,
    real_qmd_scenario,
    require_real_qmd,
    search_files,
)
from tests.conftest import TOOLS_BIN, CliResult

pytestmark = pytest.mark.qmd


@pytest.fixture(scope="module")
def two_agents(tmp_path_factory: pytest.TempPathFactory) -> tuple[Scenario, CliResult, dict[str, Any]]:
    root = tmp_path_factory.mktemp("real-qmd")
    extra = root / "ops-extra"
    extra.mkdir()
    (extra / "runbook.md").write_text("# Runbook\nRestart the walrus scheduler nightly.\n", encoding="utf-8")
    scenario = real_qmd_scenario(
        root,
        {
            "main": {
                "MEMORY.md": "# Main memory\nThe pelican project ships on Fridays.\n",
                "memory/2026-01-01.md": "# Day\nQuokka handshake protocol agreed.\n",
            },
            "ops": {
                "memory/ops.md": "# Ops\nZebra failover drill every Tuesday.\n",
                "notes/custom.md": "# Custom\nThe narwhal dashboard lives in notes.\n",
            },
        },
        {
            "memory": {"backend": "qmd", "qmd": {"paths": [{"path": "notes", "name": "notes"}]}},
            "agents": {"list": [{"id": "ops", "memorySearch": {"extraPaths": [str(extra)]}}]},
        },
    )
    result, report = scenario.run_json()
    return scenario, result, report


def test_cold_run_arms_every_agent(two_agents: tuple[Scenario, CliResult, dict[str, Any]]) -> None:
    scenario, result, report = two_agents
    assert result.returncode == 0, result.stderr
    agents = by_agent(report)
    assert [a["status"] for a in report["agents"]] == ["armed", "armed"]
    assert 'qmd memory startup initialization armed for agent "main"' in result.stderr
    assert 'qmd memory startup initialization armed for agent "ops"' in result.stderr
    assert result.stderr.strip().splitlines()[-1].startswith("init-backends: 2 agents in ")
    for agent_id in ("main", "ops"):
        index = Path(agents[agent_id]["indexPath"])
        assert index == scenario.qmd_dir(agent_id) / "xdg-cache" / "qmd" / "index.sqlite"
        assert index.is_file()
        assert scenario.fingerprint(agent_id).is_file()
        actions = {c["name"]: c["action"] for c in agents[agent_id]["collections"]}
        missing = {"notes-main"} if agent_id == "main" else set()  # main has no notes/: not created
        assert {name for name, action in actions.items() if action != "added"} == missing, actions
        argvs = [c["argv"][1:3] for c in agents[agent_id]["commands"]]
        assert ["collection", "list"] in argvs and ["update"] in argvs
        assert all(c["exitCode"] == 0 and c["durationMs"] >= 0 for c in agents[agent_id]["commands"])
    assert [c["name"] for c in agents["main"]["collections"]] == [
        "memory-root-main",
        "memory-dir-main",
        "notes-main",
    ]
    assert [c["name"] for c in agents["ops"]["collections"]] == [
        "memory-root-ops",
        "memory-dir-ops",
        "notes-ops",
        "custom-2-ops",
    ]
    assert report["durationMs"] > 0
    # The workspace is never written: main's configured notes/ is reported missing, not created.
    assert sorted(p.name for p in scenario.workspace("main").iterdir()) == ["MEMORY.md", "memory"]
    notes_main = by_name(agents["main"]["collections"])["notes-main"]
    notes_dir = scenario.workspace("main") / "notes"
    assert (
        notes_main["detail"]
        == f"qmd collection add skipped for notes-main: path does not exist ({notes_dir}); memwarm does "
        "not create it, the gateway creates it and adds the collection at first use"
    )


def test_collections_live_in_the_agents_own_xdg_home(
    two_agents: tuple[Scenario, CliResult, dict[str, Any]],
) -> None:
    scenario, _, _ = two_agents
    listing = scenario.qmd("main", "collection", "list")
    assert listing.returncode == 0, listing.stderr
    assert "memory-root-main (qmd://memory-root-main/)" in listing.stdout
    assert "memory-dir-main (qmd://memory-dir-main/)" in listing.stdout
    assert "-ops" not in listing.stdout
    index_yml = scenario.qmd_dir("main") / "xdg-config" / "qmd" / "index.yml"
    assert "memory-dir-main" in index_yml.read_text()


def test_search_finds_the_agents_notes_and_not_the_others(
    two_agents: tuple[Scenario, CliResult, dict[str, Any]],
) -> None:
    scenario, _, _ = two_agents
    assert search_files(scenario.qmd("main", "search", "quokka", "--json", "-n", "5")) == [
        "qmd://memory-dir-main/2026-01-01.md"
    ]
    assert search_files(scenario.qmd("main", "search", "pelican", "--json", "-n", "5")) == [
        "qmd://memory-root-main/MEMORY.md"
    ]
    assert search_files(scenario.qmd("main", "search", "zebra", "--json", "-n", "5")) == []
    assert search_files(scenario.qmd("ops", "search", "zebra", "--json", "-n", "5")) == [
        "qmd://memory-dir-ops/ops.md"
    ]
    assert search_files(scenario.qmd("ops", "search", "quokka", "--json", "-n", "5")) == []


def test_configured_custom_paths_are_indexed(two_agents: tuple[Scenario, CliResult, dict[str, Any]]) -> None:
    scenario, _, _ = two_agents
    assert search_files(scenario.qmd("ops", "search", "narwhal", "--json", "-n", "5")) == [
        "qmd://notes-ops/custom.md"
    ]
    assert search_files(scenario.qmd("ops", "search", "walrus", "--json", "-n", "5")) == [
        "qmd://custom-2-ops/runbook.md"
    ]


def test_second_run_is_fresh_and_cheap(two_agents: tuple[Scenario, CliResult, dict[str, Any]]) -> None:
    scenario, _, _ = two_agents
    result, report = scenario.run_json()
    assert result.returncode == 0, result.stderr
    assert [a["status"] for a in report["agents"]] == ["fresh", "fresh"]
    commands = [c["argv"][1:] for a in report["agents"] for c in a["commands"]]
    assert commands == []  # the qmd version is cached per executable; nothing else runs
    assert "(fresh: nothing changed since the last run)" in result.stderr

    forced, forced_report = scenario.run_json(["--force", "--agent", "ops"])
    assert forced.returncode == 0, forced.stderr
    assert [a["status"] for a in forced_report["agents"]] == ["armed"]
    assert all(c["action"] == "kept" for c in forced_report["agents"][0]["collections"])


def test_edited_note_is_found_after_the_next_run(
    two_agents: tuple[Scenario, CliResult, dict[str, Any]],
) -> None:
    scenario, _, _ = two_agents
    note = scenario.workspace("main") / "memory" / "2026-01-01.md"
    note.write_text("# Day\nQuokka handshake protocol agreed.\nFlamingo budget approved.\n", encoding="utf-8")
    os.utime(note, ns=(time.time_ns(), time.time_ns() + 1_000_000))  # mtime moves even on coarse clocks
    assert search_files(scenario.qmd("main", "search", "flamingo", "--json", "-n", "5")) == []
    result, report = scenario.run_json(["--probe"])
    assert result.returncode == 0, result.stderr
    agents = by_agent(report)
    assert agents["main"]["status"] == "armed"
    assert agents["ops"]["status"] == "fresh"
    assert agents["main"]["probe"]["answered"] is True
    assert agents["main"]["probe"]["latencyMs"] >= 0
    # The human log line says what the probe found, with the report's own figures.
    for agent_id, state in (("main", ""), ("ops", "fresh: nothing changed since the last run; ")):
        probe = agents[agent_id]["probe"]
        hits = {0: ", no match", 1: ", a match"}.get(probe["hits"], f", {probe['hits']} matches")
        line = (
            f'qmd memory startup initialization armed for agent "{agent_id}" '
            f"({state}probe: answered in {probe['latencyMs']} ms{hits})"
        )
        assert line in result.stderr.splitlines(), result.stderr
    assert search_files(scenario.qmd("main", "search", "flamingo", "--json", "-n", "5")) == [
        "qmd://memory-dir-main/2026-01-01.md"
    ]


def test_missing_memory_dir_is_not_created_and_is_added_once_it_appears(tmp_path: Path) -> None:
    """memwarm never writes into a workspace: no memory/ means no memory-dir collection yet, not a failure."""
    scenario = real_qmd_scenario(
        tmp_path, {"main": {"MEMORY.md": "# M\nPelican.\n"}}, {"memory": {"backend": "qmd"}}
    )
    memory = scenario.workspace("main") / "memory"

    def actions(report: dict[str, Any]) -> dict[str, str]:
        return {c["name"]: c["action"] for c in report["agents"][0]["collections"]}

    planned, plan = scenario.run_json(["--dry-run"])
    assert planned.returncode == 0, planned.stderr
    assert actions(plan) == {"memory-root-main": "add", "memory-dir-main": "missing"}
    assert not any(str(memory) in c["argv"] for c in plan["agents"][0]["planned"])

    result, report = scenario.run_json()
    assert result.returncode == 0, result.stderr
    assert report["agents"][0]["status"] == "armed"
    assert actions(report) == {"memory-root-main": "added", "memory-dir-main": "missing"}
    assert not memory.exists()

    result, report = scenario.run_json()
    assert (report["agents"][0]["status"], actions(report)["memory-dir-main"]) == ("fresh", "missing")
    assert not memory.exists()

    memory.mkdir()  # an empty memory/ appearing is noticed: the collection is added
    result, report = scenario.run_json()
    assert result.returncode == 0, result.stderr
    assert report["agents"][0]["status"] == "armed"
    assert actions(report) == {"memory-root-main": "kept", "memory-dir-main": "added"}

    (memory / "2026-02-02.md").write_text("# Day\nAxolotl rollout approved.\n", encoding="utf-8")
    result, report = scenario.run_json()
    assert result.returncode == 0, result.stderr
    assert report["agents"][0]["status"] == "armed"
    assert search_files(scenario.qmd("main", "search", "axolotl", "--json", "-n", "5")) == [
        "qmd://memory-dir-main/2026-02-02.md"
    ]


def test_note_in_a_memory_dir_created_later_is_searchable(tmp_path: Path) -> None:
    """Run, then create memory/ with a note, run again: collection added, the note searchable."""
    scenario = real_qmd_scenario(
        tmp_path, {"main": {"MEMORY.md": "# M\nPelican.\n"}}, {"memory": {"backend": "qmd"}}
    )
    first, _ = scenario.run_json()
    assert first.returncode == 0, first.stderr
    memory = scenario.workspace("main") / "memory"
    assert not memory.exists()
    memory.mkdir()
    (memory / "n.md").write_text("# N\nCapybara treaty signed.\n", encoding="utf-8")
    result, report = scenario.run_json()
    assert result.returncode == 0, result.stderr
    collections = {c["name"]: c["action"] for c in report["agents"][0]["collections"]}
    assert collections["memory-dir-main"] == "added"
    assert search_files(scenario.qmd("main", "search", "capybara", "--json", "-n", "5")) == [
        "qmd://memory-dir-main/n.md"
    ]


def test_moved_workspace_rebinds_the_collections(tmp_path: Path) -> None:
    require_real_qmd()
    scenario = make_scenario(tmp_path, {"solo": {"memory/a.md": "# A\nOcelot migration notes.\n"}}, {})
    scenario.config["memory"] = {"backend": "qmd"}
    scenario.write_config()
    scenario.path_dirs = [TOOLS_BIN]
    first, _ = scenario.run_json()
    assert first.returncode == 0, first.stderr

    moved = tmp_path / "moved-ws"
    scenario.workspace("solo").rename(moved)
    scenario.agents["solo"] = moved
    scenario.config["agents"]["list"][0]["workspace"] = str(moved)
    scenario.write_config()
    second, report = scenario.run_json()
    assert second.returncode == 0, second.stderr
    actions = {c["name"]: c["action"] for c in report["agents"][0]["collections"]}
    assert actions == {"memory-root-solo": "rebound", "memory-dir-solo": "rebound"}
    assert search_files(scenario.qmd("solo", "search", "ocelot", "--json", "-n", "5")) == [
        "qmd://memory-dir-solo/a.md"
    ]
    show = scenario.qmd("solo", "collection", "show", "memory-dir-solo")
    assert f"Path:     {moved / 'memory'}" in show.stdout


def test_conflicts_unmanaged_collections_are_never_removed(tmp_path: Path) -> None:
    require_real_qmd()
    scenario = make_scenario(tmp_path, {"main": {"MEMORY.md": "# M\nKestrel.\n", "memory/x.md": "x"}}, {})
    scenario.config["memory"] = {"backend": "qmd"}
    scenario.write_config()
    scenario.path_dirs = [TOOLS_BIN]
    workspace = scenario.workspace("main")
    (scenario.qmd_dir("main") / "xdg-config" / "qmd").mkdir(parents=True)
    (scenario.qmd_dir("main") / "xdg-cache" / "qmd").mkdir(parents=True)
    # The user's own collection on the same path and pattern as memory-root-main: left alone, agent failed.
    made = scenario.qmd("main", "collection", "add", str(workspace), "--name", "mine", "--mask", "MEMORY.md")
    assert made.returncode == 0, made.stderr
    result, report = scenario.run_json()
    assert result.returncode == 1
    agent = report["agents"][0]
    assert agent["status"] == "failed"
    assert "already bound by mine" in agent["reason"]
    assert by_name(agent["collections"])["memory-root-main"]["action"] == "conflict"
    assert by_name(agent["collections"])["memory-dir-main"]["action"] == "added"
    assert "mine (qmd://mine/)" in scenario.qmd("main", "collection", "list").stdout
    assert not scenario.fingerprint("main").exists()

    # The gateway's old memory-alt-<id> name is managed: it is taken over.
    removed = scenario.qmd("main", "collection", "remove", "mine")
    assert removed.returncode == 0, removed.stderr
    alt = scenario.qmd(
        "main", "collection", "add", str(workspace), "--name", "memory-alt-main", "--mask", "MEMORY.md"
    )
    assert alt.returncode == 0, alt.stderr
    (scenario.qmd("main", "collection", "remove", "memory-root-main"))
    result, report = scenario.run_json()
    assert result.returncode == 0, result.stderr
    assert by_name(report["agents"][0]["collections"])["memory-root-main"]["action"] == "rebound"
    assert "memory-alt-main" not in scenario.qmd("main", "collection", "list").stdout


def test_a_collection_no_longer_configured_is_kept_with_a_warning_once(tmp_path: Path) -> None:
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "old.md").write_text("# Old\nThe axolotl archive moved.\n", encoding="utf-8")
    scenario = real_qmd_scenario(
        tmp_path,
        {"main": {"memory/a.md": "# A\n"}},
        {
            "memory": {"backend": "qmd"},
            "agents": {"list": [{"id": "main", "memorySearch": {"extraPaths": [str(extra)]}}]},
        },
    )
    result, report = scenario.run_json()
    assert result.returncode == 0, result.stderr
    (dropped,) = [c["name"] for c in report["agents"][0]["collections"] if c["kind"] != "default"]
    scenario.config["agents"]["list"][0].pop("memorySearch")
    scenario.write_config()
    warning = f"qmd collection {dropped} is no longer configured but stays in the index"
    result, report = scenario.run_json()
    assert result.returncode == 0, result.stderr
    assert any(w.startswith(warning) for w in report["agents"][0]["warnings"])
    assert f"[main] {warning}" in result.stderr
    # Left in place, as the gateway leaves it: its notes are still found.
    assert search_files(scenario.qmd("main", "search", "axolotl", "--json", "-n", "5")) == [
        f"qmd://{dropped}/old.md"
    ]
    (scenario.workspace("main") / "memory" / "b.md").write_text("# B\n", encoding="utf-8")
    result, report = scenario.run_json()
    assert report["agents"][0]["status"] == "armed" and report["agents"][0]["warnings"] == []


def by_name(collections: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in collections}


def test_offline_embed_times_out_and_degrades(tmp_path: Path) -> None:
    """qmd embed cannot download its model here and hangs: the timeout kills it; BM25 still works."""
    require_real_qmd()
    scenario = make_scenario(tmp_path, {"main": {"memory/a.md": "# A\nHeron census.\n"}}, {})
    scenario.config["memory"] = {
        "backend": "qmd",
        "qmd": {"searchMode": "vsearch", "update": {"embedTimeoutMs": 1500}},
    }
    scenario.write_config()
    scenario.path_dirs = [TOOLS_BIN]
    result, report = scenario.run_json()
    assert result.returncode == 4, result.stderr
    agent = report["agents"][0]
    assert agent["status"] == "degraded"
    assert "qmd embed timed out after 1500ms" in agent["reason"]
    embed = [c for c in agent["commands"] if c["argv"][1:] == ["embed"]]
    assert embed and embed[0]["timedOut"] is True
    assert search_files(scenario.qmd("main", "search", "heron", "--json", "-n", "5")) == [
        "qmd://memory-dir-main/a.md"
    ]
    # The next run does not hang again: the embed is backing off, nothing else changed.
    again, report = scenario.run_json()
    assert again.returncode == 4
    assert report["agents"][0]["status"] == "degraded"
    assert "next attempt in" in report["agents"][0]["reason"]
    assert report["agents"][0]["commands"] == []


def test_dry_run_touches_nothing(tmp_path: Path) -> None:
    scenario = real_qmd_scenario(tmp_path, {"main": {"MEMORY.md": "m"}}, {"memory": {"backend": "qmd"}})
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    result = scenario.run(["--dry-run", "--embed", "--probe"])
    assert result.returncode == 0, result.stderr
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before
    qmd_dir = scenario.qmd_dir("main")
    out = result.stdout
    assert f"cwd: {scenario.workspace('main')}" in out
    assert f"XDG_CONFIG_HOME={qmd_dir / 'xdg-config'}" in out
    assert f"XDG_CACHE_HOME={qmd_dir / 'xdg-cache'}" in out
    assert f"QMD_CONFIG_DIR={qmd_dir / 'xdg-config' / 'qmd'}" in out
    assert "NO_COLOR=1" in out
    ws = scenario.workspace("main")
    assert f"$ qmd collection add {ws} --name memory-root-main --mask MEMORY.md" in out
    assert "$ qmd update" in out and "$ qmd search memory" in out
    assert "$ qmd embed  # one at a time per state dir\n" in out  # the embed lock is per state dir
    _, report = scenario.run_json(["--dry-run"])
    assert report["agents"][0]["status"] == "planned"
    assert report["agents"][0]["planned"][0]["env"]["NO_COLOR"] == "1"
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before


def test_json_report_shape(two_agents: tuple[Scenario, CliResult, dict[str, Any]]) -> None:
    _, _, report = two_agents
    assert set(report) >= {"agents", "durationMs", "summary", "exitCode", "configPath", "stateDir"}
    agent = report["agents"][0]
    assert set(agent) >= {
        "agentId",
        "status",
        "reason",
        "workspace",
        "indexPath",
        "collections",
        "commands",
        "durationMs",
        "backendSource",
    }
    assert set(agent["commands"][0]) >= {"argv", "exitCode", "durationMs"}
    assert set(agent["collections"][0]) >= {"name", "path", "pattern", "action"}
    json.dumps(report)


def test_toolchain_runs_qmd_on_node_22_whatever_node_is_on_path() -> None:
    qmd = require_real_qmd()
    node = subprocess.run([str(TOOLS_BIN / "node"), "--version"], capture_output=True, text=True, check=True)
    assert node.stdout.startswith("v22.")
    # The machine's own node (v20) first on PATH must not matter: the launcher pins tools/bin/node.
    env = {**os.environ, "PATH": "/usr/bin:/bin"}
    version = subprocess.run([str(qmd), "--version"], capture_output=True, text=True, env=env, check=False)
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("qmd 2.8.3")


def test_dry_run_plans_exactly_the_commands_a_cold_run_runs(tmp_path: Path) -> None:
    """One list of steps: the plan's argv are the run's, in order, down to the probe's collections
    (a collection whose directory is missing is not added, so it is not searched either)."""
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "n.md").write_text("# N\nMarmot.\n", encoding="utf-8")
    config = {
        "memory": {"backend": "qmd"},
        "agents": {"defaults": {"memorySearch": {"extraPaths": [str(extra), str(tmp_path / "gone")]}}},
    }
    scenario = real_qmd_scenario(tmp_path, {"main": {"MEMORY.md": "# M\nPelican.\n"}}, config)
    planned, plan = scenario.run_json(["--dry-run", "--probe"])
    assert planned.returncode == 0, planned.stderr
    result, report = scenario.run_json(["--probe"])
    assert result.returncode == 0, result.stderr
    ran = [c["argv"] for c in report["agents"][0]["commands"]]
    assert [c["argv"] for c in plan["agents"][0]["planned"]] == ran
    search = ran[-1]
    assert search[:2] == ["qmd", "search"] and "memory-dir-main" not in search and "custom-1-main" in search
    actions = {c["name"]: c["action"] for c in plan["agents"][0]["collections"]}
    assert actions == {
        "memory-root-main": "add",
        "memory-dir-main": "missing",
        "custom-1-main": "add",
        "custom-2-main": "missing",
    }


def test_collection_list_prints_text_even_with_json(
    two_agents: tuple[Scenario, CliResult, dict[str, Any]],
) -> None:
    """qmd 2.8.3 ignores `--json` here: memwarm parses only the text blocks (and reads index.yml)."""
    from memwarm_cli.backends.qmd import qmd_commands
    from memwarm_cli.backends.qmd.qmd_output import parse_collection_list

    scenario, _, _ = two_agents
    listing = scenario.qmd("main", *qmd_commands.collection_list_args())
    assert listing.returncode == 0, listing.stderr
    assert "--json" in qmd_commands.collection_list_args()
    assert not listing.stdout.lstrip().startswith(("[", "{"))
    assert set(parse_collection_list(listing.stdout)) >= {"memory-root-main", "memory-dir-main"}
