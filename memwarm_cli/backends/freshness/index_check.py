"""One collection's files against the documents qmd's index holds for it, as `qmd update` would compare
them (qmd 2.8.3 `reindexCollection`; research backend-635 §6).

qmd's update is content-hash based: a file whose sha256 (of its text read as UTF-8, invalid bytes as
U+FFFD) equals its active row's hash is unchanged, whatever its mtime; a file without a row is new; a row
whose file the walk no longer finds is deactivated. A whitespace-only file is skipped with its row left as
it is, and a file that cannot be read counts as seen: neither is ever work.

Reading every file would cost more than the walk; so a file whose mtime is the one qmd wrote into
`modified_at` when it stored that row's content (`new Date(stat.mtime).toISOString()`, whole ms) is taken
as unchanged unread. Only the others (an edit, a `touch`, an export rewritten with the same bytes) are
read and hashed. Walk and rows both come in path byte order, so the comparison is one merge that holds
no list of either.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator

from memwarm_cli.backends.freshness.file_walk import Chunk, ListDigest, walk_chunks
from memwarm_cli.backends.freshness.qmd_glob import Matcher
from memwarm_cli.backends.freshness.sha256 import sha256_hex
from memwarm_cli.backends.qmd.index_stats import document_rows
from memwarm_cli.cancel import CancelToken
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_trim
from memwarm_cli.safe_files import FileTooLargeError, NotRegularFileError, read_bounded
from memwarm_cli.sqlite_driver import sqlite3

EXAMPLE_PATHS = 3  # the first few paths named per kind of change
MAX_READ_BYTES = 64 << 20  # a note larger than this is compared by its mtime alone


def js_mtime_ms(mtime_ns: int) -> int:
    """Node's `stat.mtime.getTime()`: `Math.round(sec * 1000 + nsec / 1e6)` in doubles, as Node computes
    `mtimeMs` (checked against Node 22 on 3,000 mtimes); integer rounding differs near .5 ms."""
    sec, nsec = divmod(mtime_ns, 1_000_000_000)
    value = sec * 1000 + nsec / 1e6
    whole = math.floor(value)
    return whole + (value - whole >= 0.5)


WHITESPACE_ONLY = ""  # content_hash's answer for a file qmd skips (its row, if any, is left alone)


def content_hash(path: str) -> str | None:
    """qmd's hash of a file's content: sha256 of its text as UTF-8, invalid bytes read as U+FFFD;
    WHITESPACE_ONLY when the text is whitespace alone (JS trim); None when it cannot be read."""
    try:
        data, _ = read_bounded(path, MAX_READ_BYTES, follow_symlinks=False)
    except (OSError, ValueError, NotRegularFileError, FileTooLargeError):
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
        data = text.encode("utf-8")
    if not js_trim(text):
        return WHITESPACE_ONLY
    return sha256_hex(data)


@record
class FileChanges:
    """How a collection's files differ from the index: what `qmd update` would add, update, deactivate."""

    scope: str  # the collection's name
    added: int
    changed: int  # content differs from the indexed one
    removed: int
    examples: tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]] = ((), (), ())  # first paths of each

    @property
    def count(self) -> int:
        return self.added + self.changed + self.removed

    def describe(self) -> str:
        parts = []
        for verb, count, paths in zip(
            ("added", "changed", "removed"),
            (self.added, self.changed, self.removed),
            self.examples,
            strict=True,
        ):
            if count:
                shown = ", ".join(paths) + (", ..." if count > len(paths) else "")
                parts.append(f"{count} {verb} ({shown})")
        return f"{self.scope}: {'; '.join(parts)} (against the index)"

    def to_json(self) -> dict[str, object]:
        added, changed, removed = self.examples
        return {
            "scope": self.scope,
            "known": True,
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "paths": {"added": list(added), "changed": list(changed), "removed": list(removed)},
        }


class _Tally:
    def __init__(self) -> None:
        self.counts = [0, 0, 0]
        self.examples: tuple[list[str], list[str], list[str]] = ([], [], [])

    def add(self, kind: int, path: str) -> None:
        self.counts[kind] += 1
        if len(self.examples[kind]) < EXAMPLE_PATHS:
            self.examples[kind].append(path)


ADDED, CHANGED, REMOVED = 0, 1, 2


@record
class CollectionCheck:
    digest: ListDigest  # of the files walked (the record's part for this collection)
    changes: FileChanges  # count 0: the index holds every file as it is now


def check_collection(
    db: sqlite3.Connection,
    name: str,
    root: str,
    matcher: Matcher,
    ignore: re.Pattern[str] | None = None,
    token: CancelToken | None = None,
) -> CollectionCheck:
    """Walk `root` as qmd would and merge it with the collection's active rows; files matching the
    collection's own `ignore` globs are left out of the comparison (not of the digest, which the
    record compares without reading the index)."""
    rows: Iterator[tuple[str, str, int | None]] = document_rows(db, name)
    row = next(rows, None)
    tally = _Tally()
    digest = ListDigest()
    prefix = root.rstrip(os.sep) + os.sep
    chunk: Chunk
    for chunk in walk_chunks(root, matcher):
        if token is not None:
            token.check()
        digest.update(chunk)
        for rel, _size, mtime_ns in chunk:
            if ignore is not None and ignore.match(rel) is not None:
                continue
            while row is not None and row[0] < rel:
                tally.add(REMOVED, row[0])
                row = next(rows, None)
            if row is not None and row[0] == rel:
                stored_ms = row[2]
                if stored_ms is None or (
                    (mtime_ns + 500_000) // 1_000_000 != stored_ms and js_mtime_ms(mtime_ns) != stored_ms
                ):
                    found = content_hash(prefix + rel)
                    if found is not None and found != WHITESPACE_ONLY and found != row[1]:
                        tally.add(CHANGED, rel)
                row = next(rows, None)
            else:
                found = content_hash(prefix + rel)
                if found is not None and found != WHITESPACE_ONLY:
                    tally.add(ADDED, rel)
    while row is not None:
        tally.add(REMOVED, row[0])
        row = next(rows, None)
    added, changed, removed = tally.counts
    examples = tuple(tuple(paths) for paths in tally.examples)
    changes = FileChanges(name, added, changed, removed, examples)  # type: ignore[arg-type]
    return CollectionCheck(digest, changes)


def count_active(db: sqlite3.Connection, name: str) -> int:
    """Active documents of a collection (those `qmd update` would deactivate when its files are gone)."""
    row = db.execute("SELECT COUNT(*) FROM documents WHERE collection = ? AND active = 1", (name,)).fetchone()
    return int(row[0]) if row else 0


def removed_changes(db: sqlite3.Connection, name: str) -> FileChanges:
    """Every active row of a collection whose directory is gone: all of them would be deactivated."""
    tally = _Tally()
    for path, _hash, _ms in document_rows(db, name):
        tally.add(REMOVED, path)
    added, changed, removed = tally.counts
    examples = tuple(tuple(paths) for paths in tally.examples)
    return FileChanges(name, added, changed, removed, examples)  # type: ignore[arg-type]
