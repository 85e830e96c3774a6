"""Synthetic qmd 2.8.3 indexes for the benchmarks that need more of them, or bigger ones, than the real qmd
builds in minutes: the tables and columns memwarm reads (store_collections, documents, content_vectors),
each document with the hash and modified_at qmd would write for its file (sha256 of the text, the mtime
as Node's toISOString). The benchmarks' memwarm runs then find them current, as they would find an
index qmd built."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from memwarm_cli.backends.freshness.index_check import js_mtime_ms

SCHEMA = """
CREATE TABLE content (hash TEXT PRIMARY KEY, doc TEXT NOT NULL, created_at TEXT NOT NULL);
CREATE TABLE documents (id INTEGER PRIMARY KEY AUTOINCREMENT, collection TEXT NOT NULL,
  path TEXT NOT NULL, title TEXT NOT NULL, hash TEXT NOT NULL, created_at TEXT NOT NULL,
  modified_at TEXT NOT NULL, active INTEGER NOT NULL DEFAULT 1, UNIQUE(collection, path));
CREATE INDEX idx_documents_collection ON documents(collection, active);
CREATE TABLE content_vectors (hash TEXT NOT NULL, seq INTEGER NOT NULL DEFAULT 0,
  pos INTEGER NOT NULL DEFAULT 0, model TEXT NOT NULL, embed_fingerprint TEXT NOT NULL DEFAULT '',
  total_chunks INTEGER NOT NULL DEFAULT 1, embedded_at TEXT NOT NULL, PRIMARY KEY (hash, seq));
CREATE TABLE store_collections (name TEXT PRIMARY KEY, path TEXT NOT NULL,
  pattern TEXT NOT NULL DEFAULT '**/*.md', ignore_patterns TEXT, include_by_default INTEGER DEFAULT 1,
  update_command TEXT, context TEXT);
"""


def iso_ms(mtime_ns: int) -> str:
    ms = js_mtime_ms(mtime_ns)
    return datetime.fromtimestamp(ms // 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def write_index(index: Path, collections: Iterable[tuple[str, Path, str, list[str]]]) -> None:
    """An index at `index` holding each (name, directory, pattern, relative paths) with its files."""
    index.parent.mkdir(parents=True, exist_ok=True)
    index.unlink(missing_ok=True)
    db = sqlite3.connect(index)
    db.executescript(SCHEMA)
    for name, directory, pattern, files in collections:
        root = os.path.realpath(directory)
        db.execute(
            "INSERT INTO store_collections (name, path, pattern) VALUES (?, ?, ?)", (name, root, pattern)
        )
        rows = []
        for rel in files:
            path = os.path.join(root, rel)
            data = Path(path).read_bytes()
            stamp = iso_ms(os.stat(path).st_mtime_ns)
            rows.append((name, rel, rel, hashlib.sha256(data).hexdigest(), stamp, stamp))
        db.executemany(
            "INSERT INTO documents (collection, path, title, hash, created_at, modified_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
    db.commit()
    db.close()
