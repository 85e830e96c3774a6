"""The session export's two places in an agent's steps (agent_steps.py); its `config check` findings are
session_export_check.py's.

As the gateway does it: its initialisation creates the export dir (`PrepareExportDir`, before the
collections, so `sessions-<agent>` can be added on the first run), and each update run first exports the
transcripts (`ExportSessions`, after the collections) and then runs `qmd update`.

A failed pass fails the agent, and `qmd update` and `qmd embed` do not run, as upstream: the gateway's
every update (boot, interval, manual) hits the same failure before its `qmd update`, so its index would
stay stale for memory notes too until the user acts; a failed status (exit 1) is what a cron job notices.
That includes a `memory.qmd.sessions` the release rejects (`INVALID_CONFIG`, e.g. a fractional or
negative `retentionDays`). An export dir memwarm refuses (a symlink, a file, the transcripts' dir, the
workspace, anything inside its `memory/`, another collection, the home dir or an ancestor of these, where
stale cleanup would delete the user's notes; or one that another agent of the config exports to, whose
exports each cleanup would delete) fails it too, before any collection or index work.

The pass is bounded: it stops on SIGINT/SIGTERM (the run's CancelToken, checked between records and
between a long text's redaction patterns) and after `--timeout` when one is given; the agent lock is
released as for any other step. What it learnt about each transcript is kept for the next run
(`<qmdDir>/memwarm-session-export.json`, export_cache.py), so an unchanged transcript is not parsed again.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memwarm_cli.backends.freshness.file_walk import snapshot_collection
from memwarm_cli.backends.init.agent_job import AgentFailed, AgentJob
from memwarm_cli.backends.init.init_report import NamedNote, PlannedCommand, SessionExportOutcome
from memwarm_cli.backends.sessions.export_cache import (
    CACHE_FILE_NAME,
    MAX_CACHE_BYTES,
    cache_json,
    parse_cache,
)
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.backends.state import state_files, state_records
from memwarm_cli.backends.state.state_files import StatePath
from memwarm_cli.config.paths import resolve_home_dir

# session_export (its redaction rules, the transcript reader) is imported by the steps that run only when
# the export is on: every init-backends run imports this module, most never export.
if TYPE_CHECKING:
    from memwarm_cli.backends.sessions.export_cache import CachedExport
    from memwarm_cli.backends.sessions.session_export import (
        SessionExportFailed,
        SessionExportPlan,
        SessionExportRefused,
        SessionExportResult,
    )


def sessions_collection(job: AgentJob) -> CollectionSpec:
    return next(spec for spec in job.qmd.collections if spec.kind == "sessions")


def protected_dirs(job: AgentJob) -> list[Path]:
    """Directories the export dir must not be or contain: the workspace, its memory dir, the other
    collections (the transcripts dir is always protected by the export itself)."""
    others = [spec.path for spec in job.qmd.collections if spec.kind != "sessions"]
    return [job.workspace, job.workspace / "memory", *others]


def homes_of(env: Mapping[str, str]) -> list[Path]:
    """The home dirs the export dir may not be or contain: OpenClaw's (`~` in exportDir) and $HOME."""
    homes = [Path(resolve_home_dir(env))]
    home = env.get("HOME")
    if home and os.path.isabs(home):
        homes.append(Path(home))
    return homes


def _refusal_checks(job: AgentJob) -> dict[str, Any]:
    return {
        "protected_dirs": protected_dirs(job),
        "notes_dirs": [job.workspace / "memory"],
        "homes": homes_of(job.context.loaded.env),
    }


def _refused(error: SessionExportRefused) -> AgentFailed:
    return AgentFailed(f"qmd session export refused: {error}")


class _WhenExporting:
    def wanted(self, job: AgentJob) -> bool:
        return job.qmd.sessions.enabled and not job.unchanged


def _check(job: AgentJob) -> bool:
    """The export dir may be used (True: it exists); AgentFailed otherwise."""
    export_dir = job.qmd.sessions.export_dir
    if "\0" in str(export_dir):  # valid JSON5 ("\u0000"), and no file system call takes it
        raise AgentFailed(
            f"qmd session export refused: export dir {export_dir} holds a NUL character "
            "(memory.qmd.sessions.exportDir)"
        )
    sharing = job.context.export_dir_agents.get(os.path.realpath(export_dir), ())
    others = [agent for agent in sharing if agent != job.settings.agent_id]
    # session_export: ~176 ms by -X importtime (redaction rules); only runs that export load it
    from memwarm_cli.backends.sessions.session_export import SessionExportRefused, check_export_dir

    if others:
        names = ", ".join(f'"{agent}"' for agent in others)
        raise AgentFailed(
            f"qmd session export refused: export dir {export_dir} is also agent {names}'s; each agent's "
            "stale-export cleanup would delete the other's exports (give each agent its own exportDir)"
        )
    try:
        return check_export_dir(export_dir, job.qmd.sessions.sessions_dir, **_refusal_checks(job))
    except SessionExportRefused as error:
        raise _refused(error) from error


