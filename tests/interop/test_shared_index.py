"""memwarm and the released OpenClaw 2026.6.35 on one state dir (issue 20): each reads and searches what the
other built, and neither adds, removes or re-indexes anything the other made."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.interop.conftest import build_world
from tests.interop.openclaw_run import INDEX_WORK, SharedState, qmd_verbs

pytestmark = [pytest.mark.interop, pytest.mark.qmd]

AGENTS = ("main", "research")


def _index_work(world: SharedState) -> list[list[str]]:
    commands = world.qmd_commands()
    return [argv for argv, verb in zip(commands, qmd_verbs(commands), strict=True) if verb in INDEX_WORK]


def _memwarm_json(world: SharedState, *args: str) -> Any:
    result = world.memwarm(*args, "--json")
    assert result.stdout, result.stderr
    return json.loads(result.stdout)


def _openclaw_results(world: SharedState, query: str, agent: str) -> list[dict[str, Any]]:
    data = world.openclaw_json("memory", "search", query, "--json", "--agent", agent)
    return list(data["results"])


def _comparable(hit: dict[str, Any]) -> tuple[Any, ...]:
    return (hit["path"], hit["startLine"], hit["endLine"], hit["score"], hit["snippet"], hit["source"])


def test_openclaw_reads_memwarms_index_without_index_work(memwarm_first: SharedState) -> None:
    world = memwarm_first
    world.forget_qmd_commands()
    statuses = world.openclaw_json("memory", "status", "--json")
    by_agent = {entry["agentId"]: entry["status"] for entry in statuses}
    mine = {agent["agentId"]: agent for agent in _memwarm_json(world, "status")["agents"]}
    for agent in AGENTS:
        status = by_agent[agent]
        assert status["backend"] == "qmd" and not status.get("dirty")
        index = mine[agent]["index"]
        assert status["files"] == index["documents"], (agent, status)
        assert status["custom"]["qmd"]["collections"] == len(index["collections"]), (agent, status)
    assert _index_work(world) == []


@pytest.mark.parametrize(
    ("agent", "query"), [("main", "pelican"), ("main", "ocelot"), ("research", "narwhal")]
)
def test_openclaw_searches_memwarms_index_without_index_work(
    memwarm_first: SharedState, agent: str, query: str
) -> None:
    world = memwarm_first
    world.forget_qmd_commands()
    results = _openclaw_results(world, query, agent)
    assert results, f"OpenClaw found nothing for {query!r} in {agent}'s index"
    assert _index_work(world) == []
    assert [_comparable(hit) for hit in results] == [
        _comparable(hit) for hit in _memwarm_json(world, "search", query, "--agent", agent)["results"]
    ]


def test_the_sessions_export_is_searchable_by_both(memwarm_first: SharedState) -> None:
    world = memwarm_first
    world.forget_qmd_commands()
    results = _openclaw_results(world, "capybara", "main")
    assert [hit["source"] for hit in results] == ["sessions"]
    assert _index_work(world) == []


def test_memwarm_calls_openclaws_index_warm(openclaw_first: SharedState) -> None:
    report = _memwarm_json(openclaw_first, "status")
    assert {agent["agentId"]: agent["status"] for agent in report["agents"]} == dict.fromkeys(AGENTS, "warm")


def test_memwarm_does_no_index_work_on_openclaws_index(openclaw_first: SharedState) -> None:
    world = openclaw_first
    world.forget_qmd_commands()
    result = world.memwarm("init-backends")
    assert result.returncode == 0, result.stderr
    assert _index_work(world) == []


@pytest.mark.parametrize(
    "limits",
    [None, {"maxResults": 2, "maxSnippetChars": 60, "maxInjectedChars": 100}],
    ids=["default-limits", "small-limits"],
)
def test_memwarm_search_returns_what_openclaw_search_returns(
    tmp_path: Any, limits: dict[str, Any] | None
) -> None:
    world = build_world(tmp_path, limits=limits)
    assert world.memwarm("init-backends").returncode == 0
    for agent, query in (("main", "pelican"), ("research", "pelican")):
        expected = _openclaw_results(world, query, agent)
        got = _memwarm_json(world, "search", query, "--agent", agent)["results"]
        assert [_comparable(hit) for hit in got] == [_comparable(hit) for hit in expected], (agent, limits)
