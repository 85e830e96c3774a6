"""The qmd session-transcript export (session-export.md §3-§10): plan and apply one export pass.

When `memory.qmd.sessions.enabled` is on, every update run first turns each transcript
`<stateDir>/agents/<id>/sessions/*.jsonl` into `<exportDir>/<name>.md` (text: `transcript_text.py`,
redaction: `transcript_redaction.py`), deletes stale `*.md` exports, and then runs `qmd update`; the
export dir is one more managed collection, `sessions-<agent>`, after the others. The settings and the
collection are resolved with the other qmd settings (qmd_settings.py, qmd_collections.py).

Two steps, so that `--dry-run` and a real run cannot disagree:
- `plan_session_export(...)` reads the transcripts and the export dir and computes the exact target
  files, which of them differ from the bytes on disk, and which stale files would go. It writes nothing.
- `apply_session_export(plan)` performs it (`session_export_files.py` does the careful file work).

Where memwarm is deliberately stricter than OpenClaw (the user's files come first):
- it writes only targets whose bytes differ (a one-shot OpenClaw manager rewrites every target), so an
  unchanged export keeps its mtime and qmd does not re-index it;
- it refuses an export dir that is a symlink or not a directory, or that is (or contains) the sessions
  dir or one of the caller's protected dirs (workspace, memory dir, other collections), where stale
  cleanup would delete the user's own `*.md` notes;
- stale cleanup removes only regular files: a symlink, FIFO or socket named `*.md` is left alone (and
  reported); a directory named `*.md` fails the pass, as upstream's `fs.rm` does (`ERR_FS_EISDIR`);
- writes are atomic (temp file + rename), so a planted symlink at a target is replaced, never followed,
  and a hard-linked target gets a new inode instead of changing the other name's content.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

from memwarm_cli.backends.sessions.session_export_files import (
    ExportDir,
    SessionExportError,
    SessionExportFailed,
    SessionExportRefused,
    SessionExportResult,
    check_entry_name,
    error_code,
    read_regular_file,
)
from memwarm_cli.backends.sessions.transcript_text import parse_transcript, render_export
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import to_well_formed

__all__ = [
    "SessionExportError",
    "SessionExportFailed",
    "SessionExportPlan",
    "SessionExportRefused",
    "SessionExportResult",
    "apply_session_export",
    "check_export_dir",
    "plan_session_export",
    "transcripts_in_window",
]

TRANSCRIPT_SUFFIX = ".jsonl"
EXPORT_SUFFIX = ".md"
DAY_MS = 86_400_000

# --------------------------------------------------------------------------------------------------------
# §3-§10 the plan


@record
class ExportTarget:
    name: str  # file name in the export dir, e.g. "abc.md"
    source: str  # the transcript's file name, e.g. "abc.jsonl"
    text: str  # the full file text (well-formed: lone surrogates are already U+FFFD)

    @property
    def data(self) -> bytes:
        return self.text.encode("utf-8")


@record
class PlanNote:
    """A file the pass passes over, and why."""

    name: str
    reason: str


@record
class SessionExportPlan:
    sessions_dir: Path
    export_dir: Path
    create_export_dir: bool  # the export dir does not exist yet
    targets: tuple[ExportTarget, ...]  # every export the pass keeps, by name
    writes: tuple[str, ...]  # targets missing on disk or with other bytes
    deletes: tuple[str, ...]  # stale regular `*.md` files
    blocked: tuple[PlanNote, ...]  # names that make the pass fail (a directory at a `*.md` name)
    left_alone: tuple[PlanNote, ...]  # stale-looking `*.md` entries memwarm does not remove
    expired: tuple[str, ...]  # transcripts older than the retention cutoff
    unreadable: tuple[PlanNote, ...]  # transcripts that could not be read (skipped, as upstream does)

    @property
    def files(self) -> dict[str, str]:
        """The exports after the pass: name -> text."""
        return {target.name: target.text for target in self.targets}

    @property
    def fails(self) -> bool:
        return bool(self.blocked)


def _target_stem(transcript_name: str) -> str:
    """The name without its final `.jsonl`; a file named exactly `.jsonl` keeps its whole name."""
    if transcript_name == TRANSCRIPT_SUFFIX:
        return transcript_name
    return transcript_name[: -len(TRANSCRIPT_SUFFIX)]


def _is_fs_decodable(name: str) -> bool:
    """False for a name with undecodable bytes (surrogate escapes): Node sees U+FFFD and cannot open it."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _retention_cutoff_ms(retention_days: int | None, now_ms: float) -> float | None:
    if retention_days is None:
        return None
    cutoff = float(now_ms) - float(retention_days) * DAY_MS  # doubles, as in JS
    return cutoff or None  # a cutoff of exactly 0 is falsy upstream: no check


