"""Fingerprints for the "fresh" path: what qmd would index, the settings, the qmd version.

A fingerprint is recorded next to the index (`<xdg-cache>/qmd/memwarm-fingerprint.json`) after a
successful run. When a later run computes the same digest and the index file is there, `qmd update` is
skipped. Which files a collection holds is file_walk.py's business.

Version 2 keeps, beside the digest, the digest of each part it covers (the settings, the qmd version,
index.yml, each collection's file list, the transcripts), so a mismatch can be explained part by part
(freshness.py); the file lists themselves go to a second file, `memwarm-files.json`, read only when a
collection's part differs, so the common case (nothing changed) reads a few hundred bytes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import field
from pathlib import Path
from typing import Any

from memwarm_cli.backends.freshness.file_walk import (
    FileList,
    PackedFileList,
    PackedFileLists,
    pack_file_list,
    snapshot_collection,
)
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
from memwarm_cli.frozen_records import record

FINGERPRINT_NAME = "memwarm-fingerprint.json"
FILE_LIST_NAME = "memwarm-files.json"
FINGERPRINT_VERSION = 2


def file_digest(path: Path) -> str | None:
    """sha256 of a regular file (qmd's index.yml), read in chunks; None when it cannot be read (a FIFO
    there is not waited on)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        digest = hashlib.sha256()
        while chunk := os.read(fd, 1 << 20):
            digest.update(chunk)
        return digest.hexdigest()
    except OSError:
        return None
    finally:
        os.close(fd)


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def fingerprint_path(state_dir: Path, paths: AgentQmdPaths) -> StatePath:
    """`<xdg-cache>/qmd/memwarm-fingerprint.json`, next to the agent's index."""
    return StatePath.of(state_dir, paths.index_path.parent / FINGERPRINT_NAME)


def file_list_digest(files: FileList | None) -> str | None:
    """One digest per file list (None for a missing directory), over its packed columns."""
    return None if files is None else packed_digest(pack_file_list(files))


def packed_digest(packed: PackedFileList) -> str:
    """The count, the paths joined by NUL (which no file name holds), then the sizes and mtimes as 64-bit
    integers: three C-level passes (formatting each entry in Python cost twice as much on 100k files).
    Names that are not UTF-8 keep their escapes."""
    digest = hashlib.sha256(str(packed.length).encode())
    digest.update(packed.paths.encode("utf-8", "surrogateescape"))
    digest.update(packed.sizes)
    digest.update(packed.mtimes)
    return digest.hexdigest()


@record
class FingerprintParts:
    """What a fingerprint covers, part by part: each part's digest (the qmd version as it is)."""

    settings: str
    qmd_version: str
    index_yml: str | None  # qmd's index.yml (None: missing or unreadable)
    collections: Mapping[str, str | None]  # name -> digest of its file list (None: no directory)
    transcripts: str | None  # the session export's inputs (None: export off)

    def digest(self) -> str:
        payload = {
            "v": FINGERPRINT_VERSION,
            "settings": self.settings,
            "qmdVersion": self.qmd_version,
            "indexYml": self.index_yml,
            "collections": dict(sorted(self.collections.items())),
            "transcripts": self.transcripts,
        }
        return _sha256(json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False))

    def to_json(self) -> dict[str, Any]:
        return {
            "settings": self.settings,
            "qmdVersion": self.qmd_version,
            "indexYml": self.index_yml,
            "collections": dict(self.collections),
            "transcripts": self.transcripts,
        }


