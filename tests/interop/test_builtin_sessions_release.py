"""Session transcripts in the builtin index, held to openclaw@2026.9.6 itself.

9.6 indexes chat transcripts too by default (`sources: ["memory", "sessions"]`) and its
`openclaw memory status` reports `dirty` when one is new since the last index. memwarm judges the memory
files only, and must say so rather than give a bare `warm`.

A transcript without a model: a legacy JSONL transcript and `sessions.json` under
`<stateDir>/agents/<id>/sessions/`, imported into the agent's SQLite store by the release's own
`openclaw doctor --session-sqlite import` (it moves the legacy files to its import archive and writes
`session_windows` and `transcript_events` rows). Measured: before the import the release says
`dirty: false` with no eligible transcript; after it `dirty: true`, sessions `eligible: 1`, `files: 0`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.backends.builtin.builtin_status import SESSIONS_NOT_JUDGED
from tests.interop.openclaw96_run import KEYWORD_ONLY, MainLineWorld, main_line_config, write_notes

pytestmark = [pytest.mark.interop, pytest.mark.xdist_group("openclaw-2026.9.6-builtin-sessions")]

NOTES = {"MEMORY.md": "# Memory\nThe quokka project ships in May.\n"}
SESSION_ID = "3f0c2a6e-1b2c-4d5e-8f90-0123456789ab"
SECRET_WORD = "walrus-rota-tuesday"  # in the transcript only: memwarm must never print it


def write_legacy_transcript(state_dir: Path, agent: str, workspace: Path) -> Path:
    """A transcript as pre-SQLite OpenClaw left it: `<id>.jsonl` (a session header, a user and an
    assistant message) and the `sessions.json` entry that references it."""
    sessions = state_dir / "agents" / agent / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    transcript = sessions / f"{SESSION_ID}.jsonl"
    cost = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    usage: dict[str, Any] = {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2}
    usage["cost"] = cost
    lines: list[dict[str, Any]] = [
        {
            "type": "session",
            "version": 3,
            "id": SESSION_ID,
            "timestamp": "2026-12-06T10:00:00.000Z",
            "cwd": str(workspace),
        },
        {
            "type": "message",
            "id": "a1",
            "parentId": None,
            "timestamp": "2026-12-06T10:00:01.000Z",
            "message": {
                "role": "user",
                "content": [{"type": "text", "text": f"Remember the {SECRET_WORD}."}],
                "timestamp": 1796551201000,
            },
        },
        {
            "type": "message",
            "id": "a2",
            "parentId": "a1",
            "timestamp": "2026-12-06T10:00:02.000Z",
            "message": {
                "role": "assistant",
                "content": [{"type": "text", "text": "Noted."}],
                "api": "openai-responses",
                "provider": "openai",
                "model": "gpt-5",
                "usage": usage,
                "stopReason": "stop",
                "timestamp": 1796551202000,
            },
        },
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    entry = {"sessionId": SESSION_ID, "updatedAt": 1796551202000, "sessionFile": str(transcript)}
    (sessions / "sessions.json").write_text(json.dumps({f"agent:{agent}:main": entry}), encoding="utf-8")
    return transcript


def _sessions_source(status: dict[str, Any]) -> dict[str, Any]:
    return next(count for count in status["sourceCounts"] if count["source"] == "sessions")


def _snapshot(world: MainLineWorld) -> dict[str, Any]:
    result = world.memwarm("status", "--json")
    plain = world.memwarm("status", "--format", "plain")
    return {
        "release": world.memory_status()["main"],
        "memwarm": json.loads(result.stdout)["agents"][0],
        "text": result.stdout + result.stderr + plain.stdout + plain.stderr,
    }


@pytest.fixture(scope="module")
def chatted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    root = tmp_path_factory.mktemp("chatted")
    workspace = root / "ws-main"
    write_notes(workspace, NOTES)
    world = MainLineWorld.create(root, main_line_config({"main": workspace}, KEYWORD_ONLY))
    world.openclaw("memory", "index", "--agent", "main")
    steps = {"indexed": _snapshot(world)}
    write_legacy_transcript(world.state_dir, "main", workspace)
    imported = world.openclaw(
        "doctor", "--session-sqlite", "import", "--session-sqlite-agent", "main", "--json"
    )
    steps["import"] = json.loads(imported.stdout[imported.stdout.index("{") :])
    steps["chatted"] = _snapshot(world)
    world.openclaw("memory", "index", "--agent", "main")
    steps["reindexed"] = _snapshot(world)
    yield steps


def test_the_release_imports_the_transcript(chatted: dict[str, Any]) -> None:
    assert chatted["import"]["totals"]["importedEntries"] == 1
    assert chatted["import"]["totals"]["importedTranscriptEvents"] == 3


def test_a_new_transcript_makes_the_release_dirty_and_memwarm_says_it_did_not_judge_it(
    chatted: dict[str, Any],
) -> None:
    before, after = chatted["indexed"], chatted["chatted"]
    assert before["release"]["dirty"] is False and _sessions_source(before["release"])["eligible"] == 0
    assert after["release"]["dirty"] is True
    assert _sessions_source(after["release"])["eligible"] == 1
    assert _sessions_source(after["release"])["files"] == 0
    assert next(c for c in after["release"]["sourceCounts"] if c["source"] == "memory")["dirty"] is False
    mine = after["memwarm"]
    # memwarm's verdict covers the memory files (clean for the release too), and says so.
    assert (mine["status"], mine["sessions"], mine["why"]) == ("warm", "not judged", [SESSIONS_NOT_JUDGED])
    assert SESSIONS_NOT_JUDGED in after["text"]


def test_after_the_release_indexes_the_transcript_both_are_clean(chatted: dict[str, Any]) -> None:
    done = chatted["reindexed"]
    assert done["release"]["dirty"] is False and _sessions_source(done["release"])["files"] == 1
    assert done["memwarm"]["status"] == "warm" and done["memwarm"]["index"]["indexedFiles"] == 1


def test_memwarm_never_prints_a_transcripts_text(chatted: dict[str, Any]) -> None:
    for step in ("chatted", "reindexed"):
        assert SECRET_WORD not in chatted[step]["text"]
