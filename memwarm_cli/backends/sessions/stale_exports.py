"""Which stale `*.md` entries of the export dir the pass deletes, and which it leaves alone.

The release's cleanup removes every `*.md` directly in the export dir that no kept transcript exports
(session-export.md §10). memwarm does that only where the directory is OpenClaw's own: inside the agent's
qmd state (`<stateDir>/agents/<id>/qmd`, where the default export dir lives; the golden cases are there).
An export dir anywhere else (a workspace sub-folder, `~/Documents`, any absolute folder) may hold the
user's own notes: there memwarm deletes only what it can prove is an export it wrote itself, by its export
cache (export_cache.py): a regular file at the export name of a transcript the cache knows, which is still
the file the last pass left (same identity) or still holds exactly the bytes memwarm rendered (same size
and SHA-256). Anything else stays, and the plan says why. The gateway's own cleanup still deletes them
when it runs: `config check` warns about such an export dir.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from memwarm_cli.backends.sessions.export_cache import CachedExport, FileIdentity
from memwarm_cli.backends.sessions.session_export_files import export_dir_digest
from memwarm_cli.backends.sessions.transcript_names import EXPORT_SUFFIX, export_name
from memwarm_cli.frozen_records import record

NOT_MEMWARMS = "not an export memwarm wrote: outside the agent's qmd state it deletes only its own"


@record
class StaleEntry:
    """A stale-looking entry: deleted when `reason` is None (then `expect`, if set, is the identity the
    file must still have when it is removed), else left alone for `reason`."""

    name: str
    reason: str | None
    expect: FileIdentity | None = None


def is_fs_decodable(name: str) -> bool:
    """False for a name with undecodable bytes (surrogate escapes): Node sees U+FFFD and cannot open it."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def is_within(inner: Path, outer: Path) -> bool:
    """`inner` is `outer` or below it, as real paths."""
    real_inner, real_outer = os.path.realpath(inner), os.path.realpath(outer)
    return real_inner == real_outer or real_inner.startswith(real_outer.rstrip(os.sep) + os.sep)


def _has_entries(path: str) -> bool:
    try:
        with os.scandir(path) as listing:
            return next(listing, None) is not None
    except OSError:
        return True


def _proof(
    export_dir: Path, name: str, info: os.stat_result, written: Mapping[str, CachedExport]
) -> FileIdentity | None:
    """The identity of `name` when it is provably an export memwarm wrote, else None."""
    cached = written.get(name)
    if cached is None or not stat.S_ISREG(info.st_mode):
        return None
    identity = FileIdentity.of(info)
    if cached.export is not None and cached.export == identity:
        return identity
    if info.st_size == cached.size and export_dir_digest(export_dir, name, cached.size) == cached.digest:
        return identity
    return None


def stale_entries(
    export_dir: Path,
    kept: Mapping[str, object],
    previous: Mapping[str, CachedExport],
    *,
    own_state: bool,
) -> list[StaleEntry]:
    """Top-level `*.md` names of `export_dir` that are not in `kept`, by name, each with its verdict.

    `own_state`: the export dir is inside the agent's qmd state (the release's whole cleanup applies);
    otherwise only an export the last pass's cache (`previous`, by transcript name) proves is memwarm's
    own is deleted."""
    try:
        with os.scandir(export_dir) as listing:
            entries = sorted(
                (entry for entry in listing if entry.name.endswith(EXPORT_SUFFIX) and entry.name not in kept),
                key=lambda entry: entry.name,
            )
    except OSError:
        return []  # upstream: a listing error counts as empty
    written = {export_name(source): cached for source, cached in previous.items()}
    found: list[StaleEntry] = []
    for entry in entries:
        if not is_fs_decodable(entry.name):
            found.append(StaleEntry(entry.name, "the name is not valid UTF-8"))
            continue
        try:
            info = entry.stat(follow_symlinks=False)
        except OSError:
            continue  # vanished meanwhile
        if own_state:
            if stat.S_ISDIR(info.st_mode) and _has_entries(entry.path):
                found.append(
                    StaleEntry(entry.name, "a directory that is not empty: stale cleanup removes no tree")
                )
            else:
                found.append(StaleEntry(entry.name, None))
            continue
        identity = _proof(export_dir, entry.name, info, written)
        if identity is None:
            found.append(StaleEntry(entry.name, NOT_MEMWARMS))
        else:
            found.append(StaleEntry(entry.name, None, identity))
    return found
