"""Is one agent's builtin memory index cold, stale, warm, or built for other settings? Read-only.

The index is the agent's OpenClaw database, `<stateDir>/agents/<id>/agent/openclaw-agent.sqlite`,
which OpenClaw shares with its sessions and writes under its own leases. memwarm opens it read-only
(`file:…?mode=ro`, never creating it), reads `memory_index_meta` and the `memory` rows of
`memory_index_sources` in one short read transaction (a long one would hold back OpenClaw's WAL
checkpoints), and closes it before it looks at a single memory file. It never writes, never takes a lock
of OpenClaw's, and never runs OpenClaw.

Verdicts, as the release's own `openclaw memory status` sees them (its `dirty` flag is true for every
verdict but `warm`; builtin-memory.md):
- `cold`: no database, no memory tables, no identity row (`memory_index_meta_v1`), or no indexed
  memory file while memory files exist. The first `memory_search` would build the whole index inside the
  call (21 s at 1,000 notes; at 10,000 it times out at 30 s).
- `invalid`: the identity does not match the config (`indexIdentity.status` "mismatched": another
  provider, model, sources, extra paths, tokenizer, or an older/newer index format). The release reports
  it dirty and its vector search waits for `openclaw memory index --force` (keyword search still
  answers). memwarm compares what the release compares at `memory status`, from the config, without
  starting a provider (the provider's own settings key, which needs its runtime, is not compared).
- `stale`: memory files are new, changed (sha256 of the text differs from `memory_index_sources.hash`)
  or gone. mtime and size equal to the stored ones vouch for a file without reading it. OpenClaw
  answers from the old rows at once and catches up by itself.
- `warm`: nothing to do.
Session transcripts (`sessions` in the indexed sources, 2026.9.6's default) are not judged: the
release lists them from its state store (SQLite transcripts and legacy JSONL files, minus cron,
heartbeat, dreaming and forgotten sessions, plus archive files) and compares each one's size, mtime and
revision with its `memory_index_sources` row (docs/status.md); memwarm does not reproduce that
listing, so with
`sessions` indexed the release may report `dirty` where memwarm says `warm` (builtin_status.py says so
per agent). They count for `cold` as the release counts them: its first search builds the index inside
the call only when `memory_index_chunks` is empty, so an index holding session chunks but no memory file
is `stale`, not `cold`.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
from collections.abc import Mapping, Sequence
from typing import Any, Literal
from urllib.parse import quote

from memwarm_cli.backends.builtin.memory_files import (
    MemoryListing,
    MemoryScanError,
    content_hash,
    list_memory_files,
    resolved_extra_path,
)
from memwarm_cli.backends.builtin.search_settings import (
    CHUNK_OVERLAP,
    CHUNK_TOKENS,
    PROVENANCE_VERSION,
    BuiltinSearch,
)
from memwarm_cli.frozen_records import record
from memwarm_cli.sqlite_driver import sqlite3

Verdict = Literal["cold", "invalid", "stale", "warm", "failed"]
META_KEY = "memory_index_meta_v1"
BUSY_TIMEOUT_SECONDS = 2.0  # a writer mid-checkpoint; a read never waits longer
MTIME_TOLERANCE_MS = 0.001  # Node's mtimeMs is a double; Python's from st_mtime_ns agrees to the µs
MAX_SCOPE_PERMUTATIONS = 720  # the release sorts extraPaths by localeCompare: try every order of up to 6


@record
class Identity:
    status: str  # valid, missing, mismatched
    reason: str | None = None
    code: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "reason": self.reason, "code": self.code}


@record
class IndexRead:
    """What one read transaction found in the agent's database."""

    exists: bool  # the database file exists
    tables: bool  # memory_index_meta and memory_index_sources exist
    meta: Mapping[str, Any] | None  # the parsed identity row
    rows: Mapping[str, tuple[str, float, int]]  # memory rows: path -> (hash, mtime, size)
    size_bytes: int | None = None
    has_chunks: bool = False  # memory_index_chunks holds a row (of any source: `hasIndexedChunks`)
    error: str | None = None  # the database could not be read


