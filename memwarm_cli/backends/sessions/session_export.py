"""The qmd session-transcript export: plan and apply one export pass, as openclaw@2026.6.35 makes it.

When `memory.qmd.sessions.enabled` is on, every update run first turns each session transcript of
`<stateDir>/agents/<id>/sessions/` (transcript_names.py says which entries are sessions) into
`<exportDir>/<name>.md` (transcript_text.py), deletes the stale `*.md` entries of the export dir, and then
runs `qmd update`; the export dir is one more managed collection, `sessions-<agent>`, after the others.

Two steps, so that `--dry-run` and a real run cannot disagree:
- `plan_session_export(...)` reads the transcripts and the export dir and computes each export's bytes
  (its digest, and the bytes themselves unless large), which differ from the file on disk, and which
  stale entries would go. It writes nothing.
- `apply_session_export(plan)` performs it (session_export_files.py does the careful file work); a large
  export is rendered again straight into its temp file, so no transcript or export is ever held whole.

As the release: a config the release rejects (session_config.py) fails the pass with `INVALID_CONFIG`
before anything is read, written or deleted; a transcript older than `retentionDays` (by its mtime,
strictly older than `now - days`) is left out and its export deleted as stale; in the agent's qmd state
(the default export dir) stale cleanup removes every `*.md` entry directly in the export dir that no kept
transcript exports, as the release's `remove_path` does (an empty directory too, a symlink itself) and
never fails the pass (a non-empty directory stays); a directory at a target's name fails the pass before
any cleanup.

Where memwarm deviates on purpose (the user's files and memory come first):
- it refuses export dirs whose cleanup could delete the user's notes (session_config.py), or that are a
  symlink or a file, before touching anything; in an export dir outside the agent's qmd state it deletes
  only the exports its cache proves it wrote itself (stale_exports.py), never another `*.md`;
- it reads no file from outside the agent's sessions dir: a symlinked sessions dir is not read (and then
  nothing is deleted either), nor a hard-linked transcript (the release reads both; a symlinked
  transcript neither reads);
- a transcript line longer than 16 MiB (`MAX_RECORD_BYTES`) is skipped, not read whole;
- it writes only exports whose bytes differ (a fresh release manager rewrites every one), atomically,
  and an unchanged transcript is not rendered again (export_cache.py);
- the pass can be stopped: `check` (the run's cancellation and deadline) is called between records.

This module is longer than 400 lines because planning and applying are one contract (what `--dry-run`
lists is what the run does): apart, each half would need the other's records and rules.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from memwarm_cli.backends.sessions.export_cache import CachedExport, FileIdentity
from memwarm_cli.backends.sessions.session_config import INVALID_CONFIG, export_dir_refusal
from memwarm_cli.backends.sessions.session_export_files import (
    ExportDir,
    Listed,
    SessionExportError,
    SessionExportFailed,
    SessionExportRefused,
    SessionExportResult,
    SessionsDir,
    check_entry_name,
    error_code,
    export_dir_digest,
)
from memwarm_cli.backends.sessions.stale_exports import is_fs_decodable, is_within, stale_entries
from memwarm_cli.backends.sessions.transcript_names import (
    export_name,
    header_name,
    is_counted_archive,
    is_session_transcript,
)
from memwarm_cli.backends.sessions.transcript_text import MAX_RECORD_BYTES, ExportWriter, render_transcript
from memwarm_cli.frozen_records import record
from memwarm_cli.safe_files import FileWriter

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

DAY_MS = 86_400_000
KEEP_RENDERED_BYTES = 1 << 20  # a larger export is rendered again when written, not kept in memory

Check = Callable[[], None]


@record
class ExportTarget:
    name: str  # file name in the export dir, e.g. "abc.md"
    source: str  # the transcript's file name, e.g. "abc.jsonl"
    digest: str  # SHA-256 of the export's bytes
    size: int
    data: bytes | None  # the bytes, unless larger than KEEP_RENDERED_BYTES (rendered again to write)
    transcript: FileIdentity
    oversized_lines: tuple[int, ...] = ()  # transcript lines longer than MAX_RECORD_BYTES: skipped
    clear_secrets: tuple[tuple[int, int], ...] = ()  # (clear_secrets.CLEAR_FORMATS index, count)

    @property
    def text(self) -> str | None:
        return self.data.decode("utf-8") if self.data is not None else None


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
    deletes: tuple[str, ...]  # stale `*.md` entries the release's cleanup removes
    blocked: tuple[PlanNote, ...]  # names that make the pass fail (a directory at a target's name)
    left_alone: tuple[PlanNote, ...]  # stale-looking `*.md` entries that stay (a non-empty directory, ...)
    expired: tuple[str, ...]  # transcripts older than the retention cutoff
    unreadable: tuple[PlanNote, ...]  # transcripts not read (skipped, as upstream does, or refused)
    config_error: str | None = None  # the pass fails with INVALID_CONFIG before touching anything
    skipped_lines: tuple[PlanNote, ...] = ()  # transcript lines too long to read
    cache: Mapping[str, CachedExport] | None = None  # what the next pass may reuse, by transcript name
    # Deletes outside the agent's qmd state: the identity each file must still have when it is removed.
    delete_identities: Mapping[str, FileIdentity] | None = None

    @property
    def files(self) -> dict[str, str]:
        """The exports after the pass: name -> text (a large one rendered again)."""
        return {target.name: render_target_text(self, target) for target in self.targets}


def _retention_cutoff_ms(retention_days: int | None, now_ms: float) -> float | None:
    if retention_days is None:
        return None
    cutoff = float(now_ms) - float(retention_days) * DAY_MS  # doubles, as in JS
    return cutoff or None  # a cutoff of exactly 0 is falsy upstream: no check


def check_export_dir(
    export_dir: Path,
    sessions_dir: Path,
    protected_dirs: Sequence[Path],
    *,
    notes_dirs: Sequence[Path] = (),
    homes: Sequence[Path] = (),
) -> bool:
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
    refusal = export_dir_refusal(
        export_dir,
        sessions_dir=sessions_dir,
        protected_dirs=protected_dirs,
        notes_dirs=notes_dirs,
        homes=homes,
    )
    if refusal is not None:
        raise SessionExportRefused(refusal)
    return info is not None


@record
class _Scan:
    in_window: tuple[Listed, ...]
    expired: tuple[str, ...]
    unreadable: tuple[PlanNote, ...]
    refused: bool  # the sessions dir itself was not read (a symlink)


def _scan(sessions: SessionsDir | None, cutoff: float | None) -> _Scan:
    in_window: list[Listed] = []
    expired: list[str] = []
    unreadable: list[PlanNote] = []
    for listed in sessions.regular_files() if sessions is not None else []:
        if not is_session_transcript(listed.name):
            continue
        if not is_fs_decodable(listed.name):
            unreadable.append(PlanNote(listed.name, "the name is not valid UTF-8"))
        elif listed.info.st_nlink != 1:
            unreadable.append(
                PlanNote(
                    listed.name,
                    f"it has {listed.info.st_nlink} hard links: memwarm reads only transcripts with one link "
                    "(a hard link can bring in a file from outside the sessions dir)",
                )
            )
        # Upstream reads first and checks retention after; skipping an old file unread is the same.
        elif cutoff is not None and listed.info.st_mtime_ns / 1e6 < cutoff:
            expired.append(listed.name)
        else:
            in_window.append(listed)
    return _Scan(tuple(in_window), tuple(expired), tuple(unreadable), refused=False)


def _open_and_scan(sessions_dir: Path, cutoff: float | None) -> tuple[SessionsDir | None, _Scan]:
    try:
        sessions = SessionsDir.open(sessions_dir)
    except SessionExportRefused as refusal:
        return None, _Scan((), (), (PlanNote(str(sessions_dir), str(refusal)),), refused=True)
    return sessions, _scan(sessions, cutoff)


def transcripts_in_window(
    sessions_dir: Path, *, retention_days: int | None, now_ms: float
) -> list[tuple[str, int, int, int]]:
    """(name, size, mtime and ctime in ns) of every transcript a pass at `now_ms` would read, by name.

    The export's inputs, for the fingerprint: a new, changed (also in place, keeping size and mtime: the
    ctime moves) or removed transcript changes this list, and so does one that the clock moves out of
    the retention window.
    """
    sessions, scan = _open_and_scan(sessions_dir, _retention_cutoff_ms(retention_days, now_ms))
    if sessions is not None:
        os.close(sessions.fd)
    return [
        (listed.name, listed.info.st_size, listed.info.st_mtime_ns, listed.info.st_ctime_ns)
        for listed in scan.in_window
    ]


def _render(
    sessions: SessionsDir,
    listed: Listed,
    writer: ExportWriter,
    check: Check | None,
) -> tuple[int, ...]:
    with sessions.open_transcript(listed) as stream:
        notes = render_transcript(
            stream,
            writer,
            archive=is_counted_archive(listed.name),
            max_record_bytes=MAX_RECORD_BYTES,
            check=check,
        )
    return notes.oversized_lines


def _target(
    sessions: SessionsDir,
    listed: Listed,
    cached: CachedExport | None,
    check: Check | None,
    force: bool,
) -> ExportTarget:
    identity = FileIdentity.of(listed.info)
    name = export_name(listed.name)
    if not force and cached is not None and cached.transcript == identity:
        return ExportTarget(
            name,
            listed.name,
            cached.digest,
            cached.size,
            None,
            identity,
            cached.oversized_lines,
            cached.clear_secrets,
        )
    writer = ExportWriter(header_name(listed.name), keep_bytes=KEEP_RENDERED_BYTES)
    oversized = _render(sessions, listed, writer, check)
    return ExportTarget(
        name,
        listed.name,
        writer.digest,
        writer.size,
        writer.data,
        identity,
        oversized,
        writer.clear.as_pairs(),
    )


def plan_session_export(
    sessions_dir: Path,
    export_dir: Path,
    *,
    retention_days: int | None,
    now_ms: float,
    agent_qmd_dir: Path | None,
    protected_dirs: Sequence[Path] = (),
    notes_dirs: Sequence[Path] = (),
    homes: Sequence[Path] = (),
    config_error: str | None = None,
    cache: Mapping[str, CachedExport] | None = None,
    check: Check | None = None,
    force: bool = False,
) -> SessionExportPlan:
    """One export pass, computed: reads transcripts and the export dir, writes nothing.

    Raises SessionExportRefused for an export dir memwarm will not use. Transcripts are read in name
    order; when two map to one target, the later name wins. `cache` is the previous pass's
    (export_cache.py); with `force` every transcript is rendered again whatever it says (it still proves
    which stale exports memwarm wrote); `check` may raise to stop the pass (cancellation, a deadline).
    Stale cleanup is the release's inside `agent_qmd_dir` (the agent's qmd state); elsewhere (or with None)
    it deletes only the exports the cache proves memwarm wrote (stale_exports.py).
    """
    exists = check_export_dir(export_dir, sessions_dir, protected_dirs, notes_dirs=notes_dirs, homes=homes)
    if config_error is not None:
        return SessionExportPlan(
            sessions_dir, export_dir, False, (), (), (), (), (), (), (), config_error=config_error
        )
    previous = cache or {}
    sessions, scan = _open_and_scan(sessions_dir, _retention_cutoff_ms(retention_days, now_ms))
    targets: dict[str, ExportTarget] = {}
    unreadable = list(scan.unreadable)
    try:
        for listed in scan.in_window:
            if check is not None:
                check()
            assert sessions is not None
            try:
                target = _target(sessions, listed, previous.get(listed.name), check, force)
            except OSError as error:
                unreadable.append(PlanNote(listed.name, error.strerror or str(error)))
                continue
            check_entry_name(target.name)
            targets[target.name] = target
    finally:
        if sessions is not None:
            os.close(sessions.fd)

    writes: list[str] = []
    blocked: list[PlanNote] = []
    for target in targets.values():
        if exists and _export_is_current(export_dir, target, previous.get(target.source)):
            continue
        writes.append(target.name)
        path = export_dir / target.name
        if exists and path.is_dir() and not path.is_symlink():
            blocked.append(PlanNote(target.name, "a directory has this name: the export cannot be written"))

    own_state = agent_qmd_dir is not None and is_within(export_dir, agent_qmd_dir)
    stale = (
        []
        if scan.refused or not exists
        else stale_entries(export_dir, targets, previous, own_state=own_state)
    )
    deletes = [entry.name for entry in stale if entry.reason is None]
    left_alone = [PlanNote(entry.name, entry.reason) for entry in stale if entry.reason is not None]
    ordered = tuple(sorted(targets.values(), key=lambda t: t.name))
    return SessionExportPlan(
        sessions_dir=sessions_dir,
        export_dir=export_dir,
        create_export_dir=not exists,
        targets=ordered,
        writes=tuple(sorted(writes)),
        deletes=tuple(deletes),
        blocked=tuple(sorted(blocked, key=lambda note: note.name)),
        left_alone=tuple(left_alone),
        expired=scan.expired,
        unreadable=tuple(unreadable),
        skipped_lines=tuple(
            PlanNote(t.source, f"line {n} is longer than {MAX_RECORD_BYTES} bytes: skipped unread")
            for t in ordered
            for n in t.oversized_lines
        ),
        cache={t.source: _cache_entry(t, None) for t in ordered},
        delete_identities={entry.name: entry.expect for entry in stale if entry.expect is not None},
    )


def _cache_entry(target: ExportTarget, export: FileIdentity | None) -> CachedExport:
    return CachedExport(
        target.transcript, target.digest, target.size, target.oversized_lines, export, target.clear_secrets
    )


def _export_is_current(export_dir: Path, target: ExportTarget, cached: CachedExport | None) -> bool:
    """Whether the export file on disk holds exactly the target's bytes (regular, not a symlink)."""
    try:
        info = os.lstat(export_dir / target.name)
    except OSError:
        return False
    if not stat.S_ISREG(info.st_mode) or info.st_size != target.size:
        return False
    if cached is not None and cached.digest == target.digest and cached.export == FileIdentity.of(info):
        return True
    return export_dir_digest(export_dir, target.name, target.size) == target.digest


