"""The builtin-index judge on databases with 2026.9.6's own schema (index_support.py): cold in each of
its four forms, warm, stale naming each file, an identity the release reports as mismatched, and never a
file written or created next to OpenClaw's database. tests/interop/ holds the verdicts to the release's
own `openclaw memory status`."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.agents import Agent
from memwarm_cli.backends.builtin.index_judge import judge_index
from memwarm_cli.backends.builtin.search_settings import BuiltinSearch, resolve_builtin_search
from memwarm_cli.profiles.releases import P2, P3
from tests.backends.builtin.index_support import NONE_META, agent_db, build_index, row_for

NOTES = {"MEMORY.md": "# Memory\nThe heron ships on Fridays.\n", "memory/2026-04-11.md": "# Heron\n"}


def _workspace(tmp_path: Path, files: dict[str, str] = NOTES) -> Path:
    workspace = tmp_path / "ws"
    for rel, text in files.items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text, encoding="utf-8")
    workspace.mkdir(exist_ok=True)
    return workspace


def _search(
    tmp_path: Path, workspace: Path, search: dict[str, Any] | None = None, **cfg: Any
) -> BuiltinSearch:
    config = {"memory": {"search": {"provider": "none", **(search or {})}}, **cfg}
    found = resolve_builtin_search(
        config, Agent("main", True, str(workspace), None), tmp_path / "state", profile=P3
    )
    assert found is not None
    return found


def _warm(tmp_path: Path, workspace: Path, meta: dict[str, Any] = NONE_META) -> Path:
    db = agent_db(tmp_path / "state")
    build_index(db, meta, [row_for(workspace, rel) for rel in NOTES])
    return db


def _listing(directory: Path) -> dict[str, tuple[int, str]]:
    return {
        name: (
            os.stat(directory / name).st_mtime_ns,
            hashlib.sha256((directory / name).read_bytes()).hexdigest(),
        )
        for name in sorted(os.listdir(directory))
    }


def test_no_database_is_cold_and_nothing_is_created(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    judged = judge_index(_search(tmp_path, workspace))
    assert judged.verdict == "cold" and not judged.db_exists
    assert "does not exist (2 memory files to index)" in judged.why[0]
    assert not (tmp_path / "state").exists()


def test_a_database_without_memory_tables_is_cold(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    build_index(agent_db(tmp_path / "state"), tables=False)
    judged = judge_index(_search(tmp_path, workspace))
    assert judged.verdict == "cold" and judged.db_exists and "no memory index" in judged.why[0]


def test_no_identity_row_is_cold_with_the_release_identity_missing(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    build_index(agent_db(tmp_path / "state"), None, [row_for(workspace, "MEMORY.md")])
    judged = judge_index(_search(tmp_path, workspace))
    assert judged.verdict == "cold" and "memory_index_meta_v1" in judged.why[0]
    assert judged.identity.status == "missing" and judged.identity.code == "metadata_missing"


def test_no_indexed_file_while_memory_files_exist_is_cold(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    build_index(agent_db(tmp_path / "state"), NONE_META, [])
    judged = judge_index(_search(tmp_path, workspace))
    assert judged.verdict == "cold" and judged.why == (
        "the index holds no memory file while 2 memory files exist",
    )


def test_session_chunks_without_a_memory_file_make_it_stale_not_cold(tmp_path: Path) -> None:
    """2026.9.6 builds inside the first search only when memory_index_chunks is empty; session chunks
    make it answer at once and index the memory files in the background (`hasIndexedContent`)."""
    workspace = _workspace(tmp_path)
    db = agent_db(tmp_path / "state")
    build_index(db, NONE_META, [])
    with sqlite3.connect(db) as connection:
        connection.execute(
            "INSERT INTO memory_index_chunks (id, path, source, start_line, end_line, hash, model, text, "
            "embedding, updated_at) VALUES ('c1', 'sessions/main/s1', 'sessions', 1, 2, 'h', 'fts-only', "
            "'we talked', x'', 0)"
        )
    judged = judge_index(_search(tmp_path, workspace))
    assert judged.verdict == "stale" and judged.new == ("MEMORY.md", "memory/2026-04-11.md")


def test_an_empty_index_of_a_workspace_without_notes_is_warm(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, {})
    build_index(agent_db(tmp_path / "state"), NONE_META, [])
    assert judge_index(_search(tmp_path, workspace)).verdict == "warm"


def test_an_index_of_every_file_as_it_is_is_warm(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    _warm(tmp_path, workspace)
    judged = judge_index(_search(tmp_path, workspace))
    assert (judged.verdict, judged.why, judged.identity.status) == ("warm", (), "valid")
    assert (judged.indexed_files, judged.eligible_files, judged.stale_files) == (2, 2, 0)


def test_new_changed_and_deleted_files_make_it_stale_and_are_named(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path, {**NOTES, "memory/old.md": "gone soon\n"})
    build_index(
        agent_db(tmp_path / "state"), NONE_META, [row_for(workspace, r) for r in (*NOTES, "memory/old.md")]
    )
    (workspace / "memory" / "old.md").unlink()
    (workspace / "memory" / "2026-04-12.md").write_text("new\n", encoding="utf-8")
    note = workspace / "memory" / "2026-04-11.md"
    note.write_text("# Herom\n", encoding="utf-8")  # same size: the hash tells
    os.utime(note, ns=(0, os.stat(note).st_mtime_ns + 5_000_000))
    judged = judge_index(_search(tmp_path, workspace))
    assert judged.verdict == "stale"
    assert (judged.new, judged.changed, judged.gone) == (
        ("memory/2026-04-12.md",),
        ("memory/2026-04-11.md",),
        ("memory/old.md",),
    )
    assert judged.why == (
        "1 new file: memory/2026-04-12.md",
        "1 changed file: memory/2026-04-11.md",
        "1 deleted file: memory/old.md",
    )


def test_a_touched_file_with_the_same_text_is_not_stale(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    _warm(tmp_path, workspace)
    os.utime(workspace / "MEMORY.md", (1, 1))  # mtime differs: hashed, and the hash is the stored one
    assert judge_index(_search(tmp_path, workspace)).verdict == "warm"


def test_an_invalidated_row_is_stale_even_with_its_mtime_and_size(tmp_path: Path) -> None:
    """The release blanks a row's hash to have it re-read (memorySourceProvenanceRepairPending)."""
    workspace = _workspace(tmp_path)
    rel, _, mtime, size = row_for(workspace, "MEMORY.md")
    build_index(
        agent_db(tmp_path / "state"),
        NONE_META,
        [(rel, "", mtime, size), row_for(workspace, "memory/2026-04-11.md")],
    )
    judged = judge_index(_search(tmp_path, workspace))
    assert judged.verdict == "stale" and judged.changed == ("MEMORY.md",)