class PrepareExportDir(_WhenExporting):
    """`mkdir -p` the export dir, once memwarm knows it may use it."""

    def run(self, job: AgentJob) -> None:
        if not _check(job):
            _make_export_dir(job)  # an OSError fails it, in words
            job.export_dir_created = True

    def plan(self, job: AgentJob) -> list[PlannedCommand]:
        _check(job)
        return []


def _make_export_dir(job: AgentJob) -> None:
    """`mkdir -p`; below the state dir (the default `<qmdDir>/sessions`) without following a symlink."""
    export_dir = job.qmd.sessions.export_dir
    try:
        below_state_dir = StatePath.of(job.context.loaded.state_dir, export_dir)
    except OSError:
        export_dir.mkdir(parents=True, exist_ok=True)  # a directory the user chose, elsewhere
    else:
        state_files.make_dirs(below_state_dir)


class _ExportTimedOut(Exception):
    pass


def _stopper(job: AgentJob) -> Callable[[], None]:
    """What the pass calls between records: raises Cancelled on a signal, _ExportTimedOut after
    `--timeout`."""
    timeout_ms = job.options.timeout_ms
    deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000
    token = job.token

    def check() -> None:
        token.check()
        if deadline is not None and time.monotonic() > deadline:
            raise _ExportTimedOut

    return check


def _timed_out(job: AgentJob, where: str = "") -> AgentFailed:
    seconds = (job.options.timeout_ms or 0) / 1000
    return AgentFailed(
        f"qmd session export timed out after {seconds:g} s (--timeout){where}; qmd update did not run, as "
        "in the gateway's update"
    )


def _cache_path(job: AgentJob) -> StatePath:
    return StatePath.of(job.context.loaded.state_dir, job.paths.qmd_dir / CACHE_FILE_NAME)


def _read_cache(job: AgentJob) -> dict[str, CachedExport]:
    export_dir = str(job.qmd.sessions.export_dir)
    found = state_records.read_record(
        _cache_path(job), lambda data: parse_cache(data, export_dir), max_bytes=MAX_CACHE_BYTES, warn=job.warn
    )
    return found or {}


def _write_cache(job: AgentJob, entries: Mapping[str, CachedExport]) -> None:
    try:
        state_records.write_json_atomically(
            _cache_path(job), cache_json(entries, str(job.qmd.sessions.export_dir))
        )
    except OSError as exc:  # only the next run's shortcut is lost
        job.warn(f"cannot record the session export cache: {state_files.describe_os_error(exc)}")


