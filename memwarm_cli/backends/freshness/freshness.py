"""Would an `init-backends` run now be `fresh`? One answer, computed by one function for init-backends
(which only needs yes or no, and takes the fast path: digest equality) and for `status` (which always
wants the reasons when the answer is no).

The reasons come from the fingerprint's parts (fingerprint.py): the settings, the qmd version, qmd's
index.yml, each collection's file list, the transcripts. Where a file list differs, the lists recorded
with the fingerprint (`memwarm-files.json`, read only then) say which files were added, changed or
removed.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from memwarm_cli.backends.freshness import fingerprint as fp
from memwarm_cli.backends.freshness.file_walk import FileList
from memwarm_cli.backends.freshness.fingerprint import FingerprintParts, Snapshot, StoredFingerprint
from memwarm_cli.backends.freshness.forked_map import forked_map
from memwarm_cli.backends.settings.qmd_settings import QmdSettings
from memwarm_cli.backends.state import state_files
from memwarm_cli.backends.state.state_files import StatePath
from memwarm_cli.backends.state.state_records import InvalidStateFile, read_record
from memwarm_cli.cancel import CancelToken
from memwarm_cli.frozen_records import record

EXAMPLE_PATHS = 3  # the first few paths named per kind of change

ReasonKind = Literal[
    "no-record",
    "unsuccessful",
    "index-missing",
    "settings",
    "qmd-version",
    "index-yml",
    "collection-new",
    "collection-gone",
    "directory-appeared",
    "directory-gone",
    "files",
    "transcripts",
    "unexplained",
]


def agent_snapshot(qmd: QmdSettings, qmd_version: str, now_ms: int) -> Snapshot:
    """What the fingerprint covers for one agent now: its settings, the qmd version, every managed
    collection's files and, with session export on, the transcripts a pass at `now_ms` would read (the
    export's inputs, not its output)."""
    sessions = qmd.sessions
    transcripts = None
    if sessions.enabled:
        from memwarm_cli.backends.sessions.session_export import (
            transcripts_in_window,  # its redaction rules cost
        )

        transcripts = transcripts_in_window(
            sessions.sessions_dir, retention_days=sessions.retention_days, now_ms=now_ms
        )
    return fp.take_snapshot(qmd.as_dict(), qmd_version, qmd.collections, transcripts)


def walked_snapshot(job: tuple[QmdSettings, str, int]) -> Snapshot:
    """agent_snapshot(qmd, version, now_ms) with its digests computed: what `status` and `init-backends`
    hand each forked worker (forked_map), so a file list is hashed where it was walked."""
    qmd, qmd_version, now_ms = job
    snapshot = agent_snapshot(qmd, qmd_version, now_ms)
    snapshot.parts(None)
    return snapshot


def walk_snapshots(
    jobs: Sequence[tuple[QmdSettings, str, int]], token: CancelToken, workers: int | None = None
) -> list[Snapshot]:
    """walked_snapshot for each job, in forked workers (forked_map). A cancelled token ends the walks
    between agents (Cancelled), and forked_map stops its children."""

    def walk(job: tuple[QmdSettings, str, int]) -> Snapshot:
        token.check()
        return walked_snapshot(job)

    return forked_map(walk, jobs, workers)


@record
class FileChanges:
    """How a file list changed since the last successful run (paths relative to the collection)."""

    scope: str  # the collection's name, or "transcripts"
    added: tuple[str, ...]
    changed: tuple[str, ...]  # size or mtime differ
    removed: tuple[str, ...]
    known: bool = True  # False: the recorded list is not available, only that it differs

    @property
    def count(self) -> int:
        return len(self.added) + len(self.changed) + len(self.removed)

    def describe(self) -> str:
        if not self.known:
            return f"{self.scope}: files changed (the last run's file list is not available)"
        parts = []
        for verb, paths in (("added", self.added), ("changed", self.changed), ("removed", self.removed)):
            if paths:
                shown = ", ".join(paths[:EXAMPLE_PATHS]) + (", ..." if len(paths) > EXAMPLE_PATHS else "")
                parts.append(f"{len(paths)} {verb} ({shown})")
        return f"{self.scope}: {'; '.join(parts)}"

    def to_json(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "known": self.known,
            "added": len(self.added),
            "changed": len(self.changed),
            "removed": len(self.removed),
            "paths": {
                "added": list(self.added[:EXAMPLE_PATHS]),
                "changed": list(self.changed[:EXAMPLE_PATHS]),
                "removed": list(self.removed[:EXAMPLE_PATHS]),
            },
        }