@record
class IndexJudgement:
    agent_id: str
    verdict: Verdict
    why: tuple[str, ...]
    db_path: str
    db_exists: bool
    indexed_files: int  # memory rows in memory_index_sources
    eligible_files: int  # memory files the release would index now
    identity: Identity
    new: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    gone: tuple[str, ...] = ()
    issues: tuple[str, ...] = ()
    size_bytes: int | None = None
    meta: Mapping[str, Any] | None = None

    @property
    def stale_files(self) -> int:
        return len(self.new) + len(self.changed) + len(self.gone)

    def to_json(self) -> dict[str, Any]:
        meta = self.meta or {}
        return {
            "dbPath": self.db_path,
            "exists": self.db_exists,
            "sizeBytes": self.size_bytes,
            "indexedFiles": self.indexed_files,
            "eligibleFiles": self.eligible_files,
            "identity": self.identity.to_json(),
            "builtFor": {"provider": meta.get("provider"), "model": meta.get("model")} if self.meta else None,
            "files": {"new": list(self.new), "changed": list(self.changed), "gone": list(self.gone)},
            "issues": list(self.issues),
        }


def _uri(path: str, immutable: bool) -> str:
    return "file:" + quote(path, safe="/") + ("?mode=ro&immutable=1" if immutable else "?mode=ro")


def _wal_size(db_path: str) -> int | None:
    try:
        return os.stat(db_path + "-wal").st_size
    except OSError:
        return None


def read_index(db_path: str) -> IndexRead:
    """The identity row and the memory rows, in one short read transaction; never creates a file.

    SQLite creates `-wal` and `-shm` files next to a WAL database for any connection that finds none,
    with memwarm's owner and mode: a cron job running as another user would lock OpenClaw out of its
    own database. So with no WAL content (no `-wal`, or an empty one), everything committed is in the
    main file and it is read `immutable` (no lock, no side file); with WAL content, through the existing
    `-shm` as any reader (which sets its reader mark there). A WAL without `-shm` is not read."""
    try:
        size = os.stat(db_path).st_size
    except FileNotFoundError:
        return IndexRead(False, False, None, {})
    except OSError as exc:
        return IndexRead(True, False, None, {}, error=exc.strerror or str(exc))
    for _ in range(2):
        wal = _wal_size(db_path)
        immutable = not wal
        if not immutable and not os.path.exists(db_path + "-shm"):
            why = "its WAL file has no -shm file next to it, which memwarm does not create; try again later"
            return IndexRead(True, False, None, {}, size, error=why)
        read = _read(db_path, immutable, size)
        if not immutable or not _wal_size(db_path):
            return read
        # OpenClaw wrote meanwhile: what was read immutably may be torn; read again through the WAL.
    return read


def _read(db_path: str, immutable: bool, size: int) -> IndexRead:
    try:
        connection = sqlite3.connect(
            _uri(db_path, immutable), uri=True, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None
        )
    except sqlite3.Error as exc:
        return IndexRead(True, False, None, {}, size, error=str(exc))
    try:
        connection.execute("PRAGMA query_only = ON")
        connection.execute("BEGIN")
        try:
            names = {
                row[0]
                for row in connection.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table' "
                    "AND name IN ('memory_index_meta', 'memory_index_sources', 'memory_index_chunks')"
                )
            }
            if not {"memory_index_meta", "memory_index_sources"} <= names:
                return IndexRead(True, False, None, {}, size)
            found = connection.execute(
                "SELECT value FROM memory_index_meta WHERE key = ?", (META_KEY,)
            ).fetchone()
            rows = {
                str(path): (str(digest), float(mtime), int(file_size))
                for path, digest, mtime, file_size in connection.execute(
                    "SELECT path, hash, mtime, size FROM memory_index_sources WHERE source = 'memory'"
                )
            }
            has_chunks = "memory_index_chunks" in names and (
                connection.execute("SELECT 1 FROM memory_index_chunks LIMIT 1").fetchone() is not None
            )
        finally:
            connection.execute("COMMIT")
    except sqlite3.Error as exc:
        return IndexRead(True, False, None, {}, size, error=str(exc))
    finally:
        connection.close()
    return IndexRead(True, True, _meta(found[0] if found else None), rows, size, has_chunks)


