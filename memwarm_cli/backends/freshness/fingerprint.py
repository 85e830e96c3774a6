"""memwarm's record of an index it saw current: a cache that spares the next run reading the index.

The truth about an agent's index is the index itself (freshness.py, index_check.py): it is current when
it holds every file its collections would index, with that file's content, whoever built it. Reading
it means merging every collection's files with its rows; the record spares that when nothing moved:
after a successful run (or a run that found the index current), `<xdg-cache>/qmd/memwarm-fingerprint.json`
keeps, part by part, the digest of the agent's qmd settings, of each collection's file list (path,
size, mtime: file_walk.py), of the session export's inputs, and the index file's identity. A later run
whose parts match (the index not written since, the collection's files as they were) needs no more
than its walk; a part that differs sends that collection back to the index, never straight to "stale".

Version 2 of the file (the format of earlier memwarm) is kept: a record written by an older memwarm has
no index identity, matches nothing, and is replaced on the next run.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Iterator, Mapping

from memwarm_cli.backends.freshness.file_walk import FileList, list_digest, snapshot_collection
from memwarm_cli.backends.freshness.sha256 import sha256_hex
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.backends.settings.qmd_paths import AgentQmdPaths
from memwarm_cli.backends.state import state_files
from memwarm_cli.backends.state.state_files import StatePath
from memwarm_cli.backends.state.state_records import (
    InvalidStateFile,
    read_record,
    record_number,
    write_json_atomically,
)
from memwarm_cli.frozen_records import field, record

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

FINGERPRINT_NAME = "memwarm-fingerprint.json"
FILE_LIST_NAME = "memwarm-files.json"  # an earlier memwarm's file lists: removed when a record is written
FINGERPRINT_VERSION = 2


def sha256_text(text: str) -> str:
    return sha256_hex(text.encode("utf-8", "surrogatepass"))


def settings_digest(settings: Mapping[str, Any]) -> str:
    return sha256_text(json.dumps(settings, sort_keys=True, separators=(",", ":"), ensure_ascii=False))


def fingerprint_path(state_dir: str | os.PathLike[str], paths: AgentQmdPaths) -> StatePath:
    """`<xdg-cache>/qmd/memwarm-fingerprint.json`, next to the agent's index."""
    return StatePath.of(state_dir, paths.index_path.parent / FINGERPRINT_NAME)


@record
class FingerprintParts:
    """What a record covers, part by part, each as a digest (the qmd version as it is, for the reader)."""

    settings: str
    qmd_version: str
    index: str | None  # the index file's identity when the record was written (None: no index)
    collections: Mapping[str, str | None]  # name -> digest of its file list (None: no directory)
    transcripts: str | None  # the session export's inputs (None: export off)

    def digest(self) -> str:
        payload = {
            "v": FINGERPRINT_VERSION,
            "settings": self.settings,
            "index": self.index,
            "collections": dict(sorted(self.collections.items())),
            "transcripts": self.transcripts,
        }
        return sha256_text(json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False))

    def to_json(self) -> dict[str, Any]:
        return {
            "settings": self.settings,
            "qmdVersion": self.qmd_version,
            "index": self.index,
            "collections": dict(self.collections),
            "transcripts": self.transcripts,
        }


class _CollectionFiles(Mapping[str, FileList | None]):
    """Each collection's files, walked when first asked for (only `--probe` asks: a run keeps no list)."""

    def __init__(self, specs: tuple[CollectionSpec, ...], given: Mapping[str, FileList | None]) -> None:
        self._specs = {spec.name: spec for spec in specs}
        self._lists = dict(given)

    def __getitem__(self, name: str) -> FileList | None:
        if name not in self._lists:
            self._lists[name] = snapshot_collection(self._specs[name])
        return self._lists[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._specs)

    def __len__(self) -> int:
        return len(self._specs)


