"""The pieces of `status` and `search` that need no qmd: lock detection, the index reader's promise to
create nothing, the last-run record, the Prometheus escaping, and the search limits."""

from __future__ import annotations

import fcntl
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from memwarm_cli import sqlite_driver
from memwarm_cli.backends.agent_search import (
    SearchFailed,
    SearchHit,
    _entries,
    clamp_injected,
    search_path,
    snippet_lines,
)
from memwarm_cli.backends.qmd.index_stats import IndexUnreadable, read_index_stats
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.backends.state.last_run import LastRun, next_last_run, read_last_run, write_last_run
from memwarm_cli.backends.state.locks import flocked_inodes, lock_is_held
from memwarm_cli.backends.state.state_files import StatePath
from memwarm_cli.cli.commands.status_prometheus import escape_label
from memwarm_cli.jsstring import js_length
from tests.backends.support import NOTES, real_qmd_scenario
from tests.conftest import run_memwarm

PROC_LOCKS = """\
1: POSIX  ADVISORY  WRITE 310 fe:00:1111 0 EOF
2: FLOCK  ADVISORY  WRITE 27583 fe:00:2555905 0 EOF
2: -> FLOCK  ADVISORY  WRITE 27590 fe:00:777 0 EOF
3: OFDLCK ADVISORY  READ  -1 00:1a:42 0 EOF
"""


def test_proc_locks_gives_the_flocked_inodes_not_posix_locks_nor_waiters(tmp_path: Path) -> None:
    locks = tmp_path / "locks"
    locks.write_text(PROC_LOCKS)
    assert flocked_inodes(str(locks)) == frozenset({2555905})
    assert flocked_inodes(str(tmp_path / "missing")) is None


def test_a_held_lock_is_seen_without_opening_it(tmp_path: Path) -> None:
    lock = StatePath.of(tmp_path, tmp_path / "agents" / "main" / "qmd" / "memwarm-init.lock")
    assert lock_is_held(lock, flocked_inodes()) is False  # no lock file at all
    lock.path.parent.mkdir(parents=True)
    with open(lock.path, "w") as handle:
        assert lock_is_held(lock, flocked_inodes()) is False
        fcntl.flock(handle, fcntl.LOCK_EX)
        assert lock_is_held(lock, flocked_inodes()) is True
        fcntl.flock(handle, fcntl.LOCK_UN)
    assert lock_is_held(lock, flocked_inodes()) is False
    assert lock_is_held(lock, None) is None  # no /proc/locks: cannot tell


