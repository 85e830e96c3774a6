"""The session export's two places in an agent's steps (session-export.md §1, §3; agent_steps.py).

As the gateway does it: its initialisation creates the export dir (`PrepareExportDir`, before the
collections, so `sessions-<agent>` can be added on the first run), and each update run first exports the
transcripts (`ExportSessions`, after the collections) and then runs `qmd update`.

A failed pass fails the agent, and `qmd update` and `qmd embed` do not run, as upstream: the gateway's
every update (boot, interval, manual) hits the same failure before its `qmd update`, so its index would
stay stale for memory notes too until the user acts; a failed status (exit 1) is what a cron job notices.
An export dir memwarm refuses (a symlink, a file, or a directory holding the transcripts, the workspace,
its memory dir or another collection, where stale cleanup would delete the user's notes; or one that
another agent of the config exports to, whose exports each cleanup would delete) fails it too.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from memwarm_cli.backends.freshness.file_walk import snapshot_collection
from memwarm_cli.backends.init.agent_job import AgentFailed, AgentJob
from memwarm_cli.backends.init.init_report import NamedNote, PlannedCommand, SessionExportOutcome
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.backends.state import state_files
from memwarm_cli.backends.state.state_files import StatePath

# session_export (its redaction rules, the transcript reader) is imported by the steps that run only when
# the export is on: every init-backends run imports this module, most never export.
if TYPE_CHECKING:
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
    from memwarm_cli.backends.sessions.session_export import SessionExportRefused, check_export_dir

    if others:
        names = ", ".join(f'"{agent}"' for agent in others)
        raise AgentFailed(
            f"qmd session export refused: export dir {export_dir} is also agent {names}'s; each agent's "
            "stale-export cleanup would delete the other's exports (give each agent its own exportDir)"
        )
    try:
        return check_export_dir(export_dir, job.qmd.sessions.sessions_dir, protected_dirs(job))
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


class ExportSessions(_WhenExporting):
    """One export pass, then the sessions collection's files taken again for the fingerprint."""

    def run(self, job: AgentJob) -> None:
        from memwarm_cli.backends.sessions.session_export import (
            SessionExportFailed,
            SessionExportRefused,
            apply_session_export,
        )

        job.step("session export")
        plan = _plan(job)
        try:
            result = apply_session_export(plan)
        except SessionExportFailed as failure:
            job.sessions = _outcome(job, plan, failure.partial, failure)
            message = f"qmd session export failed ({failure.code}): {failure}"
            job.warn(f"qmd boot update failed: {message}")  # the gateway's log line for a failed pass
            raise AgentFailed(f"{message}; qmd update did not run, as in the gateway's update") from failure
        except SessionExportRefused as error:
            raise _refused(error) from error
        job.sessions = _outcome(job, plan, result, None)
        for note in (*plan.unreadable, *plan.left_alone):
            # Raw, as every core message: the CLI escapes the line it prints (textsafe's one policy).
            job.warn(f"qmd session export skipped {note.name}: {note.reason}")
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
        plan = _plan(job)
        job.sessions = _outcome(job, plan, None, None)
        return []


def _plan(job: AgentJob) -> SessionExportPlan:
    from memwarm_cli.backends.sessions.session_export import SessionExportRefused, plan_session_export

    sessions = job.qmd.sessions
    try:
        return plan_session_export(
            sessions.sessions_dir,
            sessions.export_dir,
            retention_days=sessions.retention_days,
            now_ms=job.now_ms,
            protected_dirs=protected_dirs(job),
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
    sessions = job.qmd.sessions
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
    )