# --------------------------------------------------------------------------------------------------------
# Applying a plan


def render_target_text(plan: SessionExportPlan, target: ExportTarget) -> str:
    """The target's text: kept from planning, else rendered again (one transcript, streamed)."""
    if target.text is not None:
        return target.text
    chunks: list[bytes] = []
    _render_again(plan, target, chunks.append, chunks.clear, None)
    return b"".join(chunks).decode("utf-8")


def _render_again(
    plan: SessionExportPlan,
    target: ExportTarget,
    write: Callable[[bytes], None],
    truncate: Callable[[], None],
    check: Check | None,
) -> None:
    sessions = SessionsDir.open(plan.sessions_dir)
    if sessions is None:
        raise OSError(2, "the sessions dir is gone", str(plan.sessions_dir))
    with sessions:
        info = os.stat(target.source, dir_fd=sessions.fd, follow_symlinks=False)
        writer = ExportWriter(header_name(target.source), write=write, truncate=truncate)
        _render(sessions, Listed(target.source, info), writer, check)


def apply_session_export(plan: SessionExportPlan, check: Check | None = None) -> SessionExportResult:
    """Write the changed exports, then delete the stale ones (failures ignored, as the release does).

    Raises SessionExportFailed, carrying what was written and deleted so far, on the first failure; a
    failed write stops the pass before any deletion, as upstream's does. A plan with a name that is not
    a plain file name is refused before anything is touched. `check` may raise between writes.
    """
    if plan.config_error is not None:
        empty = SessionExportResult(plan.export_dir, False, (), ())
        raise SessionExportFailed(INVALID_CONFIG, f"invalid config: {plan.config_error}", empty)
    for name in (*(target.name for target in plan.targets), *plan.deletes, *(n.name for n in plan.blocked)):
        check_entry_name(name)
    written: list[str] = []
    deleted: list[str] = []
    created = False
    to_write = set(plan.writes)
    doing = f"cannot create or open export dir {plan.export_dir}"
    exports: dict[str, FileIdentity] = {}
    try:
        with ExportDir.open(plan.export_dir) as export:
            created = export.created
            for target in plan.targets:
                if check is not None:
                    check()
                if target.name in to_write:
                    doing = f"cannot write {plan.export_dir / target.name}"
                    export.write_streaming(target.name, _producer(plan, target, check))
                    written.append(target.name)
                info = export.lstat(target.name)
                if info is not None and stat.S_ISREG(info.st_mode):
                    exports[target.source] = FileIdentity.of(info)
            expected = plan.delete_identities or {}
            for name in plan.deletes:
                if export.remove_stale(name, expected.get(name)):
                    deleted.append(name)
    except OSError as error:
        partial = SessionExportResult(plan.export_dir, created, tuple(written), tuple(deleted))
        message = f"{doing}: {error.strerror or error}"
        raise SessionExportFailed(error_code(error), message, partial) from error
    cache = {t.source: _cache_entry(t, exports.get(t.source)) for t in plan.targets}
    return SessionExportResult(plan.export_dir, created, tuple(written), tuple(deleted), cache)


def _producer(
    plan: SessionExportPlan, target: ExportTarget, check: Check | None
) -> Callable[[FileWriter], None]:
    def produce(out: FileWriter) -> None:
        if target.data is not None:
            out.write(target.data)
        else:
            _render_again(plan, target, out.write, out.restart, check)

    return produce