class ExportSessions(_WhenExporting):
    """One export pass, then the sessions collection's files taken again for the fingerprint."""

    def run(self, job: AgentJob) -> None:
        # session_export: ~176 ms by -X importtime (redaction rules); only runs that export load it
        from memwarm_cli.backends.sessions.session_export import (
            SessionExportFailed,
            SessionExportRefused,
            apply_session_export,
        )

        # stale_exports (~0.7 ms with transcript_names): as session_export, only an export pass needs it
        from memwarm_cli.backends.sessions.stale_exports import NOT_MEMWARMS

        job.step("session export")
        if job.freshness is not None and job.freshness.export_check_timed_out:
            # Checking whether the export had work already took all of --timeout: the pass would
            # render the same transcripts again and run out of it again.
            raise _timed_out(job, " while memwarm checked whether it had work")
        check = _stopper(job)
        try:
            plan = _plan(job, check)
        except _ExportTimedOut:
            raise _timed_out(job) from None
        try:
            result = apply_session_export(plan, check)
        except SessionExportFailed as failure:
            job.sessions = _outcome(job, plan, failure.partial, failure)
            message = f"qmd session export failed ({failure.code}): {failure}"
            job.warn(f"qmd boot update failed: {message}")  # the gateway's log line for a failed pass
            raise AgentFailed(f"{message}; qmd update did not run, as in the gateway's update") from failure
        except SessionExportRefused as error:
            raise _refused(error) from error
        except _ExportTimedOut:
            raise _timed_out(job) from None
        job.sessions = _outcome(job, plan, result, None)
        if result.cache is not None:
            _write_cache(job, result.cache)
        if job.sessions.in_clear:
            total = sum(count for _, count in job.sessions.in_clear)
            kinds = "; ".join(f"{label}: {count}" for label, count in job.sessions.in_clear)
            job.warn(
                f"qmd session export: {total} secret{'s' if total != 1 else ''} of formats OpenClaw "
                f"2026.6.35's redaction leaves in clear are in the exports and the index ({kinds})"
            )
        not_ours = [note.name for note in plan.left_alone if note.reason == NOT_MEMWARMS]
        for note in (*plan.unreadable, *plan.left_alone, *plan.skipped_lines):
            # Raw, as every core message: the CLI escapes the line it prints (textsafe's one policy).
            if note.reason != NOT_MEMWARMS:
                job.warn(f"qmd session export skipped {note.name}: {note.reason}")
        if not_ours:  # one line, however many of the user's files the export dir holds
            shown = ", ".join(not_ours[:3]) + (", ..." if len(not_ours) > 3 else "")
            job.warn(
                f"qmd session export left {len(not_ours)} *.md in {plan.export_dir} alone that it did not "
                f"write ({shown}); the gateway's own stale cleanup deletes them (give exportDir a directory "
                "of its own)"
            )
        # The collections holding the exports (the sessions one, and any other whose directory contains
        # the export dir) are taken again as the export left them: the next run compares against that.
        snapshot = job.snapshot
        assert snapshot is not None  # CompareFingerprint ran
        export_dir = os.path.realpath(job.qmd.sessions.export_dir)
        for spec in job.qmd.collections:
            root = os.path.realpath(spec.path)
            if spec.kind == "sessions" or export_dir.startswith(root.rstrip(os.sep) + os.sep):
                snapshot = snapshot.with_collection(spec.name, snapshot_collection(spec))
        job.snapshot = snapshot

    def plan(self, job: AgentJob) -> list[PlannedCommand]:
        try:
            plan = _plan(job, _stopper(job))
        except _ExportTimedOut:
            raise _timed_out(job) from None
        job.sessions = _outcome(job, plan, None, None)
        if plan.config_error is not None:
            raise AgentFailed(
                f"qmd session export would fail (INVALID_CONFIG): invalid config: {plan.config_error}"
            )
        return []


def _plan(job: AgentJob, check: Callable[[], None]) -> SessionExportPlan:
    # session_config (~0.7 ms with clear_secrets): only an agent that exports gets here, as below
    from memwarm_cli.backends.sessions.session_config import sessions_config_error

    # session_export: ~176 ms by -X importtime (redaction rules); only runs that export load it
    from memwarm_cli.backends.sessions.session_export import SessionExportRefused, plan_session_export

    sessions = job.qmd.sessions
    try:
        return plan_session_export(
            sessions.sessions_dir,
            sessions.export_dir,
            retention_days=sessions.retention_days,
            now_ms=job.now_ms,
            agent_qmd_dir=sessions.agent_qmd_dir,
            config_error=sessions_config_error(job.settings.choice.qmd_block.get("sessions")),
            cache=_read_cache(job),
            check=check,
            force=job.options.force,  # --force: every transcript read and rendered again
            **_refusal_checks(job),
        )
    except SessionExportRefused as error:
        raise _refused(error) from error


def _outcome(
    job: AgentJob,
    plan: SessionExportPlan,
    result: SessionExportResult | None,
    failure: SessionExportFailed | None,
) -> SessionExportOutcome:
    """What the pass did (`result`), or with --dry-run (`result` None) what it would do."""
    # clear_secrets: ~2 ms by -X importtime, only after an export pass (which has loaded it)
    from memwarm_cli.backends.sessions.redaction.clear_secrets import add_counts, labelled

    sessions = job.qmd.sessions
    counts: dict[int, int] = {}
    for target in plan.targets:
        add_counts(target.clear_secrets, counts)
    if result is None:
        written, deleted, created = plan.writes, plan.deletes, plan.create_export_dir
    else:
        written, deleted = result.written, result.deleted
        created = job.export_dir_created or result.created_export_dir
    return SessionExportOutcome(
        sessions_dir=str(sessions.sessions_dir),
        export_dir=str(sessions.export_dir),
        collection=sessions_collection(job).name,
        retention_days=sessions.retention_days,
        at_ms=job.now_ms,
        exported=tuple(target.name for target in plan.targets),
        written=written,
        deleted=deleted,
        created_export_dir=created,
        expired=plan.expired,
        unreadable=tuple(NamedNote(n.name, n.reason) for n in plan.unreadable),
        left_alone=tuple(NamedNote(n.name, n.reason) for n in plan.left_alone),
        error=str(failure) if failure is not None else None,
        error_code=failure.code if failure is not None else None,
        in_clear=tuple(labelled(counts).items()),
    )
