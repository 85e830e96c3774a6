"""What an agent's qmd index holds, read the way `openclaw memory status` reads it: `index.sqlite` opened
read-only, never written, nothing created beside it.

qmd 2.8.3 keeps the database in WAL mode. A read-only SQLite connection to a WAL database creates the
`-wal` and `-shm` files when they are missing, which would be memwarm writing next to qmd's index. So:
when both exist (qmd has the database open, or left them), the connection uses them like any reader of a
live WAL database; when they do not, nobody is writing and the file is opened `immutable` (no locks, no
side files). A writer that starts meanwhile can make that read fail; it is retried once, then reported.

Schema (checked against qmd 2.8.3): `documents(collection, path, hash, active, ...)`,
`content_vectors(hash, seq, ...)`, `store_collections(name, path, pattern, ...)`.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from urllib.parse import quote

from memwarm_cli.backends.settings.agent_backend import AgentBackendSettings
from memwarm_cli.frozen_records import record
from memwarm_cli.os_paths import absolute_path
from memwarm_cli.sqlite_driver import sqlite3

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BUSY_TIMEOUT_SECONDS = 1.0  # a WAL reader waits only for a checkpoint's brief exclusive moments
RETRY_PAUSE_SECONDS = 0.05


class IndexUnreadable(Exception):
    """The index exists but cannot be read (locked, corrupt, not qmd's)."""


@record
class IndexStats:
    documents: Mapping[str, int]  # collection -> active documents
    pending_embeddings: Mapping[str, int]  # collection -> active documents whose content has no vectors
    collections: tuple[str, ...]  # every collection the index knows, sorted


def _uri(index_path: Path, *, immutable: bool) -> str:
    path = quote(absolute_path(str(index_path)), safe="/")
    return f"file:{path}?mode=ro" + ("&immutable=1" if immutable else "")


class open_index:  # named as the function it was: `with open_index(path) as db:`
    """A read-only connection to qmd's index that creates and changes no file (module docstring), closed
    at the end of the `with`. Entering raises FileNotFoundError when the index is missing, IndexUnreadable
    when it cannot be opened. A class, not a contextlib.contextmanager: importing contextlib cost `status`
    ~1 ms CPU (bench/bench_startup.py)."""

    def __init__(self, index_path: Path) -> None:
        self.index_path = index_path

    def __enter__(self) -> sqlite3.Connection:
        index_path = self.index_path
        if not index_path.is_file():
            raise FileNotFoundError(index_path)
        live = all(os.path.exists(f"{index_path}{suffix}") for suffix in ("-wal", "-shm"))
        try:
            self.connection = sqlite3.connect(
                _uri(index_path, immutable=not live),
                uri=True,
                timeout=BUSY_TIMEOUT_SECONDS,
                check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise IndexUnreadable(str(exc)) from None
        return self.connection

    def __exit__(self, *_exc: object) -> None:
        self.connection.close()


def read_index_stats(index_path: Path, *, pending: bool = True) -> IndexStats:
    """Documents per collection, and (with `pending`) those whose content has no vectors yet.
    Raises FileNotFoundError, IndexUnreadable."""
    for attempt in (1, 2):
        try:
            with open_index(index_path) as db:
                return _stats(db, pending)
        except sqlite3.Error as exc:
            if attempt == 2:
                raise IndexUnreadable(str(exc)) from None
            time.sleep(RETRY_PAUSE_SECONDS)  # a writer started during an immutable read: look again
    raise AssertionError("unreachable")


def stats_on(db: sqlite3.Connection, *, pending: bool) -> IndexStats:
    """read_index_stats on a connection the caller holds open (open_index), once, without the retry:
    freshness reads the index's stats over the connection it checked the files with. Raises
    IndexUnreadable, sqlite3.Error."""
    return _stats(db, pending)


def _stats(db: sqlite3.Connection, with_pending: bool) -> IndexStats:
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "documents" not in tables:
        raise IndexUnreadable("not a qmd index (no documents table)")
    documents = dict(
        db.execute("SELECT collection, COUNT(*) FROM documents WHERE active = 1 GROUP BY collection")
    )
    pending: dict[str, int] = {}
    if with_pending:
        pending = _pending(db, tables)
    names = set(documents)
    if "store_collections" in tables:
        names.update(row[0] for row in db.execute("SELECT name FROM store_collections"))
    return IndexStats(documents=documents, pending_embeddings=pending, collections=tuple(sorted(names)))


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {row[1] for row in db.execute(f"PRAGMA table_info({table})")}


def _pending(db: sqlite3.Connection, tables: set[str]) -> dict[str, int]:
    """Active documents per collection whose content has no complete vector set (qmd 2.8.3's
    `getHashesNeedingEmbedding`: every chunk, `COUNT(*) < MAX(total_chunks)`, for the current model and
    embed fingerprint). The current pair is the one embedded last (qmd derives it from the model it
    would load, which memwarm cannot run); a qmd before 2.5 has no fingerprint, before 2.8 no chunk count.
    No vectors at all: every active document waits."""

    def every() -> dict[str, int]:
        query = "SELECT collection, COUNT(DISTINCT hash) FROM documents WHERE active = 1 GROUP BY collection"
        return dict(db.execute(query))

    if "content_vectors" not in tables:
        return every()
    columns = _columns(db, "content_vectors")
    if "model" not in columns or "embedded_at" not in columns:  # not a shape qmd has written
        return dict(
            db.execute(
                "SELECT d.collection, COUNT(DISTINCT d.hash) FROM documents d WHERE d.active = 1 AND NOT "
                "EXISTS (SELECT 1 FROM content_vectors v WHERE v.hash = d.hash) GROUP BY d.collection"
            )
        )
    key = "model, embed_fingerprint" if "embed_fingerprint" in columns else "model"
    current = db.execute(
        f"SELECT {key} FROM content_vectors GROUP BY {key} ORDER BY MAX(embedded_at) DESC LIMIT 1"
    ).fetchone()
    if current is None:
        return every()
    where = " AND ".join(f"{name} = ?" for name in key.split(", "))
    want = "MAX(total_chunks)" if "total_chunks" in columns else "1"
    return dict(
        db.execute(
            "SELECT d.collection, COUNT(DISTINCT d.hash) FROM documents d LEFT JOIN "
            f"(SELECT hash, COUNT(*) AS n, {want} AS want FROM content_vectors WHERE {where} "
            "GROUP BY hash) v ON v.hash = d.hash WHERE d.active = 1 "
            "AND (v.hash IS NULL OR v.n < v.want) GROUP BY d.collection",
            tuple(current),
        )
    )


@record
class Registration:
    """A collection as the index registers it (`store_collections`, which qmd keeps equal to index.yml)."""

    path: str  # the realpath `collection add` stored
    pattern: str
    ignore: tuple[str, ...] = ()  # index.yml's `ignore` globs


def read_registrations(db: sqlite3.Connection) -> dict[str, Registration] | None:
    """Every registered collection, or None for a qmd without `store_collections` (before 2.0)."""
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "store_collections" not in tables or "documents" not in tables:
        return None
    with_ignore = "ignore_patterns" in _columns(db, "store_collections")
    query = (
        "SELECT name, path, pattern"
        + (", ignore_patterns" if with_ignore else ", NULL")
        + " FROM store_collections"
    )
    found: dict[str, Registration] = {}
    for name, path, pattern, ignore in db.execute(query):
        found[name] = Registration(str(path), str(pattern or ""), _ignore_list(ignore))
    return found


def _ignore_list(value: Any) -> tuple[str, ...]:
    if not value:
        return ()
    try:
        data = json.loads(value)
    except (TypeError, ValueError):
        return (str(value),)
    if isinstance(data, list):
        return tuple(str(item) for item in data)
    return (str(data),)


# modified_at (`new Date(stat.mtime).toISOString()`) as epoch milliseconds, computed by SQLite: julianday
# keeps whole milliseconds exactly once rounded; a value it cannot read gives NULL (never equal).
_ROWS = (
    "SELECT path, hash, CAST(ROUND((julianday(modified_at) - 2440587.5) * 86400000) AS INTEGER) "
    "FROM documents WHERE collection = ? AND active = 1 ORDER BY path"
)


def document_rows(db: sqlite3.Connection, collection: str) -> Iterator[tuple[str, str, int | None]]:
    """The collection's active documents (path, hash, mtime in ms), in path byte order, one at a time."""
    return iter(db.execute(_ROWS, (collection,)))


def index_identity(index_path: Path) -> str | None:
    """What changes when anyone writes the index: the database file (inode, size, mtime) and its WAL
    while it holds frames. None: no index. A reader leaves both as they were."""
    parts = []
    for suffix in ("", "-wal"):
        try:
            info = os.stat(f"{index_path}{suffix}")
        except OSError:
            if not suffix:
                return None
            continue
        if suffix and info.st_size == 0:
            continue
        parts.append(f"{suffix or 'db'}:{info.st_dev}:{info.st_ino}:{info.st_size}:{info.st_mtime_ns}")
    return "|".join(parts)


@record
class IndexView:
    path: str
    exists: bool
    size_bytes: int | None
    stats: IndexStats | None  # None: missing or unreadable
    error: str | None  # why it could not be read
    managed: tuple[str, ...]  # the collections memwarm manages for the agent, in config order
    needs_vectors: bool  # the search mode uses embeddings (vsearch, query)

    @property
    def unmanaged(self) -> tuple[str, ...]:
        if self.stats is None:
            return ()
        return tuple(name for name in self.stats.collections if name not in self.managed)

    @property
    def documents(self) -> int:
        return sum(self.stats.documents.get(name, 0) for name in self.managed) if self.stats else 0

    @property
    def pending(self) -> int | None:
        if self.stats is None or not self.needs_vectors:
            return None
        return sum(self.stats.pending_embeddings.get(name, 0) for name in self.managed)

    def to_json(self) -> dict[str, Any]:
        stats = self.stats
        return {
            "indexPath": self.path,
            "exists": self.exists,
            "sizeBytes": self.size_bytes,
            "error": self.error,
            "documents": self.documents if stats else None,
            "pendingEmbeddings": self.pending,
            "collections": [
                {
                    "name": name,
                    "inIndex": stats is not None and name in stats.collections,
                    "documents": stats.documents.get(name, 0) if stats else None,
                    "pendingEmbeddings": (
                        stats.pending_embeddings.get(name, 0) if stats and self.needs_vectors else None
                    ),
                }
                for name in self.managed
            ],
            "unmanagedCollections": list(self.unmanaged),
        }


def index_view(settings: AgentBackendSettings) -> IndexView:
    """The agent's index as `status` shows it: there or not, its size, its counts, or why unreadable."""
    qmd = settings.qmd
    assert qmd is not None
    index_path = settings.paths.index_path
    managed = tuple(spec.name for spec in qmd.collections)
    needs_vectors = qmd.search_mode != "search"
    try:
        size: int | None = os.stat(index_path).st_size
    except OSError:
        size = None
    stats: IndexStats | None = None
    error: str | None = None
    exists = size is not None
    if exists:
        try:
            stats = read_index_stats(index_path, pending=needs_vectors)
        except FileNotFoundError:
            exists, size = False, None
        except IndexUnreadable as exc:
            error = str(exc)
    return IndexView(str(index_path), exists, size, stats, error, managed, needs_vectors)
