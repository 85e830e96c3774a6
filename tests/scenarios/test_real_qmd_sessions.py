"""Session transcripts and the search probe, end to end with the real qmd 2.8.3 (tools/bin).

One agent with a note and a transcript: the first run exports it, adds `sessions-main` and indexes it
(searchable, its secret not); the next run is fresh; a new transcript makes the run after it index that
one too. The probe runs BM25 `qmd search` (the agent's searchMode) with a query from the newest note.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.backends.session_export_support import record
from tests.backends.support import Scenario, real_qmd_scenario, search_files
from tests.conftest import CliResult

pytestmark = pytest.mark.qmd

SECRET = "sk-livewalrus1234567890abcdef"
Run = tuple[Scenario, CliResult, dict[str, Any]]  # the scenario, the first run, its agent report


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Run:
    root = tmp_path_factory.mktemp("real-qmd-sessions")
    scenario = real_qmd_scenario(
        root,
        {"main": {"memory/2026-04-10.md": "# Day\nThe quokka committee approved the budget.\n"}},
        {"memory": {"backend": "qmd", "qmd": {"sessions": {"enabled": True}}}},
    )
    sessions = scenario.state / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "trip.jsonl").write_text(
        record(f"Plan the narwhal expedition. My key is {SECRET}", "user")
        + record("The narwhal expedition leaves in May.", "assistant"),
        encoding="utf-8",
    )
    result, report = scenario.run_json(["--probe"])
    return scenario, result, report["agents"][0]


def test_first_run_exports_and_indexes_the_transcripts(
    agent: tuple[Scenario, CliResult, dict[str, Any]],
) -> None:
    scenario, result, report = agent
    assert result.returncode == 0, result.stderr
    assert report["status"] == "armed"
    assert report["collections"][-1]["name"] == "sessions-main"
    assert report["collections"][-1]["action"] == "added"
    export = scenario.qmd_dir("main") / "sessions" / "trip.md"
    assert export.read_text(encoding="utf-8") == (
        "# Session trip\n\nUser: Plan the narwhal expedition. My key is sk-liv…cdef\n"
        "Assistant: The narwhal expedition leaves in May.\n"
    )
    assert search_files(scenario.qmd("main", "search", "narwhal", "--json", "-n", "5")) == [
        "qmd://sessions-main/trip.md"
    ]
    assert search_files(scenario.qmd("main", "search", SECRET, "--json", "-n", "5")) == []
    listing = scenario.qmd("main", "collection", "list").stdout
    assert "sessions-main (qmd://sessions-main/)" in listing


def test_probe_runs_the_agents_search_with_a_word_of_its_newest_note(
    agent: Run,
) -> None:
    scenario, _, report = agent
    probe = report["probe"]
    assert (probe["mode"], probe["query"], probe["answered"]) == ("search", "committee", True)
    assert probe["hits"] == 1 and 0 < probe["latencyMs"] < probe["timeoutMs"]
    search = report["commands"][-1]["argv"]
    assert search == [
        "qmd",
        "search",
        "committee",
        "--json",
        "-n",
        "4",  # limits.maxResults: 6.35's default
        "-c",
        "memory-root-main",
        "-c",
        "memory-dir-main",
        "-c",
        "sessions-main",
    ]
    # Right after it, a second probe (the run itself is fresh): answered; both latencies are reported.
    again, second = scenario.run_json(["--probe"])
    assert again.returncode == 0, again.stderr
    assert second["agents"][0]["status"] == "fresh"
    latency = second["agents"][0]["probe"]["latencyMs"]
    assert second["agents"][0]["probe"]["hits"] == 1 and latency > 0
    print(f"\nqmd search probe latency: first {probe['latencyMs']} ms, second {latency} ms")


def test_a_new_transcript_makes_the_next_run_index_it(
    agent: tuple[Scenario, CliResult, dict[str, Any]],
) -> None:
    scenario, _, _ = agent
    result, report = scenario.run_json()
    assert report["agents"][0]["status"] == "fresh", result.stderr
    sessions = scenario.state / "agents" / "main" / "sessions"
    (sessions / "later.jsonl").write_text(record("What about the capybara census?", "user"), encoding="utf-8")
    assert search_files(scenario.qmd("main", "search", "capybara", "--json", "-n", "5")) == []
    result, report = scenario.run_json()
    assert result.returncode == 0, result.stderr
    agent_report = report["agents"][0]
    assert agent_report["status"] == "armed"
    assert agent_report["sessions"]["written"] == ["later.md"]  # trip.md is unchanged: not rewritten
    assert search_files(scenario.qmd("main", "search", "capybara", "--json", "-n", "5")) == [
        "qmd://sessions-main/later.md"
    ]
    assert sorted(os.listdir(sessions)) == ["later.jsonl", "trip.jsonl"]  # transcripts untouched
    result, report = scenario.run_json()
    assert report["agents"][0]["status"] == "fresh", result.stderr


def test_exported_files_are_private(agent: Run) -> None:
    scenario, _, _ = agent
    export = scenario.qmd_dir("main") / "sessions" / "trip.md"
    assert export.stat().st_mode & 0o777 == 0o600
    assert not Path(str(export) + ".tmp").exists()
