"""memwarm's builtin-index verdicts held to openclaw@2026.9.6 itself (issue 30).

`judged`: agents left cold, built and then changed (stale: a note changed, one new, one deleted), and
built and left alone (warm) by the release's own `openclaw memory index`, keyword-only
(`memory.search.provider: "none"`). memwarm's `status --json` must give, agent by agent, what the
release's `openclaw memory status --json` says: warm exactly where `dirty` is false, the same identity
status and the same count of indexed memory files; and `status` must write nothing in the state dir.
`unconfigured`: no provider set at all (9.6 then expects `openai`'s text-embedding-3-small and, with no
key, builds an FTS-only index that its `memory status` calls mismatched and dirty).
`warmed`: `memwarm init-backends` builds the cold agents, after which the release's own
`openclaw memory search --json` answers without the cold-build warning, where a cold agent's search
carries it; a note changed afterwards makes the agent stale, named.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.interop.openclaw96_run import (
    KEYWORD_ONLY,
    MainLineWorld,
    main_line_config,
    snapshot_files,
    write_notes,
)

# One worker builds each world once (the release's CLI costs seconds per call) and runs its tests in order.
pytestmark = [pytest.mark.interop, pytest.mark.xdist_group("openclaw-2026.9.6-builtin")]

NOTES = {
    "MEMORY.md": "# Memory\nThe quokka project ships in May.\n",
    "memory/2026-11-27.md": "# Standup\nWe fixed the pelican importer today.\n",
    "memory/2026-11-28-retro.md": "# Retro\nPelican imports need a retry.\n",
    "memory/notes/ocelot.md": "# Team\nThe ocelot rota is shared.\n",
}
COLD_BUILD_WARNING = "Automatic memory index repair was requested"


def _world(root: Path, agents: tuple[str, ...], search: dict[str, Any] | None) -> MainLineWorld:
    workspaces = {agent: root / f"ws-{agent}" for agent in agents}
    for workspace in workspaces.values():
        write_notes(workspace, NOTES)
    return MainLineWorld.create(root, main_line_config(workspaces, search))


def _memwarm_agents(world: MainLineWorld) -> dict[str, dict[str, Any]]:
    return {agent["agentId"]: agent for agent in world.memwarm_json("status")["agents"]}


def _memory_source(status: dict[str, Any]) -> dict[str, Any]:
    return next(count for count in status["sourceCounts"] if count["source"] == "memory")


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MainLineWorld]:
    world = _world(tmp_path_factory.mktemp("judged"), ("cold", "stale", "warm"), KEYWORD_ONLY)
    for agent in ("stale", "warm"):
        world.openclaw("memory", "index", "--agent", agent)
    stale = world.root / "ws-stale"
    (stale / "memory" / "2026-11-27.md").write_text("# Standup\nThe pelican importer is fixed.\n")
    (stale / "memory" / "2026-11-29.md").write_text("# New\nA walrus joined.\n")
    (stale / "memory" / "notes" / "ocelot.md").unlink()
    yield world


def test_status_verdicts_are_the_releases_dirty_flags(judged: MainLineWorld) -> None:
    release = judged.memory_status()
    mine = _memwarm_agents(judged)
    assert {agent: mine[agent]["status"] for agent in mine} == {
        "cold": "cold",
        "stale": "stale",
        "warm": "warm",
    }
    for agent, status in release.items():
        index = mine[agent]["index"]
        assert (mine[agent]["status"] == "warm") is (not status["dirty"]), (agent, status)
        assert index["identity"]["status"] == status["custom"]["indexIdentity"]["status"], (agent, status)
        assert index["indexedFiles"] == _memory_source(status)["files"] == status["files"], (agent, status)
    assert release["cold"]["files"] == 0 and release["cold"]["custom"]["indexIdentity"]["status"] == "missing"
    assert release["warm"]["custom"]["indexIdentity"]["status"] == "valid"


def test_stale_names_the_changed_new_and_gone_files(judged: MainLineWorld) -> None:
    files = _memwarm_agents(judged)["stale"]["index"]["files"]
    assert files == {
        "new": ["memory/2026-11-29.md"],
        "changed": ["memory/2026-11-27.md"],
        "gone": ["memory/notes/ocelot.md"],
    }


def test_status_writes_nothing_in_the_state_dir(judged: MainLineWorld) -> None:
    """Every file of the state dir (the agents' databases, their -wal/-shm, OpenClaw's leases and the
    shared state store): same bytes, same mtime, same size, and no file added or removed."""
    before = snapshot_files(judged.state_dir)
    assert any(name.endswith("openclaw-agent.sqlite") for name in before)
    for args in (("status", "--json"), ("status", "--format", "prometheus"), ("status", "--format", "plain")):
        judged.memwarm(*args)
    assert snapshot_files(judged.state_dir) == before


@pytest.fixture(scope="module")
def unconfigured(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MainLineWorld]:
    world = _world(tmp_path_factory.mktemp("unconfigured"), ("main",), None)
    world.openclaw("memory", "index", "--agent", "main")
    yield world


def test_with_no_provider_set_memwarm_follows_the_release(unconfigured: MainLineWorld) -> None:
    """Measured: 9.6 defaults to openai, builds FTS-only without a key, then reports the identity
    mismatched (model) and the agent dirty, though no file changed; memwarm says `invalid`, not warm."""
    status = unconfigured.memory_status()["main"]
    identity = status["custom"]["indexIdentity"]
    assert (identity["status"], identity["code"], status["dirty"]) == ("mismatched", "model", True)
    assert _memory_source(status)["dirty"] is False
    mine = _memwarm_agents(unconfigured)["main"]
    assert mine["status"] == "invalid"
    assert mine["index"]["identity"]["status"] == identity["status"]
    assert mine["index"]["indexedFiles"] == _memory_source(status)["files"]


@pytest.fixture(scope="module")
def warmed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """control's first search happens on a cold index; then memwarm warms the other two."""
    world = _world(tmp_path_factory.mktemp("warmed"), ("fresh", "fresh2", "control"), KEYWORD_ONLY)
    steps: dict[str, Any] = {"world": world, "before": _memwarm_agents(world)}
    steps["control_search"] = world.openclaw_json(
        "memory", "search", "pelican", "--agent", "control", "--json"
    )
    steps["after_control"] = _memwarm_agents(world)
    result = world.memwarm("init-backends", "--json", timeout=1800)
    assert result.returncode == 0, result.stderr
    steps["init"] = json.loads(result.stdout)
    steps["after"] = _memwarm_agents(world)
    steps["release_after"] = world.memory_status()
    steps["search"] = {
        agent: world.openclaw_json("memory", "search", "pelican", "--agent", agent, "--json")
        for agent in ("fresh", "fresh2")
    }
    (world.root / "ws-fresh" / "memory" / "2026-11-28-retro.md").write_text("# Retro\nNo retry needed.\n")
    steps["changed"] = _memwarm_agents(world)
    steps["release_changed"] = world.memory_status()
    yield steps


