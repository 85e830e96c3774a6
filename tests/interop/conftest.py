"""Interop fixtures: two worlds, each one state dir shared by memwarm and the released OpenClaw.

`memwarm_first`: memwarm warms every agent, then OpenClaw reads the index. `openclaw_first`: OpenClaw's
own `memory index` builds it, then memwarm judges and re-runs. Both are module-scoped: OpenClaw's CLI takes
seconds per call, so each world is built once and the tests read it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.interop.openclaw_run import SharedState, require_openclaw

TRANSCRIPT = "".join(
    json.dumps(record, separators=(",", ":")) + "\n"
    for record in (
        {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-11-27T10:00:00.000Z", "cwd": "/w"},
        {"type": "message", "message": {"role": "user", "content": "Where did we park the capybara plan?"}},
        {
            "type": "message",
            "message": {"role": "assistant", "content": "In the shared folder."},
        },
    )
)


def build_world(root: Path, *, limits: dict[str, Any] | None = None) -> SharedState:
    """Two agents; defaults, a named path outside both workspaces, a file path; main exports sessions."""
    ws_main, ws_research, shared = root / "ws-main", root / "ws-research", root / "shared-notes"
    for directory in (ws_main / "memory", ws_research / "memory", shared):
        directory.mkdir(parents=True)
    notes = {  # one word per topic, so each search has a known answer
        ws_main / "MEMORY.md": "# Memory\nThe quokka project ships in May.\n",
        ws_main / "memory" / "2026-11-27.md": "# Standup\nWe fixed the pelican importer today.\n",
        ws_main / "memory" / "2026-11-28-retro.md": "# Retro\nPelican imports need a retry.\n",
        ws_main / "NOTES.md": "# Notes\nThe narwhal budget is approved.\n",
        ws_research / "MEMORY.md": "# Research\nLate chunking suits the walrus corpus.\n",
        ws_research / "memory" / "2026-11-28.md": "# Reading\nZebra embeddings; pelican too.\n",
        ws_research / "NOTES.md": "# Notes\nAsk about the narwhal dataset.\n",
        shared / "team.md": "# Team\nThe ocelot rota is shared by every agent; pelican duty on Fridays.\n",
    }
    for path, text in notes.items():
        path.write_text(text, encoding="utf-8")
    qmd: dict[str, Any] = {
        "searchMode": "search",
        "paths": [{"path": str(shared), "name": "shared"}, {"path": "NOTES.md"}],
        "sessions": {"enabled": True},
    }
    if limits is not None:
        qmd["limits"] = limits
    config = {
        "agents": {
            "list": [
                {"id": "main", "default": True, "workspace": str(ws_main)},
                {"id": "research", "workspace": str(ws_research)},
            ]
        },
        "memory": {"backend": "qmd", "qmd": qmd},
    }
    world = SharedState.create(root, config)
    sessions = world.state_dir / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "s1.jsonl").write_text(TRANSCRIPT, encoding="utf-8")
    return world


@pytest.fixture(scope="module")
def memwarm_first(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedState]:
    require_openclaw()
    world = build_world(tmp_path_factory.mktemp("memwarm-first"))
    result = world.memwarm("init-backends")
    assert result.returncode == 0, result.stderr
    yield world


@pytest.fixture(scope="module")
def openclaw_first(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SharedState]:
    require_openclaw()
    world = build_world(tmp_path_factory.mktemp("openclaw-first"))
    world.openclaw("memory", "index")
    yield world