def test_malformed_utf8_is_hashed_as_the_release_reads_it(tmp_path: Path) -> None:
    """buffer.toString("utf-8") then sha256 of the text: invalid bytes count as U+FFFD."""
    workspace = _workspace(tmp_path, {})
    (workspace / "MEMORY.md").write_bytes(b"caf\xe9 \xed\xa0\x80\n")
    text_hash = hashlib.sha256("caf\ufffd \ufffd\ufffd\ufffd\n".encode()).hexdigest()
    _, _, mtime, size = row_for(workspace, "MEMORY.md")
    build_index(agent_db(tmp_path / "state"), NONE_META, [("MEMORY.md", text_hash, mtime - 10, size)])
    assert judge_index(_search(tmp_path, workspace)).verdict == "warm"


@pytest.mark.parametrize(
    ("search", "cfg", "reason", "code"),
    [
        (
            {"provider": None},
            {},
            "index was built for model fts-only, expected text-embedding-3-small",
            "model",
        ),
        (
            {"provider": "auto"},
            {},
            "index was built for model fts-only, expected text-embedding-3-small",
            "model",
        ),
        (
            {"provider": "openai", "model": "fts-only"},
            {},
            "index was built for provider none, expected openai",
            "provider",
        ),
        ({"extraPaths": ["notes"]}, {}, "index scope changed", "scope"),
        ({}, {"session": {"dmScope": "per-peer"}}, "index sources changed", "sources"),
        ({"store": {"fts": {"tokenizer": "trigram"}}}, {}, "index FTS tokenizer changed", "fts_tokenizer"),
    ],
)
def test_an_identity_the_release_reports_mismatched_is_invalid(
    tmp_path: Path, search: dict[str, Any], cfg: dict[str, Any], reason: str, code: str
) -> None:
    workspace = _workspace(tmp_path)
    _warm(tmp_path, workspace)
    settings = {k: v for k, v in search.items() if v is not None}
    if "provider" in search and search["provider"] is None:
        config = {"memory": {"search": {}}, **cfg}
        found = resolve_builtin_search(
            config, Agent("main", True, str(workspace), None), tmp_path / "state", profile=P3
        )
        assert found is not None
    else:
        found = _search(tmp_path, workspace, settings, **cfg)
    judged = judge_index(found)
    assert judged.verdict == "invalid" and (judged.identity.reason, judged.identity.code) == (reason, code)
    assert "openclaw memory index --force" in judged.why[0]