def test_status_says_cold_before(warmed: dict[str, Any]) -> None:
    assert {agent: a["status"] for agent, a in warmed["before"].items()} == dict.fromkeys(
        ("fresh", "fresh2", "control"), "cold"
    )


def test_a_cold_agents_first_search_carries_the_cold_build_warning(warmed: dict[str, Any]) -> None:
    assert COLD_BUILD_WARNING in warmed["control_search"].get("warning", "")


def test_init_backends_builds_the_cold_agents_and_status_says_warm(warmed: dict[str, Any]) -> None:
    assert warmed["after_control"]["control"]["status"] == "warm"  # the release's search built it
    agents = {a["agentId"]: a for a in warmed["init"]["agents"]}
    for agent in ("fresh", "fresh2"):
        report = agents[agent]
        assert (report["status"], report["before"]["status"], report["after"]["status"]) == (
            "built",
            "cold",
            "warm",
        ), report
        assert report["command"] is not None
    assert (agents["control"]["status"], agents["control"]["command"]) == ("warm", None)  # left alone
    assert {agent: a["status"] for agent, a in warmed["after"].items()} == dict.fromkeys(
        ("fresh", "fresh2", "control"), "warm"
    )
    for agent, status in warmed["release_after"].items():
        assert status["dirty"] is False and status["files"] == len(NOTES), (agent, status)


def test_after_init_backends_the_releases_search_finds_the_note_without_the_warning(
    warmed: dict[str, Any],
) -> None:
    for agent, answer in warmed["search"].items():
        assert "warning" not in answer, (agent, answer)
        paths = {hit["path"] for hit in answer["results"]}
        assert "memory/2026-11-27.md" in paths, (agent, answer)


def test_a_changed_note_makes_the_agent_stale_named(warmed: dict[str, Any]) -> None:
    fresh = warmed["changed"]["fresh"]
    assert fresh["status"] == "stale"
    assert fresh["index"]["files"]["changed"] == ["memory/2026-11-28-retro.md"]
    assert warmed["release_changed"]["fresh"]["dirty"] is True
    assert warmed["release_changed"]["fresh2"]["dirty"] is False
    assert warmed["changed"]["fresh2"]["status"] == "warm"