@record
class Snapshot:
    """What the fingerprint covers, taken before qmd runs (a file changed meanwhile is caught next time).

    The session export's collection is the one exception: memwarm itself writes into it during the run,
    so its files are taken again right after the export (`with_collection`), before qmd reads them. What
    decides whether the export has work to do is `transcripts`, the export's inputs, taken before.
    """

    settings: Mapping[str, Any]
    qmd_version: str
    # collection name -> files; None when its directory does not exist (so its appearing, even empty,
    # changes the digest: the collection was not added and the next run must add it)
    files: Mapping[str, FileList | None]
    # the transcripts the session export reads (in the retention window); None when export is off
    transcripts: FileList | None = None
    _digests: dict[str, str | None] = field(default_factory=dict, compare=False, repr=False)
    # Each collection's list as parts() packed it to hash it, kept for __reduce__ (a forked walker's
    # snapshot is hashed, then pickled: packing it twice cost the walker 1.4 ms per 12,500 files).
    _packed: dict[str, PackedFileList] = field(default_factory=dict, compare=False, repr=False)

    def with_collection(self, name: str, files: FileList | None) -> Snapshot:
        return Snapshot(self.settings, self.qmd_version, {**self.files, name: files}, self.transcripts)

    def with_version(self, qmd_version: str) -> Snapshot:
        """The same files under the qmd version a run looked up: init-backends walks before it knows
        each agent's version. The digests computed so far stay (none of them covers the version)."""
        return Snapshot(self.settings, qmd_version, self.files, self.transcripts, self._digests)

    def parts(self, index_yml_digest: str | None) -> FingerprintParts:
        """The parts' digests (each file list hashed once per snapshot, however often this is asked)."""
        cache = self._digests
        if "settings" not in cache:
            cache["settings"] = _sha256(
                json.dumps(self.settings, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            )
            cache["transcripts"] = file_list_digest(self.transcripts)
            for name, files in self.files.items():
                if files is None:
                    cache[f"c:{name}"] = None
                else:
                    self._packed[name] = packed = pack_file_list(files)
                    cache[f"c:{name}"] = packed_digest(packed)
        settings = cache["settings"]
        assert settings is not None
        return FingerprintParts(
            settings=settings,
            qmd_version=self.qmd_version,
            index_yml=index_yml_digest,
            collections={name: cache[f"c:{name}"] for name in self.files},
            transcripts=cache["transcripts"],
        )

    def digest(self, index_yml_digest: str | None) -> str:
        return self.parts(index_yml_digest).digest()

    @property
    def file_count(self) -> int:
        return sum(len(files or ()) for files in self.files.values())

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (forked_map) with each collection's file list packed; the digests computed so far
        travel along."""
        packed = {
            name: None if files is None else self._packed.get(name) or pack_file_list(files)
            for name, files in self.files.items()
        }
        return (_walked_snapshot, (self.settings, self.qmd_version, packed, self.transcripts, self._digests))


def _walked_snapshot(
    settings: Mapping[str, Any],
    qmd_version: str,
    packed: Mapping[str, PackedFileList | None],
    transcripts: FileList | None,
    digests: dict[str, str | None],
) -> Snapshot:
    return Snapshot(settings, qmd_version, PackedFileLists(packed), transcripts, digests)


def take_snapshot(
    settings: Mapping[str, Any],
    qmd_version: str,
    collections: Iterable[CollectionSpec],
    transcripts: FileList | None = None,
) -> Snapshot:
    return Snapshot(
        settings=settings,
        qmd_version=qmd_version,
        files={spec.name: snapshot_collection(spec) for spec in collections},
        transcripts=transcripts,
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
_DIGEST_RE = re.compile(r"[0-9a-f]{64}\Z")


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
    if not isinstance(digest, str) or not (digest == UNSUCCESSFUL_DIGEST or _DIGEST_RE.match(digest)):
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
    if value is None or (isinstance(value, str) and _DIGEST_RE.match(value)):
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
        index_yml=_optional_digest(value.get("indexYml"), "indexYml"),
        collections=dict(collections),
        transcripts=_optional_digest(value.get("transcripts"), "transcripts"),
    )


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


def embed_backoff_seconds(failures: int) -> float:
    """Upstream's embed backoff: min(1h, 60 s · 2^(n-1)) after n consecutive failures (no 2**1e14:
    the exponent stops where the ceiling is reached)."""
    if failures <= 0:
        return 0.0
    return float(min(_MAX_BACKOFF_SECONDS, 60 * 2 ** (min(failures, MAX_EMBED_FAILURES) - 1)))


def now() -> float:
    return time.time()