def _meta(value: Any) -> Mapping[str, Any] | None:
    """`readMemoryIndexMetadata`: a JSON object, else none (an empty or unparsable row counts as none)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        parsed = json.loads(value)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _js_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def scope_hashes(search: BuiltinSearch) -> set[str]:
    """`resolveConfiguredScopeHash`: the hash of the extra paths and multimodal settings. The release
    orders the paths by `localeCompare` (ICU collation); every order of a short list is tried instead,
    so that the same set of paths is recognised whatever the collation."""
    workspace = str(search.workspace)
    entries: list[Any] = []
    for extra in search.extra_paths:
        path = resolved_extra_path(workspace, extra).replace("\\", "/")
        pattern = extra.pattern.replace("\\", "/") if extra.pattern else None
        entries.append({"path": path, "pattern": pattern} if pattern else path)
    mm = search.multimodal
    multimodal = {
        "enabled": mm.enabled,
        "modalities": sorted(mm.modalities),
        "maxFileBytes": mm.max_file_bytes,
    }
    orders: Any = itertools.islice(itertools.permutations(entries), MAX_SCOPE_PERMUTATIONS)
    return {_sha256(_js_json({"extraPaths": list(order), "multimodal": multimodal})) for order in orders}


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else math.nan


def identity_state(search: BuiltinSearch, meta: Mapping[str, Any] | None) -> Identity:
    """`resolveMemoryIndexIdentityState` as `memory status` calls it (no provider started)."""
    if meta is None:
        code = "metadata_missing" if search.index_format.codes else None
        return Identity("missing", "index metadata is missing", code)
    provenance = _number(meta.get("provenanceVersion"))
    chunking = _number(meta.get("chunkingVersion"))
    provenance = 0 if math.isnan(provenance) else provenance
    chunking = 0 if math.isnan(chunking) else chunking
    form = search.index_format
    if form.exact:  # 2026.8.2: exactly its own versions, reasons without codes
        if provenance != PROVENANCE_VERSION:
            return Identity("mismatched", "index provenance classifier changed")
        if chunking != form.chunking_version:
            return Identity("mismatched", "index chunking implementation changed")
        return _configured_identity(search, meta, codes=False)
    if provenance > PROVENANCE_VERSION or chunking > form.chunking_version:
        code = "provenance_version" if provenance > PROVENANCE_VERSION else "chunking_version"
        why = "the index was written by a newer OpenClaw version; upgrade OpenClaw or reindex explicitly"
        return Identity("mismatched", why, code)
    if provenance < PROVENANCE_VERSION:
        return Identity("mismatched", "index provenance classifier changed", "provenance_version")
    if chunking < form.chunking_version:
        return Identity("mismatched", "index chunking implementation changed", "chunking_version")
    return _configured_identity(search, meta, codes=True)


def _configured_identity(search: BuiltinSearch, meta: Mapping[str, Any], *, codes: bool) -> Identity:
    """The checks against the config, in the release's order (2026.8.2 checks the tokenizer last too)."""

    def mismatched(reason: str, code: str) -> Identity:
        return Identity("mismatched", reason, code if codes else None)

    expected_model = search.model
    if expected_model is not None and meta.get("model") != expected_model:
        return mismatched(
            f"index was built for model {meta.get('model')}, expected {expected_model}", "model"
        )
    if meta.get("provider") != search.provider:
        why = f"index was built for provider {meta.get('provider')}, expected {search.provider}"
        return mismatched(why, "provider")
    raw_sources = meta.get("sources")
    built = (
        sorted({s for s in raw_sources if s in ("memory", "sessions")})
        if isinstance(raw_sources, list)
        else []
    )
    if (built or ["memory"]) != sorted(search.sources):
        return mismatched("index sources changed", "sources")
    if meta.get("scopeHash") not in scope_hashes(search):
        return mismatched("index scope changed", "scope")
    if meta.get("chunkTokens") != CHUNK_TOKENS or meta.get("chunkOverlap") != CHUNK_OVERLAP:
        return mismatched("index chunking changed", "chunking")
    if (meta.get("ftsTokenizer") or "unicode61") != search.fts_tokenizer:
        return mismatched("index FTS tokenizer changed", "fts_tokenizer")
    return Identity("valid")


