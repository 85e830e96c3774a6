"""The per-agent steps of `init-backends`, in order, as one list that the run and `--dry-run` both walk.

Each step says whether it applies, does its work (`run`) and describes the qmd commands it would run
(`plan`), so a step added here is run and planned alike (memory-backends.md §2 Version B, §5.1-§5.5):

1. the workspace must exist and the qmd command must start (`qmd binary unavailable (<cmd>): <error>`,
then where memwarm looked and the fix: qmd_diagnosis.py);
2. per-agent dirs, the per-agent lock (held by another run: "busy"), the shared-models symlink;
3. the qmd version (one too old for memwarm fails the agent); 4. freshness: the index holds every file
as it is now (freshness.py, whoever built it), so no qmd indexing;
5. the session export dir is created (session_export_step.py); 6. collections listed, added, rebound
(collection_sync.py), the sessions collection last; 7. the transcripts exported;
8. `qmd update` with the boot retry rule; 9. `qmd embed` (one lock per state dir; a failure is
"degraded", with a backoff); 10. `--probe`: the agent's own search, once (search_probe.py);
11. the fingerprint is recorded.

The module is longer than 400 lines because every step is here, in the order a pass runs them, each
with its `plan` beside its `run`: split, the run and `--dry-run` could drift apart.
"""

from __future__ import annotations

from typing import Protocol

from memwarm_cli.backends.freshness import fingerprint as fp
from memwarm_cli.backends.freshness.freshness import judge
from memwarm_cli.backends.init import collection_sync
from memwarm_cli.backends.init.agent_job import AgentFailed, AgentJob, EmbedState, freshness_job
from memwarm_cli.backends.init.init_report import AgentOutcome, PlannedCommand
from memwarm_cli.backends.init.search_probe import ProbeSearch
from memwarm_cli.backends.init.session_export_step import ExportSessions, PrepareExportDir
from memwarm_cli.backends.qmd import qmd_commands
from memwarm_cli.backends.qmd import qmd_output as output
from memwarm_cli.backends.qmd.index_stats import (
    IndexUnreadable,
    index_identity,
    open_index,
    read_registrations,
)
from memwarm_cli.backends.qmd.process import (
    PROBE_COMMAND_TIMEOUT_MS,
    probe_command,
    unavailable_error,
)
from memwarm_cli.backends.qmd.qmd_diagnosis import (
    installed_version,
    resolve_executable,
    unavailable_hint,
    version_problem,
)
from memwarm_cli.backends.qmd.version_cache import VERSION_TIMEOUT_MS
from memwarm_cli.backends.settings.qmd_paths import shared_models_dir
from memwarm_cli.backends.state import state_files
from memwarm_cli.backends.state.locks import FileLock, agent_lock_path, embed_lock_path, run_refusal
from memwarm_cli.backends.state.state_files import StatePath
from memwarm_cli.config.paths import is_directory
from memwarm_cli.frozen_records import replace
from memwarm_cli.sqlite_driver import sqlite3

UPDATE_RETRY_DELAYS = (0.5, 1.0)
EMBED_TURN_POLL_SECONDS = 0.2  # while this run's other agents embed: still stopped by a signal


class AgentStep(Protocol):
    def wanted(self, job: AgentJob) -> bool: ...

    def run(self, job: AgentJob) -> None:
        """Do the step; raise AgentFailed to fail the agent, or `job.end(...)` to stop the pass early."""

    def plan(self, job: AgentJob) -> list[PlannedCommand]:
        """The qmd commands the step would run (`--dry-run`); it touches nothing."""


class _Always:
    def wanted(self, job: AgentJob) -> bool:
        return True


class CheckAvailability(_Always):
    def run(self, job: AgentJob) -> None:
        _require_workspace(job)
        job.step("probing qmd", PROBE_COMMAND_TIMEOUT_MS)
        error = probe_command(job.qmd.command, job.env, job.workspace, job.token)
        if error is not None:
            raise AgentFailed(_unavailable_reason(job, error))

    def plan(self, job: AgentJob) -> list[PlannedCommand]:
        _require_workspace(job)
        error = unavailable_error(job.qmd.command, job.env, job.workspace)  # what spawning would say
        if error is not None:
            raise AgentFailed(_unavailable_reason(job, error))
        return []


def _unavailable_reason(job: AgentJob, error: str) -> str:
    """OpenClaw's reason, then where memwarm looked and the way out (the PATH a cron job gives qmd is
    rarely the shell's)."""
    command = job.qmd.command
    if "timed out" in error:  # it exists and started: nothing to say about where it is
        return f"qmd binary unavailable ({command}): {error}"
    return f"qmd binary unavailable ({command}): {error}; {unavailable_hint(command, job.env, job.workspace)}"