def _contains_or_is(outer: str, inner: str) -> bool:
    return inner == outer or inner.startswith(outer.rstrip(os.sep) + os.sep)


def check_export_dir(export_dir: Path, sessions_dir: Path, protected_dirs: Sequence[Path]) -> bool:
    """Refuse (SessionExportRefused) an export dir memwarm must not write into; True when it exists."""
    if not export_dir.is_absolute():
        raise SessionExportRefused(f"export dir {export_dir} is not an absolute path")
    try:
        info = os.lstat(export_dir)
    except FileNotFoundError:
        info = None
    except OSError as error:
        raise SessionExportRefused(f"export dir {export_dir}: {error.strerror or error}") from error
    if info is not None and stat.S_ISLNK(info.st_mode):
        raise SessionExportRefused(
            f"export dir {export_dir} is a symbolic link; memwarm writes and deletes exports only in a real "
            "directory (point exportDir at the link's target instead)"
        )
    if info is not None and not stat.S_ISDIR(info.st_mode):
        raise SessionExportRefused(f"export dir {export_dir} exists and is not a directory")
    real_export = os.path.realpath(export_dir)
    for protected in (sessions_dir, *protected_dirs):
        if _contains_or_is(real_export, os.path.realpath(protected)):
            raise SessionExportRefused(
                f"export dir {export_dir} is or contains {protected}; stale-export cleanup deletes "
                "every *.md directly in the export dir, so it must be a directory of its own"
            )
    return info is not None


def _list_transcripts(sessions_dir: Path) -> list[str]:
    """Names of regular files (not symlinks) ending in `.jsonl`; a dir that cannot be listed is empty."""
    try:
        with os.scandir(sessions_dir) as entries:
            return sorted(
                entry.name
                for entry in entries
                if entry.name.endswith(TRANSCRIPT_SUFFIX) and entry.is_file(follow_symlinks=False)
            )
    except OSError:
        return []


def _scan_transcripts(
    sessions_dir: Path, cutoff: float | None
) -> tuple[list[tuple[str, os.stat_result]], list[str], list[PlanNote]]:
    """The transcripts a pass reads: (in the window with their lstat, expired names, unreadable)."""
    in_window: list[tuple[str, os.stat_result]] = []
    expired: list[str] = []
    unreadable: list[PlanNote] = []
    for name in _list_transcripts(sessions_dir):
        if not _is_fs_decodable(name):
            unreadable.append(PlanNote(name, "the name is not valid UTF-8"))
            continue
        try:
            info = os.lstat(sessions_dir / name)
        except OSError as error:
            unreadable.append(PlanNote(name, error.strerror or str(error)))
            continue
        # Upstream reads first and checks retention after; skipping an old file unread is the same.
        if cutoff is not None and info.st_mtime_ns / 1e6 < cutoff:
            expired.append(name)
        else:
            in_window.append((name, info))
    return in_window, expired, unreadable


def transcripts_in_window(
    sessions_dir: Path, *, retention_days: int | None, now_ms: float
) -> list[tuple[str, int, int]]:
    """(name, size, mtime in ns) of every transcript a pass at `now_ms` would read, by name.

    The export's inputs, for the fingerprint: a new, changed or removed transcript changes this list,
    and so does one that the clock moves out of the retention window.
    """
    in_window, _, _ = _scan_transcripts(sessions_dir, _retention_cutoff_ms(retention_days, now_ms))
    return [(name, info.st_size, info.st_mtime_ns) for name, info in in_window]


