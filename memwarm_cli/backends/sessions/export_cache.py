"""What memwarm remembers between runs about each exported transcript, so an unchanged one is not parsed
and redacted again (the file itself, `<qmdDir>/memwarm-session-export.json`, is read and written by
init/session_export_step.py through the state-dir helpers).

Per transcript name: the transcript's identity when it was rendered (device, inode, size, mtime and
ctime in ns: an edit in place that keeps the size and puts the mtime back still moves the ctime),
the export's SHA-256 and size, the lines that were too long to read, and the identity of the export
file as the pass left it. A transcript whose identity matches, under the same renderer (`renderer()`,
which names the release the output follows and the line cap), is not read again; an export file whose
identity matches too is not read either. Anything else is rendered (and compared) again.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import Any

from memwarm_cli.frozen_records import record


@record
class FileIdentity:
    """What says a file has not changed: device, inode, size, mtime and ctime (ns). The ctime cannot be set
    back (utime moves it too), so a same-size edit with the mtime restored is seen."""

    dev: int
    ino: int
    size: int
    mtime_ns: int
    ctime_ns: int

    @classmethod
    def of(cls, info: os.stat_result) -> FileIdentity:
        return cls(info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


SCHEMA = 1
CACHE_FILE_NAME = "memwarm-session-export.json"
MAX_CACHE_BYTES = 64 * 1024 * 1024


def renderer() -> str:
    """The renderer the cache's entries are valid for. The transcript reader is imported here, not at
    the top: its redaction rules compile ~200 regexes (100 ms), and every init-backends run imports
    this module (search_probe, session_export_files) while most never export."""
    # clear_secrets (~0.7 ms by -X importtime, the redaction package's __init__ with it): as below
    from memwarm_cli.backends.sessions.redaction.clear_secrets import formats_digest

    # transcript_text: the redaction rules (docstring), which most init-backends runs never need
    from memwarm_cli.backends.sessions.transcript_text import MAX_RECORD_BYTES

    return f"openclaw-2026.6.35/export-1/cap-{MAX_RECORD_BYTES}/clear-{formats_digest()}"


@record
class CachedExport:
    transcript: FileIdentity
    digest: str  # SHA-256 of the export's bytes
    size: int
    oversized_lines: tuple[int, ...]
    export: FileIdentity | None  # the export file as the last pass left it (None: not known)
    clear_secrets: tuple[
        tuple[int, int], ...
    ] = ()  # (clear_secrets.CLEAR_FORMATS index, count) in the export


def _identity(data: Any) -> FileIdentity | None:
    if not isinstance(data, list) or len(data) != 5:
        return None
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in data):
        return None
    return FileIdentity(*data)


def _identity_json(identity: FileIdentity) -> list[int]:
    return [identity.dev, identity.ino, identity.size, identity.mtime_ns, identity.ctime_ns]


def _entry(data: Any) -> CachedExport | None:
    if not isinstance(data, dict):
        return None
    transcript = _identity(data.get("transcript"))
    digest, size, lines = data.get("digest"), data.get("size"), data.get("oversizedLines", [])
    if transcript is None or not isinstance(digest, str) or len(digest) != 64:
        return None
    if isinstance(size, bool) or not isinstance(size, int) or size < 0 or not isinstance(lines, list):
        return None
    if not all(isinstance(n, int) and not isinstance(n, bool) and 0 < n < math.inf for n in lines):
        return None
    export = _identity(data["export"]) if data.get("export") is not None else None
    clear = data.get("inClear", {})
    if not isinstance(clear, dict) or not all(
        isinstance(k, str) and k.isdigit() and type(v) is int and v > 0 for k, v in clear.items()
    ):
        return None
    counts = tuple(sorted((int(k), v) for k, v in clear.items()))
    return CachedExport(transcript, digest, size, tuple(lines), export, counts)


def parse_cache(data: Any, export_dir: str) -> dict[str, CachedExport]:
    """The entries of a cache file's JSON; {} for another schema or renderer. Entries recorded for
    another export dir keep their transcript part only."""
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or data.get("renderer") != renderer():
        return {}
    entries = data.get("transcripts")
    if not isinstance(entries, dict):
        return {}
    same_dir = data.get("exportDir") == export_dir
    parsed: dict[str, CachedExport] = {}
    for name, raw in entries.items():
        entry = _entry(raw)
        if entry is not None:
            parsed[name] = (
                entry
                if same_dir
                else CachedExport(
                    entry.transcript,
                    entry.digest,
                    entry.size,
                    entry.oversized_lines,
                    None,
                    entry.clear_secrets,
                )
            )
    return parsed


def cache_json(entries: Mapping[str, CachedExport], export_dir: str) -> dict[str, Any]:
    return {
        "schema": SCHEMA,
        "renderer": renderer(),
        "exportDir": export_dir,
        "transcripts": {
            name: {
                "transcript": _identity_json(entry.transcript),
                "digest": entry.digest,
                "size": entry.size,
                "oversizedLines": list(entry.oversized_lines),
                "export": _identity_json(entry.export) if entry.export is not None else None,
                "inClear": {str(index): count for index, count in entry.clear_secrets},
            }
            for name, entry in sorted(entries.items())
        },
    }