def _require_workspace(job: AgentJob) -> None:
    if not is_directory(job.workspace):
        raise AgentFailed(f"qmd workspace unavailable ({job.workspace}): no such directory")


class PrepareStateDirs(_Always):
    """The per-agent qmd dirs and lock, and the shared-models symlink (all under the state dir)."""

    def run(self, job: AgentJob) -> None:
        state_dir = job.context.loaded.state_dir
        for directory in (job.paths.qmd_config_dir, job.paths.index_path.parent):
            state_files.make_dirs(StatePath.of(state_dir, directory))
        # qmd writes these itself, through any link: one planted there would have it write outside.
        for path in job.paths.qmd_written_files:
            state_files.refuse_link(path)
        lock = FileLock(agent_lock_path(state_dir, job.paths.qmd_dir))
        if not lock.try_acquire():
            job.end("busy", f"another memwarm run holds {lock.path}")
            return
        job.lock = lock
        self._link_models(job)

    @staticmethod
    def _link_models(job: AgentJob) -> None:
        """Link the agent's models dir to the shared one, as the gateway does when it is missing; also
        when it is an empty directory, which a model download that failed offline leaves behind (else
        models pre-downloaded into the shared dir later would never reach this agent)."""
        source = shared_models_dir(job.context.loaded.env)
        if not source.is_dir():
            return
        link = StatePath.of(job.context.loaded.state_dir, job.paths.models_dir)
        try:
            state_files.make_symlink(link, source, replace_empty_dir=True)
        except FileExistsError:
            return  # a link, a file or a directory with models in it is there already
        except OSError as exc:
            job.warn(f"failed to symlink qmd models directory: {exc}")

    def plan(self, job: AgentJob) -> list[PlannedCommand]:
        # What run() would refuse, found read-only.
        refused = run_refusal(job.context.loaded.state_dir, job.paths, embeds=job.want_embed)
        if refused is not None:
            raise AgentFailed(state_files.describe_os_error(refused))
        return []


class LookUpVersion(_Always):
    def run(self, job: AgentJob) -> None:
        timeout = job.timeout(job.qmd.update.command_timeout_ms)
        job.step("qmd version", min(timeout, VERSION_TIMEOUT_MS))  # often cached: no command at all
        job.version, result = job.context.versions.lookup(job.qmd.command, job.env, job.workspace, timeout)
        if result is not None:
            job.record(result)
        failure = None if result is None or result.ok else result.stderr + result.stdout
        problem = version_problem(job.qmd.command, job.version, failure)
        if problem is None and failure is not None:  # it did not say: what its package says
            executable = resolve_executable(job.qmd.command, job.env, job.workspace)
            problem = version_problem(job.qmd.command, installed_version(executable) if executable else None)
        if problem is not None:
            raise AgentFailed(problem)

    def plan(self, job: AgentJob) -> list[PlannedCommand]:
        return [job.planned(qmd_commands.version_args(), "skipped when this executable's version is cached")]


class CompareFingerprint(_Always):
    """The index holds every file as it is now: no indexing this time.

    The same judgement `memwarm status` makes (freshness.py), made before the run's threads started."""

    def run(self, job: AgentJob) -> None:
        walked = job.walked
        if walked is None:  # not judged ahead (an interrupted walk): now, in this thread
            freshness_args, warnings = freshness_job(job.context, job.settings)
            stored, judged = freshness_args.stored, judge(freshness_args, job.token)
        else:
            stored, warnings, judged = walked.stored, list(walked.warnings), walked.judged
        for warning in warnings:
            job.warn(warning)
        job.stored = stored
        job.snapshot = judged.snapshot.with_version(job.version)
        job.freshness = judged.freshness
        if judged.freshness.fresh and not job.options.force:
            job.unchanged = True
            _warn_dropped(job)
            if stored is not None:
                job.embed = EmbedState(stored.vectors_current, stored.embed_failures, stored.embed_failed_at)
            else:
                job.embed = EmbedState(vectors_current=True)
            return
        fp.remove_fingerprint(job.fingerprint_path)  # unfinished work leaves no fingerprint

    def plan(self, job: AgentJob) -> list[PlannedCommand]:
        return []  # the collection list's note says it: a dry run cannot know what will have changed


def _warn_dropped(job: AgentJob) -> None:
    """A collection memwarm managed and the config no longer names stays in the index (memwarm, like the
    gateway, never removes it): said on the run that first finds it gone, as a full pass says it."""
    stored = job.stored
    dropped = set(stored.managed_collections if stored else ()) - {c.name for c in job.qmd.collections}
    if not dropped:
        return
    try:
        with open_index(job.paths.index_path) as db:
            registered = read_registrations(db) or {}
    except (OSError, IndexUnreadable, sqlite3.Error):
        return
    for name in sorted(dropped & registered.keys()):
        job.warn(collection_sync.no_longer_configured(name))