@record
class Snapshot:
    """The parts as the judgement found them, taken before qmd runs (a file changed meanwhile changes its
    collection's digest, and the next run looks at the index again).

    The session export's collection is the one exception: memwarm itself writes into it during the run,
    so it is taken again right after the export (`with_collection`), before qmd reads it."""

    settings: str
    qmd_version: str
    collections: Mapping[str, str | None]
    transcripts: str | None
    counts: Mapping[str, int]  # files per collection
    specs: tuple[CollectionSpec, ...] = ()
    _given: dict[str, FileList | None] = field(default_factory=dict, compare=False, repr=False)

    @property
    def file_count(self) -> int:
        return sum(self.counts.values())

    @property
    def files(self) -> Mapping[str, FileList | None]:
        return _CollectionFiles(self.specs, self._given)

    def with_collection(self, name: str, files: FileList | None) -> Snapshot:
        spec = next(spec for spec in self.specs if spec.name == name)
        return Snapshot(
            self.settings,
            self.qmd_version,
            {**self.collections, name: list_digest(spec, files)},
            self.transcripts,
            {**self.counts, name: len(files or ())},
            self.specs,
            {**self._given, name: files},
        )

    def with_version(self, qmd_version: str) -> Snapshot:
        return Snapshot(
            self.settings,
            qmd_version,
            self.collections,
            self.transcripts,
            self.counts,
            self.specs,
            self._given,
        )

    def parts(self, index: str | None) -> FingerprintParts:
        return FingerprintParts(
            self.settings, self.qmd_version, index, dict(self.collections), self.transcripts
        )


@record
class StoredFingerprint:
    digest: str
    recorded_at: float
    vectors_current: bool  # False when the last embed failed (the agent was degraded)
    embed_failures: int
    managed_collections: tuple[str, ...]  # names memwarm created or manages for this agent
    file_count: int
    embed_failed_at: float = 0.0  # when the last embed failure happened (the backoff counts from it)
    parts: FingerprintParts | None = None  # what the digest covered, part by part (to explain a change)


# The digest of a fingerprint kept only for its embed backoff: matches no snapshot.
UNSUCCESSFUL_DIGEST = ""


FINGERPRINT_MAX_BYTES = 1 << 20  # memwarm writes a few hundred bytes; anything this big is not its own
MAX_EMBED_FAILURES = 32  # the backoff reaches its 1 h ceiling at 7; more says nothing new
_MAX_BACKOFF_SECONDS = 3600
_MAX_COUNT = 2**53
_MAX_COLLECTIONS = 10_000
_MAX_NAME_CHARS = 1024
_HEX_DIGITS = "0123456789abcdef"


def _is_digest(text: str) -> bool:
    """A sha256 in lower-case hex (`[0-9a-f]{64}`: told without compiling that, ~0.1 ms of a status)."""
    return len(text) == 64 and not text.strip(_HEX_DIGITS)


def read_fingerprint(path: StatePath, warn: Callable[[str], None] | None = None) -> StoredFingerprint | None:
    """The fingerprint of the last run, or None when there is none or it cannot be used.

    An unusable one (a symlink, not JSON, wrong types, too big) is reported once through `warn` and
    treated as absent, so the run does a full pass and writes a good one. Absurd numbers are clamped:
    `embedFailures` to MAX_EMBED_FAILURES, timestamps in the future to now.
    """
    return read_record(path, parse_fingerprint, max_bytes=FINGERPRINT_MAX_BYTES, warn=warn)


def parse_fingerprint(data: Any) -> StoredFingerprint | None:
    """A stored fingerprint from its JSON (None: another format version); InvalidStateFile when it is not
    one memwarm would write."""
    if not isinstance(data, dict):
        raise InvalidStateFile("it is not a JSON object")
    if type(data.get("version")) is not int:
        raise InvalidStateFile("version is not an integer")
    if data["version"] != FINGERPRINT_VERSION:
        return None  # another memwarm's format: not invalid, just not usable here
    digest = data.get("digest")
    if not isinstance(digest, str) or not (digest == UNSUCCESSFUL_DIGEST or _is_digest(digest)):
        raise InvalidStateFile("digest is not a sha256 in hex")
    vectors_current = data.get("vectorsCurrent", True)
    if not isinstance(vectors_current, bool):
        raise InvalidStateFile("vectorsCurrent is not true or false")
    managed = data.get("managedCollections", [])
    if (
        not isinstance(managed, list)
        or len(managed) > _MAX_COLLECTIONS
        or not all(isinstance(x, str) and 0 < len(x) <= _MAX_NAME_CHARS for x in managed)
    ):
        raise InvalidStateFile("managedCollections is not a list of collection names")
    moment = now()
    return StoredFingerprint(
        digest=digest,
        recorded_at=_timestamp(data, "recordedAt", moment),
        vectors_current=vectors_current,
        embed_failures=_count(data, "embedFailures", MAX_EMBED_FAILURES),
        managed_collections=tuple(managed),
        file_count=_count(data, "fileCount", _MAX_COUNT),
        embed_failed_at=_timestamp(data, "embedFailedAt", moment),
        parts=_parts(data.get("parts")),
    )