@record
class StaleReason:
    kind: ReasonKind
    text: str  # one sentence (outside text raw: the CLI escapes it)
    changes: FileChanges | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "text": self.text,
            "changes": self.changes.to_json() if self.changes else None,
        }


@record
class Freshness:
    fresh: bool
    reasons: tuple[StaleReason, ...] = ()  # empty when fresh, or when not asked to explain

    @property
    def stale_files(self) -> int:
        """Files added, changed or removed (those the recorded lists can name)."""
        return sum(r.changes.count for r in self.reasons if r.changes is not None)

    def to_json(self) -> dict[str, Any]:
        return {
            "fresh": self.fresh,
            "staleFiles": self.stale_files,
            "reasons": [reason.to_json() for reason in self.reasons],
        }


FRESH = Freshness(True)
FileListLoader = Callable[[FingerprintParts], "StoredFiles | None"]


def judge_freshness(
    snapshot: Snapshot,
    stored: StoredFingerprint | None,
    *,
    index_present: bool,
    index_yml_digest: str | None,
    explain: bool,
    load_file_lists: FileListLoader | None = None,
) -> Freshness:
    """Fresh when the last successful run's fingerprint matches `snapshot` and the index is there.

    Without `explain` a mismatch is just "not fresh" (init-backends: it is about to do the work anyway);
    with it, every reason, the recorded file lists loaded (through `load_file_lists`) only when a
    collection's or the transcripts' part differs.
    """
    if stored is None:
        reason = StaleReason("no-record", "no successful init-backends run is recorded")
        return Freshness(False, (reason,) if explain else ())
    current = snapshot.parts(index_yml_digest)
    if index_present and stored.digest == current.digest():
        return FRESH
    if not explain:
        return Freshness(False)
    reasons: list[StaleReason] = []
    if not index_present:
        reasons.append(StaleReason("index-missing", "the index file is missing"))
    if stored.digest == fp.UNSUCCESSFUL_DIGEST:
        reasons.append(StaleReason("unsuccessful", "the last run's search probe did not answer"))
    if stored.parts is not None:
        reasons += _part_reasons(stored.parts, current, snapshot, load_file_lists)
    if not reasons:
        reasons.append(StaleReason("unexplained", "the fingerprint differs (its parts were not recorded)"))
    return Freshness(False, tuple(reasons))


def _part_reasons(
    old: FingerprintParts, new: FingerprintParts, snapshot: Snapshot, load: FileListLoader | None
) -> list[StaleReason]:
    reasons: list[StaleReason] = []
    if old.settings != new.settings:
        reasons.append(StaleReason("settings", "the agent's qmd settings changed"))
    if old.qmd_version != new.qmd_version:
        text = f"the qmd version changed ({old.qmd_version or 'unknown'} -> {new.qmd_version or 'unknown'})"
        reasons.append(StaleReason("qmd-version", text))
    if old.index_yml != new.index_yml:
        text = "qmd's index.yml changed since the last run (collections edited outside memwarm?)"
        reasons.append(StaleReason("index-yml", text))
    lists: list[StoredFiles | None] = []  # loaded at most once

    def recorded() -> StoredFiles | None:
        if not lists:
            lists.append(load(old) if load is not None else None)
        return lists[0]

    for name in old.collections.keys() - new.collections.keys():
        reasons.append(StaleReason("collection-gone", f"collection {name} is no longer configured"))
    for name, digest in new.collections.items():
        if name not in old.collections:
            reasons.append(StaleReason("collection-new", f"collection {name} is new in the config"))
            continue
        before = old.collections[name]
        if before == digest:
            continue
        if before is None:
            text = f"the directory of collection {name} appeared"
            reasons.append(StaleReason("directory-appeared", text))
        elif digest is None:
            reasons.append(StaleReason("directory-gone", f"the directory of collection {name} is gone"))
        else:
            files = recorded()
            changes = _changes(name, files.collections.get(name) if files else None, snapshot.files[name])
            reasons.append(StaleReason("files", changes.describe(), changes))
    if old.transcripts != new.transcripts:
        files = recorded()
        changes = _changes("transcripts", files.transcripts if files else None, snapshot.transcripts)
        reasons.append(StaleReason("transcripts", f"session {changes.describe()}", changes))
    return reasons