def _qmd_like_index(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("CREATE TABLE documents (collection TEXT, path TEXT, hash TEXT, active INTEGER)")
    db.execute("CREATE TABLE content_vectors (hash TEXT, seq INTEGER)")
    db.execute("CREATE TABLE store_collections (name TEXT PRIMARY KEY)")
    db.executemany(
        "INSERT INTO documents VALUES (?, ?, ?, ?)",
        [("a", "1.md", "h1", 1), ("a", "2.md", "h2", 1), ("a", "old.md", "h3", 0), ("b", "x.md", "h4", 1)],
    )
    db.execute("INSERT INTO content_vectors VALUES ('h1', 0)")
    db.executemany("INSERT INTO store_collections VALUES (?)", [("a",), ("b",), ("empty",)])
    db.commit()
    return db


@pytest.mark.parametrize("writer_open", [False, True])
def test_the_index_is_read_without_creating_or_changing_a_file(tmp_path: Path, writer_open: bool) -> None:
    """A read-only connection to a WAL database creates its -wal and -shm files: never here."""
    index = tmp_path / "index.sqlite"
    writer = _qmd_like_index(index)
    if not writer_open:
        writer.close()
    before = {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in tmp_path.iterdir()}
    stats = read_index_stats(index)
    assert stats.documents == {"a": 2, "b": 1}
    assert stats.pending_embeddings == {"a": 1, "b": 1}
    assert stats.collections == ("a", "b", "empty")
    after = {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in tmp_path.iterdir()}
    assert after == before
    assert ("index.sqlite-wal" in after) is writer_open
    if writer_open:
        writer.close()


def test_an_index_that_is_not_qmds_is_unreadable(tmp_path: Path) -> None:
    index = tmp_path / "index.sqlite"
    index.write_bytes(b"not a database at all" * 100)
    with pytest.raises(IndexUnreadable):
        read_index_stats(index)
    with pytest.raises(FileNotFoundError):
        read_index_stats(tmp_path / "missing.sqlite")


def test_the_last_run_record_carries_the_last_success_over_a_failure(tmp_path: Path) -> None:
    path = StatePath.of(tmp_path, tmp_path / "qmd" / "memwarm-last-run.json")
    ok = next_last_run(None, LastRun("armed", None, 10.0, 12.0, 2000, "search", 85))
    write_last_run(path, ok)
    assert read_last_run(path) == ok and ok.last_success_at == 12.0
    failed = next_last_run(read_last_run(path), LastRun("failed", "interrupted (SIGTERM)", 20.0, 21.0, 900))
    write_last_run(path, failed)
    assert read_last_run(path) == failed and failed.last_success_at == 12.0
    path.path.write_text(json.dumps({"version": 1, "status": "exploded"}))
    warnings: list[str] = []
    assert read_last_run(path, warnings.append) is None
    problem = "status is not one of armed, fresh, degraded, failed"
    assert warnings == [f"ignoring {path.path}: {problem}; continuing as if it were absent"]


@pytest.mark.parametrize("value", ['a"b', "back\\slash", "line\nfeed", 'all\\"\n3'])
def test_label_values_are_escaped_as_the_text_format_reads_them(value: str) -> None:
    text = f'# TYPE m gauge\nm{{agent="{escape_label(value)}"}} 1\n'
    (family,) = text_string_to_metric_families(text)
    assert family.samples[0].labels == {"agent": value}


def test_snippet_lines_and_paths_as_the_gateway_reports_them(tmp_path: Path) -> None:
    assert snippet_lines("@@ -3,4 @@ (2 before, 0 after)\nx\n") == (3, 6)
    assert snippet_lines("no header\nsecond") == (1, 2)
    workspace = tmp_path / "ws"
    inside = CollectionSpec("memory-dir-main", workspace / "memory", "**/*.md", "default", "t")
    outside = CollectionSpec("notes-main", tmp_path / "elsewhere", "**/*.md", "custom", "t")
    assert search_path(inside, "sub/a.md", workspace) == "memory/sub/a.md"
    assert search_path(outside, "/b.md", workspace) == "qmd/notes-main/b.md"


def _hit(snippet: str) -> SearchHit:
    return SearchHit("p.md", 1, 1, 0.5, snippet, "memory", "c", "#abc123")


def test_the_injected_chars_budget_keeps_whole_snippets_then_cuts_one_and_stops() -> None:
    hits = [_hit("a" * 40), _hit("b" * 40), _hit("c" * 40)]
    kept = clamp_injected(hits, 100)
    assert [h.snippet for h in kept] == ["a" * 40, "b" * 40, "c" * 20]
    assert clamp_injected(hits, 80) == hits[:2]
    # UTF-16 units, as JavaScript counts: an emoji is two, and a cut may split it.
    emoji = clamp_injected([_hit("\U0001f600" * 3)], 3)
    assert js_length(emoji[0].snippet) == 3


@pytest.mark.parametrize("depth", [1_000, 50_000])
def test_a_search_answer_nested_too_deeply_is_a_search_failure_not_a_traceback(depth: int) -> None:
    with pytest.raises(SearchFailed, match=r"^Memory search failed: qmd's answer is nested too deeply"):
        _entries("[" * depth + "]" * depth)
    assert _entries('[{"file": "a.md"}, 3, []]') == [{"file": "a.md"}]


@pytest.mark.qmd
def test_status_reads_an_index_it_judges_over_one_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index the gateway built (no memwarm record): its files are checked and its counts read over
    the one connection status opens, not a second one for the counts."""
    scenario = real_qmd_scenario(tmp_path, {"main": NOTES}, {"memory": {"backend": "qmd"}})
    workspace = scenario.workspace("main")
    for args in (
        ("collection", "add", str(workspace), "--name", "memory-root-main", "--mask", "MEMORY.md"),
        ("collection", "add", str(workspace / "memory"), "--name", "memory-dir-main"),
    ):
        assert scenario.qmd("main", *args).returncode == 0
    connects: list[str] = []
    real_connect = sqlite3.connect

    def counted(database: str, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        connects.append(database)
        connection: sqlite3.Connection = real_connect(database, *args, **kwargs)
        return connection

    monkeypatch.setattr(sqlite_driver.sqlite3, "connect", counted)  # the module memwarm connects through
    result = run_memwarm(["status", "--json"], scenario.env())
    (agent,) = json.loads(result.stdout)["agents"]
    assert (result.returncode, agent["status"], agent["freshness"]["judgedFrom"]) == (0, "warm", "index")
    assert agent["index"]["documents"] == 2 and agent["index"]["collections"][1]["documents"] == 1
    assert len(connects) == 1, connects
