"""Test data for the builtin-index judge: agent databases made with openclaw@2026.9.6's own schema
(release_schema.sql, copied from a database the released CLI built) and identity rows as it writes them.
The release itself is run in tests/interop/ (`make interop`); here SQLite files stand in for it."""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

SCHEMA = (Path(__file__).parent / "release_schema.sql").read_text(encoding="utf-8")

# The identity row 2026.9.6 wrote for an agent with memory.search.provider "none", no extraPaths, the
# default sources (memory and sessions: rememberAcrossConversations is on by default).
NONE_META: dict[str, Any] = {
    "model": "fts-only",
    "provider": "none",
    "providerKey": "b2f409223dd1bd19cedee3332de54748a5f323765d4cdcbbb29295199cfde125",
    "sources": ["memory", "sessions"],
    "scopeHash": "e861c1d291b583b9f4bf96233b72b9e6984cc92320671a0805e1063946e4b1a1",
    "chunkTokens": 400,
    "chunkOverlap": 80,
    "chunkingVersion": 5,
    "ftsTokenizer": "unicode61",
    "provenanceVersion": 1,
}


def node_mtime_ms(path: Path) -> float:
    ns = os.stat(path).st_mtime_ns
    return ns // 1_000_000_000 * 1000 + (ns % 1_000_000_000) / 1_000_000


def row_for(workspace: Path, rel: str) -> tuple[str, str, float, int]:
    """The memory_index_sources row the release writes for a workspace file as it is now."""
    path = workspace / rel
    data = path.read_bytes()
    return rel, hashlib.sha256(data).hexdigest(), node_mtime_ms(path), len(data)


def agent_db(state: Path, agent: str = "main") -> Path:
    return state / "agents" / agent / "agent" / "openclaw-agent.sqlite"


def build_index(
    db: Path,
    meta: Mapping[str, Any] | None = NONE_META,
    rows: Iterable[tuple[str, str, float, int]] = (),
    *,
    tables: bool = True,
    keep_open: bool = False,
) -> sqlite3.Connection | None:
    """An agent database as the release leaves it (WAL journal); `keep_open` returns the writer's
    connection with its writes still in the WAL (no checkpoint), as a running gateway holds it."""
    db.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(db, isolation_level=None)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA user_version = 23")
    connection.execute("CREATE TABLE IF NOT EXISTS sessions (id TEXT PRIMARY KEY)")  # one of the others
    if tables:
        connection.executescript(SCHEMA)
        if keep_open:
            connection.execute("PRAGMA wal_autocheckpoint = 0")
        connection.execute("INSERT OR IGNORE INTO memory_index_state (id, revision) VALUES (1, 0)")
        if meta is not None:
            connection.execute(
                "INSERT INTO memory_index_meta (key, value) VALUES ('memory_index_meta_v1', ?)",
                (json.dumps(meta, separators=(",", ":")),),
            )
        for row in rows:
            connection.execute(
                "INSERT INTO memory_index_sources (path, source, hash, mtime, size) "
                "VALUES (?, 'memory', ?, ?, ?)",
                row,
            )
    if keep_open:
        return connection
    connection.close()
    return None