class SyncCollections(_Always):
    def run(self, job: AgentJob) -> None:
        if job.unchanged:
            collection_sync.list_unchanged(job)
            return
        recorded = set(job.stored.managed_collections) if job.stored else set()
        collection_sync.ensure_collections(job, recorded)

    def plan(self, job: AgentJob) -> list[PlannedCommand]:
        return collection_sync.plan_collections(job)


class UpdateIndex:
    """`qmd update` with the boot retry rule, and upstream's one-shot repair of broken metadata."""

    def wanted(self, job: AgentJob) -> bool:
        return not job.unchanged

    def run(self, job: AgentJob) -> None:
        timeout = job.timeout(job.qmd.update.update_timeout_ms)
        job.step("qmd update", timeout)
        attempts = len(UPDATE_RETRY_DELAYS) + 1
        repaired = False
        attempt = 1
        while True:
            result = job.run_qmd(qmd_commands.update_args(), timeout, discard_stdout=True)
            if result.ok:
                return
            message = result.error_message()
            repair = output.repairable_update_error(message)
            if repair is not None and not repaired:
                repaired = True
                rebuild = "rebuilding managed collections and retrying once"
                job.warn(f"qmd update failed with {repair} (boot); {rebuild}")
                collection_sync.rebuild_collections(job)
                continue
            if attempt < attempts and output.is_retryable_update_error(message):
                job.warn(f"qmd update retry {attempt}/{attempts - 1} after failure (boot): {message}")
                job.token.sleep(UPDATE_RETRY_DELAYS[attempt - 1])
                attempt += 1
                continue
            job.warn(f"qmd boot update failed: Error: {message}")
            raise AgentFailed(f"qmd boot update failed: Error: {message}")

    def plan(self, job: AgentJob) -> list[PlannedCommand]:
        note = "retried after 500 ms and 1000 ms on a locked database or a timeout"
        return [job.planned(qmd_commands.update_args(), note)]


class Embed:
    """`qmd embed`, one at a time per state dir; a failure degrades, never fails, and backs off."""

    def wanted(self, job: AgentJob) -> bool:
        if not job.want_embed:
            return False
        # An unchanged agent embeds only when its vectors are owed: the last embed failed, or the index
        # has documents without vectors (an index another program built, say).
        pending = job.freshness.pending if job.freshness is not None else None
        owed = job.stored is not None and not job.stored.vectors_current
        return not job.unchanged or owed or bool(pending)

    def run(self, job: AgentJob) -> None:
        stored = job.stored
        remaining = _backoff_remaining(job)
        if remaining > 0 and stored is not None:
            reason = f"vectors stale: the last qmd embed failed; next attempt in {remaining:.0f}s"
            job.embed = EmbedState(False, stored.embed_failures, stored.embed_failed_at, reason)
            return
        if job.unchanged:
            fp.remove_fingerprint(job.fingerprint_path)  # unfinished work leaves no fingerprint
        out_of_reach = job.models_out_of_reach(("embed",))
        if out_of_reach is not None:
            # Offline, qmd would wait for the download until the embed timeout: not run, not a failure
            # (no back-off: the next run checks again, at no cost).
            missing, offline = out_of_reach
            reason = f"qmd embed not run: {missing}, and {offline}; searchable with BM25, vectors stale"
            failures, failed_at = (stored.embed_failures, stored.embed_failed_at) if stored else (0, 0.0)
            job.embed = EmbedState(False, failures, failed_at, reason)
            job.model_fix_owed = True
            return
        job.embed = self._embed(job)
        if job.unchanged:
            # Recorded at once: the vectors are what this run owed; a later probe does not change that.
            job.stored = record_fingerprint(job) or stored
            job.embedded_unchanged = True

    @classmethod
    def _embed(cls, job: AgentJob) -> EmbedState:
        turn = job.context.embed_turn
        job.step("waiting for the embed lock")
        while not turn.acquire(timeout=EMBED_TURN_POLL_SECONDS):  # the run's own agents, one at a time
            job.token.check()
        try:
            return cls._embed_locked(job)
        finally:
            turn.release()

    @staticmethod
    def _embed_locked(job: AgentJob) -> EmbedState:
        embed_timeout = job.timeout(job.qmd.update.embed_timeout_ms)
        lock = FileLock(embed_lock_path(job.context.loaded.state_dir))
        stuck = job.context.embed_lock_stuck
        if stuck is None:
            job.step("waiting for the embed lock", embed_timeout)
            # A holder's own embed ends within its timeout; one that keeps the lock longer is stuck (a
            # run stopped with Ctrl-Z, say), and waiting on would hold every later run's agents too.
            if not lock.acquire(job.token, embed_timeout / 1000):
                stuck = job.context.embed_lock_stuck = (
                    f"qmd embed skipped: another process held {lock.path} for {embed_timeout / 1000:.0f}s "
                    "(the embed timeout); searchable with BM25; vectors stale"
                )
        if stuck is not None:
            stored = job.stored
            job.warn(stuck)
            return EmbedState(
                False,
                stored.embed_failures if stored else 0,
                stored.embed_failed_at if stored else 0.0,
                stuck,
            )
        try:
            job.step("qmd embed", embed_timeout)
            result = job.run_qmd(qmd_commands.embed_args(), embed_timeout, discard_stdout=True)
        finally:
            lock.release()
        if result.ok:
            return EmbedState(vectors_current=True)
        stored = job.stored
        failures = (stored.embed_failures if stored else 0) + 1
        reason = f"qmd embed failed (boot): Error: {result.error_message()}"
        job.warn(f"{reason}; backing off for {fp.embed_backoff_seconds(failures):.0f}s")
        return EmbedState(False, failures, fp.now(), f"{reason} (searchable with BM25; vectors stale)")

    def plan(self, job: AgentJob) -> list[PlannedCommand]:
        return [job.planned(qmd_commands.embed_args(), "one at a time per state dir")]