def test_an_index_of_an_older_format_is_invalid(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    _warm(tmp_path, workspace, {**NONE_META, "chunkingVersion": 4})
    judged = judge_index(_search(tmp_path, workspace))
    assert judged.verdict == "invalid" and judged.identity.code == "chunking_version"


def test_extra_paths_in_any_order_match_the_scope_hash_the_release_wrote(tmp_path: Path) -> None:
    from memwarm_cli.backends.builtin.index_judge import scope_hashes

    workspace = _workspace(tmp_path)
    one = _search(tmp_path, workspace, {"extraPaths": ["/b", {"path": "/a", "pattern": "**/*.md"}]})
    other = _search(tmp_path, workspace, {"extraPaths": [{"path": "/a", "pattern": "**/*.md"}, "/b"]})
    assert scope_hashes(one) == scope_hashes(other) and len(scope_hashes(one)) == 2
    assert NONE_META["scopeHash"] in scope_hashes(_search(tmp_path, workspace))


def test_the_database_is_read_without_creating_or_changing_a_file(tmp_path: Path) -> None:
    """No -wal/-shm is created next to a database OpenClaw has closed (a cron job of another user would
    lock OpenClaw out with its own), and no file there changes."""
    workspace = _workspace(tmp_path)
    db = _warm(tmp_path, workspace)
    directory = db.parent
    before = _listing(directory)
    assert not (directory / "openclaw-agent.sqlite-wal").exists()
    assert judge_index(_search(tmp_path, workspace)).verdict == "warm"
    assert _listing(directory) == before


def test_writes_still_in_the_wal_of_a_running_gateway_are_read(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    writer = build_index(
        agent_db(tmp_path / "state"), NONE_META, [row_for(workspace, r) for r in NOTES], keep_open=True
    )
    assert writer is not None
    try:
        db = agent_db(tmp_path / "state")
        assert os.stat(str(db) + "-wal").st_size > 0  # the rows are in the WAL only
        names = sorted(os.listdir(db.parent))
        assert judge_index(_search(tmp_path, workspace)).verdict == "warm"
        assert sorted(os.listdir(db.parent)) == names
        writer.execute("DELETE FROM memory_index_sources WHERE path = 'MEMORY.md'")
        judged = judge_index(_search(tmp_path, workspace))
        assert judged.verdict == "stale" and judged.new == ("MEMORY.md",)
    finally:
        writer.close()


def test_an_unreadable_database_fails_with_the_reason(tmp_path: Path) -> None:
    workspace = _workspace(tmp_path)
    db = agent_db(tmp_path / "state")
    db.parent.mkdir(parents=True)
    db.write_bytes(b"not a database" * 100)
    judged = judge_index(_search(tmp_path, workspace))
    assert judged.verdict == "failed" and "cannot be read" in judged.why[0]
    with pytest.raises(sqlite3.DatabaseError):
        sqlite3.connect(db).execute("select 1 from sqlite_master").fetchall()


def test_p2_judges_the_index_format_2026_8_2_writes(tmp_path: Path) -> None:
    """2026.8.2 writes chunkingVersion 3 and accepts only it (its resolveMemoryIndexIdentityState);
    2026.9.6 writes 5 and reports an older one as mismatched."""
    workspace = _workspace(tmp_path)
    _warm(tmp_path, workspace, {**NONE_META, "chunkingVersion": 3})
    config = {"memory": {"search": {"provider": "none"}}}
    agent = Agent("main", True, str(workspace), None)
    on_p2 = resolve_builtin_search(config, agent, tmp_path / "state", profile=P2)
    on_p3 = resolve_builtin_search(config, agent, tmp_path / "state", profile=P3)
    assert on_p2 is not None and on_p3 is not None
    assert judge_index(on_p2).verdict == "warm"
    judged = judge_index(on_p3)
    assert judged.verdict == "invalid" and judged.identity.code == "chunking_version"
    (tmp_path / "state").rename(tmp_path / "old-state")
    _warm(tmp_path, workspace)  # as 9.6 wrote it
    judged = judge_index(on_p2)
    assert (judged.verdict, judged.identity.reason, judged.identity.code) == (
        "invalid",
        "index chunking implementation changed",
        None,
    )


def test_a_cold_agent_without_its_workspace_says_so(tmp_path: Path) -> None:
    judged = judge_index(_search(tmp_path, tmp_path / "nowhere"))
    assert judged.verdict == "cold"
    assert judged.why[1] == f"the workspace {tmp_path / 'nowhere'} does not exist"