def _changes(scope: str, before: FileList | None, after: FileList | None) -> FileChanges:
    if before is None or after is None:
        return FileChanges(scope, (), (), (), known=False)
    old = {rel: (size, mtime) for rel, size, mtime in before}
    new = {rel: (size, mtime) for rel, size, mtime in after}
    return FileChanges(
        scope,
        added=tuple(sorted(new.keys() - old.keys())),
        changed=tuple(sorted(rel for rel in new.keys() & old.keys() if new[rel] != old[rel])),
        removed=tuple(sorted(old.keys() - new.keys())),
    )


# -- the file lists recorded with a fingerprint -----------------------------------------------------

FILE_LIST_MAX_BYTES = 256 << 20  # about 2.5 million files; a larger list is not written (nor read)


@record
class StoredFiles:
    """The file lists a fingerprint's parts were computed from (`memwarm-files.json`)."""

    parts_digest: str  # FingerprintParts.digest() of the fingerprint these lists belong to
    collections: Mapping[str, FileList | None]
    transcripts: FileList | None


def file_list_path(fingerprint_path: StatePath) -> StatePath:
    return StatePath(fingerprint_path.state_dir, (*fingerprint_path.parts[:-1], fp.FILE_LIST_NAME))


def write_file_lists(path: StatePath, snapshot: Snapshot, parts: FingerprintParts) -> None:
    """The snapshot's file lists, compact (one JSON line: 12,500 files are about a megabyte)."""
    data = {
        "version": fp.FINGERPRINT_VERSION,
        "partsDigest": parts.digest(),
        "collections": {name: files for name, files in snapshot.files.items()},
        "transcripts": snapshot.transcripts,
    }
    # ASCII: a name that is not UTF-8 keeps its surrogate escapes as \udcXX, and reads back the same.
    encoded = (json.dumps(data, separators=(",", ":")) + "\n").encode("ascii")
    if len(encoded) > FILE_LIST_MAX_BYTES:
        state_files.remove_file(path)  # an older list would explain against the wrong run
        return
    state_files.write_atomically(path, encoded)


def read_file_lists(path: StatePath, parts: FingerprintParts) -> StoredFiles | None:
    """The lists recorded with `parts`, or None (absent, unusable, or another run's: never an error, the
    explanation then names the collection without its files)."""
    digest = parts.digest()

    def parse(data: Any) -> StoredFiles | None:
        if (
            not isinstance(data, dict)
            or data.get("version") != fp.FINGERPRINT_VERSION
            or data.get("partsDigest") != digest
            or not isinstance(data.get("collections"), dict)
        ):
            return None
        collections = {name: _file_list(files) for name, files in data["collections"].items()}
        return StoredFiles(digest, collections, _file_list(data.get("transcripts")))

    return read_record(path, parse, max_bytes=FILE_LIST_MAX_BYTES, warn=None)


def _file_list(value: Any) -> FileList | None:
    if value is None:
        return None
    if not isinstance(value, list):
        raise InvalidStateFile("not a file list")
    files: FileList = []
    for entry in value:
        if (
            not isinstance(entry, list)
            or len(entry) != 3
            or not isinstance(entry[0], str)
            or type(entry[1]) is not int
            or type(entry[2]) is not int
        ):
            raise InvalidStateFile("not a file list")
        files.append((entry[0], entry[1], entry[2]))
    return files