def _backoff_remaining(job: AgentJob) -> float:
    """Seconds before another embed attempt after failures (0 with --force or an explicit --embed)."""
    stored = job.stored
    if stored is None or stored.embed_failures <= 0 or job.options.force or job.options.embed:
        return 0.0
    return fp.embed_backoff_seconds(stored.embed_failures) - (fp.now() - stored.embed_failed_at)


class RecordFingerprint(_Always):
    def run(self, job: AgentJob) -> None:
        if not job.unchanged:
            record_fingerprint(job)
        elif job.probe_failed and job.stored is not None:
            # A run whose search fails is not a successful one: the next run must not report "fresh".
            fp.write_fingerprint(job.fingerprint_path, replace(job.stored, digest=fp.UNSUCCESSFUL_DIGEST))
        elif job.freshness is not None and not job.freshness.from_record and not job.embedded_unchanged:
            # Found current by reading the index (another program built it, or files were touched):
            # recorded, so the next run need not read it again.
            record_fingerprint(job)

    def plan(self, job: AgentJob) -> list[PlannedCommand]:
        return []


def record_fingerprint(job: AgentJob) -> fp.StoredFingerprint | None:
    """Only a successful run leaves a record that can vouch for the index. After a failed --probe one is
    written that vouches for nothing, so the embed backoff it carries still holds on the next run.
    The index's identity is taken now, after this run's qmd commands wrote it; the files' digests were
    taken before them (a file changed meanwhile differs next time). Returns what was written (None:
    nothing, after a failure)."""
    if job.failure is not None:
        return None
    job.token.check()
    snapshot = job.snapshot
    assert snapshot is not None  # CompareFingerprint ran
    identity = index_identity(job.paths.index_path)
    parts = snapshot.parts(None if identity is None else fp.sha256_text(identity))
    stored = fp.StoredFingerprint(
        digest=fp.UNSUCCESSFUL_DIGEST if job.probe_failed else parts.digest(),
        recorded_at=fp.now(),
        vectors_current=job.embed.vectors_current,
        embed_failures=job.embed.failures,
        managed_collections=tuple(c.name for c in job.qmd.collections),
        file_count=snapshot.file_count,
        embed_failed_at=job.embed.failed_at,
        parts=parts,
    )
    try:
        fp.write_fingerprint(job.fingerprint_path, stored)
        fp.remove_fingerprint(fp.legacy_file_lists(job.fingerprint_path))
    except IsADirectoryError as exc:
        # A directory at one of memwarm's own names is not memwarm's to remove. The index is ready; only
        # the record is missing, so the next run reads the index again, as it would without one.
        problem = state_files.describe_os_error(exc)
        job.warn(f"cannot record the fingerprint: {problem}; the next run does the full pass again")
        return None
    return stored


AGENT_STEPS: tuple[AgentStep, ...] = (
    CheckAvailability(),
    PrepareStateDirs(),
    LookUpVersion(),
    CompareFingerprint(),
    PrepareExportDir(),
    SyncCollections(),
    ExportSessions(),
    UpdateIndex(),
    Embed(),
    ProbeSearch(),
    RecordFingerprint(),
)


def run_steps(job: AgentJob) -> AgentOutcome:
    """Every step that applies, in order, until one ends the pass (the caller releases the agent lock)."""
    for step in AGENT_STEPS:
        if step.wanted(job):
            step.run(job)
        if job.ended is not None:
            return job.ended
    return job.final()


def plan_steps(job: AgentJob) -> AgentOutcome:
    """`--dry-run`: what every step that applies would run, touching nothing."""
    planned: list[PlannedCommand] = []
    for step in AGENT_STEPS:
        if step.wanted(job):
            planned += step.plan(job)
    return job.outcome("planned", None, planned)