def _compare(listing: MemoryListing, rows: Mapping[str, tuple[str, float, int]]) -> tuple[list[str], ...]:
    """New, changed and gone memory files (`hasMemorySourceDrift`, with the mtime+size prefilter)."""
    new: list[str] = []
    changed: list[str] = []
    present: set[str] = set()
    for file in listing.files:
        present.add(file.path)
        stored = rows.get(file.path)
        if stored is None:
            new.append(file.path)
            continue
        digest, mtime, size = stored
        if digest and size == file.size and abs(mtime - file.mtime_ms) <= MTIME_TOLERANCE_MS:
            continue  # untouched since it was indexed
        if file.multimodal:
            continue  # hashed with its MIME type by the release: compared by presence only
        if content_hash(file.abs_path) != digest:
            changed.append(file.path)
    gone = sorted(path for path in rows if path not in present)
    return new, changed, gone


def _listed(names: Sequence[str], noun: str) -> str:
    shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
    return f"{len(names)} {noun}{'' if len(names) == 1 else 's'}: {shown}"


def judge_index(search: BuiltinSearch) -> IndexJudgement:
    """The verdict on one agent's index (see the module docstring); never raises for the user's files."""
    db_path = str(search.db_path)
    read = read_index(db_path)
    base: dict[str, Any] = {
        "agent_id": search.agent_id,
        "db_path": db_path,
        "db_exists": read.exists,
        "indexed_files": len(read.rows),
        "size_bytes": read.size_bytes,
        "meta": read.meta,
    }
    if read.error is not None:
        identity = Identity("unknown", read.error, None)
        why: tuple[str, ...] = (f"the index cannot be read: {read.error}",)
        return IndexJudgement(verdict="failed", why=why, eligible_files=0, identity=identity, **base)
    try:
        listing = list_memory_files(search)
    except MemoryScanError as exc:
        identity = identity_state(search, read.meta)
        return IndexJudgement(verdict="failed", why=(str(exc),), eligible_files=0, identity=identity, **base)
    eligible = len(listing.files)
    base.update(eligible_files=eligible, issues=listing.issues)
    identity = identity_state(search, read.meta)
    files = "memory file" if eligible == 1 else "memory files"
    if not read.exists:
        why = (f"no index yet: {db_path} does not exist ({eligible} {files} to index)", *listing.issues)
        return IndexJudgement(verdict="cold", why=why, identity=identity, **base)
    if not read.tables:
        why = (f"no memory index in {db_path} yet ({eligible} {files} to index)", *listing.issues)
        return IndexJudgement(verdict="cold", why=why, identity=identity, **base)
    if read.meta is None:
        why = (
            f"the index has no identity row ({META_KEY}): it was never built ({eligible} {files} to index)",
        )
        return IndexJudgement(verdict="cold", why=why, identity=identity, **base)
    if not read.rows and eligible and not read.has_chunks:
        # The release's first search builds inside the call only when no chunk at all is indexed
        # (`hasIndexedContent`); session chunks make it answer at once and catch up: stale below.
        why = (f"the index holds no memory file while {eligible} {files} exist",)
        return IndexJudgement(verdict="cold", why=why, identity=identity, **base)
    new, changed, gone = _compare(listing, read.rows)
    base.update(new=tuple(new), changed=tuple(changed), gone=tuple(gone))
    if identity.status != "valid":
        why = (
            f"the index was built for other settings: {identity.reason} (OpenClaw reports it dirty, its "
            "vector search waits, until `openclaw memory index --force` rebuilds it)",
        )
        return IndexJudgement(verdict="invalid", why=why, identity=identity, **base)
    if new or changed or gone:
        reasons = []
        if new:
            reasons.append(_listed(new, "new file"))
        if changed:
            reasons.append(_listed(changed, "changed file"))
        if gone:
            reasons.append(_listed(gone, "deleted file"))
        return IndexJudgement(verdict="stale", why=tuple(reasons), identity=identity, **base)
    return IndexJudgement(verdict="warm", why=(), identity=identity, **base)
