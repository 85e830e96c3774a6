"""Fingerprints for the "fresh" path: what qmd would index, the settings, the qmd version.

A fingerprint is recorded next to the index (`<xdg-cache>/qmd/memwarm-fingerprint.json`) after a
successful run. When a later run computes the same digest and the index file is there, `qmd update` is
skipped. The file walk mirrors qmd 2.8.3's indexer (fast-glob, `onlyFiles`, no symlinked directories,
hidden entries and `node_modules`, `.git`, `.cache`, `vendor`, `dist`, `build` skipped); where the glob
translation is unsure it matches more files, never fewer, so a change is never missed.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from memwarm_cli.backends import state_files
from memwarm_cli.backends.qmd_collections import CollectionSpec
from memwarm_cli.backends.state_files import StatePath

FINGERPRINT_NAME = "memwarm-fingerprint.json"
FINGERPRINT_VERSION = 1
EXCLUDED_DIRS = frozenset({"node_modules", ".git", ".cache", "vendor", "dist", "build"})
FileList = list[tuple[str, int, int]]  # (relative path, size, mtime in ns), sorted


def split_glob_mask(mask: str) -> list[str]:
    """qmd's `splitGlobMask`: commas outside `{}` / `[]` separate patterns; empty parts dropped."""
    parts: list[str] = []
    current = ""
    brace = bracket = 0
    for ch in mask:
        if ch == "{":
            brace += 1
        elif ch == "}" and brace > 0:
            brace -= 1
        elif ch == "[":
            bracket += 1
        elif ch == "]" and bracket > 0:
            bracket -= 1
        elif ch == "," and brace == 0 and bracket == 0:
            if current.strip():
                parts.append(current.strip())
            current = ""
            continue
        current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def _segment_regex(segment: str) -> str:
    out = ""
    i = 0
    while i < len(segment):
        ch = segment[i]
        if ch == "*":
            out += "[^/]*"
        elif ch == "?":
            out += "[^/]"
        elif ch == "[":
            end = segment.find("]", i + 1)
            if end == -1:
                out += re.escape(ch)
            else:
                body = segment[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out += f"[{body}]"
                i = end
        elif ch == "{":
            end = segment.find("}", i + 1)
            if end == -1:
                out += re.escape(ch)
            else:
                options = segment[i + 1 : end].split(",")
                out += "(?:" + "|".join(_segment_regex(o) for o in options) + ")"
                i = end
        else:
            out += re.escape(ch)
        i += 1
    return out


def glob_regex(pattern: str) -> re.Pattern[str] | None:
    """A regex for relative POSIX paths matching `pattern`, or None to mean "anything" (unsure)."""
    pattern = pattern.removeprefix("./")
    if not pattern or pattern.startswith("/") or "!" in pattern.replace("[!", ""):
        return None
    pieces: list[str] = []
    segments = pattern.split("/")
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            pieces.append(".*" if last else "(?:[^/]+/)*")
        else:
            pieces.append(_segment_regex(segment) + ("" if last else "/"))
    try:
        return re.compile("".join(pieces) + r"\Z")
    except re.error:
        return None


def _walk(root: str, recursive: bool) -> Iterable[tuple[str, os.stat_result]]:
    """(relative POSIX path, stat) of the non-hidden files under root, pruning what qmd skips."""
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            entries = list(os.scandir(os.path.join(root, rel_dir) if rel_dir else root))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if recursive and entry.name not in EXCLUDED_DIRS:
                        stack.append(rel)
                    continue
                st = entry.stat(follow_symlinks=True)
            except OSError:
                continue
            if os.path.isdir(entry.path):
                continue  # a symlink to a directory: not followed
            yield rel, st


def collection_files(spec: CollectionSpec) -> FileList:
    """(path, size, mtime_ns) of the files of a collection as qmd would index them, sorted."""
    root = str(spec.path)
    patterns = split_glob_mask(spec.pattern) or [spec.pattern]
    regexes = [glob_regex(p) for p in patterns]
    match_all = any(r is None for r in regexes)
    recursive = match_all or any("/" in p or "**" in p for p in patterns)
    files: list[tuple[str, int, int]] = []
    for rel, st in _walk(root, recursive):
        if match_all or any(r is not None and r.match(rel) for r in regexes):
            files.append((rel, st.st_size, st.st_mtime_ns))
    files.sort()
    return files


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


@dataclass(frozen=True)
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

    def with_collection(self, name: str, files: FileList | None) -> Snapshot:
        return replace(self, files={**self.files, name: files})

    def digest(self, index_yml_digest: str | None) -> str:
        payload = {
            "v": FINGERPRINT_VERSION,
            "settings": self.settings,
            "qmdVersion": self.qmd_version,
            "files": {
                name: None if files is None else [list(f) for f in files]
                for name, files in sorted(self.files.items())
            },
            "transcripts": None if self.transcripts is None else [list(t) for t in self.transcripts],
            "indexYml": index_yml_digest,
        }
        text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    @property
    def file_count(self) -> int:
        return sum(len(files or ()) for files in self.files.values())


def snapshot_collection(spec: CollectionSpec) -> FileList | None:
    return collection_files(spec) if spec.path.is_dir() else None


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


@dataclass(frozen=True)
class StoredFingerprint:
    digest: str
    recorded_at: float
    vectors_current: bool  # False when the last embed failed (the agent was degraded)
    embed_failures: int
    managed_collections: tuple[str, ...]  # names memwarm created or manages for this agent
    file_count: int
    embed_failed_at: float = 0.0  # when the last embed failure happened (the backoff counts from it)


# The digest of a fingerprint kept only for its embed backoff: matches no snapshot.
UNSUCCESSFUL_DIGEST = ""


FINGERPRINT_MAX_BYTES = 1 << 20  # memwarm writes a few hundred bytes; anything this big is not its own
MAX_EMBED_FAILURES = 32  # the backoff reaches its 1 h ceiling at 7; more says nothing new
_MAX_BACKOFF_SECONDS = 3600
_MAX_COUNT = 2**53
_MAX_COLLECTIONS = 10_000
_MAX_NAME_CHARS = 1024
_DIGEST_RE = re.compile(r"[0-9a-f]{64}\Z")


class InvalidStateFile(ValueError):
    """A state file whose content memwarm did not write: it is discarded (the message says why)."""


def read_fingerprint(path: StatePath, warn: Callable[[str], None] | None = None) -> StoredFingerprint | None:
    """The fingerprint of the last run, or None when there is none or it cannot be used.

    An unusable one (a symlink, not JSON, wrong types, too big) is reported once through `warn` and
    treated as absent, so the run does a full pass and writes a good one. Absurd numbers are clamped:
    `embedFailures` to MAX_EMBED_FAILURES, timestamps in the future to now.
    """
    read = state_files.read_json(path, max_bytes=FINGERPRINT_MAX_BYTES)
    problem = read.problem
    if read.found and problem is None:
        try:
            return parse_fingerprint(read.data)
        except InvalidStateFile as exc:
            problem = str(exc)
    if problem is not None and warn is not None:
        warn(state_files.discarded_warning(path, problem))
    return None


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
    )


def _number(data: dict[str, Any], key: str) -> float:
    """A finite number >= 0 (missing: 0); anything else makes the file invalid."""
    value = data.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidStateFile(f"{key} is not a number")
    try:
        number = float(value)
    except OverflowError:
        raise InvalidStateFile(f"{key} is not a finite number") from None
    if not math.isfinite(number) or number < 0:
        raise InvalidStateFile(f"{key} is not a finite number >= 0")
    return number


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
    write_json_atomically(path, data)


def write_json_atomically(path: StatePath, data: Any) -> None:
    """JSON (2-space indent, one trailing newline) through state_files.write_atomically."""
    state_files.write_atomically(path, (json.dumps(data, indent=2) + "\n").encode("utf-8"))


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