def _optional_digest(value: Any, key: str) -> str | None:
    if value is None or (isinstance(value, str) and _is_digest(value)):
        return value
    raise InvalidStateFile(f"parts.{key} is not a sha256 in hex or null")


def _parts(value: Any) -> FingerprintParts | None:
    """The parts (absent: None, the mismatch is then explained as a whole)."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise InvalidStateFile("parts is not a JSON object")
    settings = _optional_digest(value.get("settings"), "settings")
    version = value.get("qmdVersion")
    if settings is None or not isinstance(version, str) or len(version) > _MAX_NAME_CHARS:
        raise InvalidStateFile("parts lacks the settings digest or the qmd version")
    collections = value.get("collections")
    if not isinstance(collections, dict) or len(collections) > _MAX_COLLECTIONS:
        raise InvalidStateFile("parts.collections is not a JSON object")
    for name, digest in collections.items():
        if len(name) > _MAX_NAME_CHARS:
            raise InvalidStateFile("parts.collections holds a name longer than a collection name can be")
        _optional_digest(digest, "collections")
    return FingerprintParts(
        settings=settings,
        qmd_version=version,
        index=_optional_identity(value.get("index")),
        collections=dict(collections),
        transcripts=_optional_digest(value.get("transcripts"), "transcripts"),
    )


def _optional_identity(value: Any) -> str | None:
    if value is None or (isinstance(value, str) and _is_digest(value)):
        return value
    raise InvalidStateFile("parts.index is not a sha256 in hex or null")


def _number(data: dict[str, Any], key: str) -> float:
    """A finite number >= 0 (missing: 0); anything else makes the file invalid."""
    return record_number(data.get(key, 0), key)


def _count(data: dict[str, Any], key: str, maximum: int) -> int:
    return int(min(_number(data, key), maximum))


def _timestamp(data: dict[str, Any], key: str, moment: float) -> float:
    """Epoch seconds; a moment in the future (a clock set back, a tampered file) counts as now."""
    return min(_number(data, key), moment)


def write_fingerprint(path: StatePath, stored: StoredFingerprint) -> None:
    """Atomically replace the fingerprint file (never through a symlink; no temp file left behind)."""
    data = {
        "version": FINGERPRINT_VERSION,
        "digest": stored.digest,
        "recordedAt": stored.recorded_at,
        "vectorsCurrent": stored.vectors_current,
        "embedFailures": min(max(stored.embed_failures, 0), MAX_EMBED_FAILURES),
        "managedCollections": list(stored.managed_collections),
        "fileCount": stored.file_count,
        "embedFailedAt": stored.embed_failed_at,
    }
    if stored.parts is not None:
        data["parts"] = stored.parts.to_json()
    write_json_atomically(path, data)


def remove_fingerprint(path: StatePath) -> None:
    state_files.remove_file(path)


def legacy_file_lists(path: StatePath) -> StatePath:
    """Where an earlier memwarm kept the file lists (up to a hundred megabytes on a million notes)."""
    return StatePath(path.state_dir, (*path.parts[:-1], FILE_LIST_NAME))


def embed_backoff_seconds(failures: int) -> float:
    """Upstream's embed backoff: min(1h, 60 s · 2^(n-1)) after n consecutive failures (no 2**1e14:
    the exponent stops where the ceiling is reached)."""
    if failures <= 0:
        return 0.0
    return float(min(_MAX_BACKOFF_SECONDS, 60 * 2 ** (min(failures, MAX_EMBED_FAILURES) - 1)))


def now() -> float:
    return time.time()