def plan_session_export(
    sessions_dir: Path,
    export_dir: Path,
    *,
    retention_days: int | None,
    now_ms: float,
    protected_dirs: Sequence[Path] = (),
) -> SessionExportPlan:
    """One export pass, computed: reads transcripts and the export dir, writes nothing.

    Raises SessionExportRefused for an export dir memwarm will not use. Transcripts are read in name
    order; when two map to one target (`.jsonl` and `.jsonl.jsonl`), the later name wins.
    """
    exists = check_export_dir(export_dir, sessions_dir, protected_dirs)
    in_window, expired, unreadable = _scan_transcripts(
        sessions_dir, _retention_cutoff_ms(retention_days, now_ms)
    )
    targets: dict[str, ExportTarget] = {}
    for name, _info in in_window:
        try:
            data = read_regular_file(sessions_dir / name)
        except OSError as error:
            unreadable.append(PlanNote(name, error.strerror or str(error)))
            continue
        stem = _target_stem(name)
        target_name = stem + EXPORT_SUFFIX
        check_entry_name(target_name)
        text = to_well_formed(render_export(stem, parse_transcript(data).text))
        targets[target_name] = ExportTarget(name=target_name, source=name, text=text)

    writes: list[str] = []
    blocked: list[PlanNote] = []
    for target in targets.values():
        path = export_dir / target.name
        if exists and _same_bytes(path, target.data):
            continue
        writes.append(target.name)
        if exists and path.is_dir() and not path.is_symlink():
            blocked.append(PlanNote(target.name, "a directory has this name: the export cannot be written"))

    deletes, left_alone, stale_dirs = _stale_entries(export_dir, targets) if exists else ([], [], [])
    blocked.extend(stale_dirs)
    return SessionExportPlan(
        sessions_dir=sessions_dir,
        export_dir=export_dir,
        create_export_dir=not exists,
        targets=tuple(sorted(targets.values(), key=lambda t: t.name)),
        writes=tuple(sorted(writes)),
        deletes=tuple(deletes),
        blocked=tuple(sorted(blocked, key=lambda note: note.name)),
        left_alone=tuple(left_alone),
        expired=tuple(expired),
        unreadable=tuple(unreadable),
    )


def _same_bytes(path: Path, data: bytes) -> bool:
    """Whether `path` is a regular file (not a symlink) holding exactly `data`."""
    try:
        existing = read_regular_file(path, max_bytes=len(data) + 1)
    except OSError:
        return False
    return existing == data


def _stale_entries(
    export_dir: Path, targets: Mapping[str, ExportTarget]
) -> tuple[list[str], list[PlanNote], list[PlanNote]]:
    """§10: top-level `*.md` names that are not kept targets -> (deletes, left alone, blocking dirs)."""
    deletes: list[str] = []
    left_alone: list[PlanNote] = []
    blocking: list[PlanNote] = []
    try:
        with os.scandir(export_dir) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
    except OSError:
        return deletes, left_alone, blocking  # upstream: a listing error counts as empty
    for entry in entries:
        if not entry.name.endswith(EXPORT_SUFFIX) or entry.name in targets:
            continue
        if not _is_fs_decodable(entry.name):
            left_alone.append(PlanNote(entry.name, "the name is not valid UTF-8"))
        elif entry.is_symlink():
            left_alone.append(PlanNote(entry.name, "a symbolic link: memwarm removes only regular files"))
        elif entry.is_dir(follow_symlinks=False):
            blocking.append(PlanNote(entry.name, "a directory: stale-export cleanup cannot remove it"))
        elif entry.is_file(follow_symlinks=False):
            deletes.append(entry.name)
        else:
            left_alone.append(PlanNote(entry.name, "not a regular file: memwarm removes only regular files"))
    return deletes, left_alone, blocking


# --------------------------------------------------------------------------------------------------------
# Applying a plan


def apply_session_export(plan: SessionExportPlan) -> SessionExportResult:
    """Write the changed exports, delete the stale ones, then fail if a directory blocks the pass.

    Raises SessionExportFailed, carrying what was written and deleted so far, on the first failure; a
    failed write stops the pass before any deletion, as upstream's does. A plan with a name that is not
    a plain file name is refused before anything is touched.
    """
    for name in (*(target.name for target in plan.targets), *plan.deletes, *(n.name for n in plan.blocked)):
        check_entry_name(name)
    written: list[str] = []
    deleted: list[str] = []
    created = False
    to_write = set(plan.writes)
    doing = f"cannot create or open export dir {plan.export_dir}"
    try:
        with ExportDir.open(plan.export_dir) as export:
            created = export.created
            for target in plan.targets:
                if target.name in to_write:
                    doing = f"cannot write {plan.export_dir / target.name}"
                    export.write_atomically(target.name, target.data)
                    written.append(target.name)
            for name in plan.deletes:
                doing = f"cannot remove stale export {plan.export_dir / name}"
                if export.remove_regular_file(name):
                    deleted.append(name)
            blocking = next((note for note in plan.blocked if export.is_directory(note.name)), None)
    except OSError as error:
        partial = SessionExportResult(plan.export_dir, created, tuple(written), tuple(deleted))
        message = f"{doing}: {error.strerror or error}"
        raise SessionExportFailed(error_code(error), message, partial) from error
    result = SessionExportResult(plan.export_dir, created, tuple(written), tuple(deleted))
    if blocking is not None:
        raise SessionExportFailed(
            "ERR_FS_EISDIR",
            f"cannot remove stale export {plan.export_dir / blocking.name}: it is a directory",
            result,
        )
    return result
