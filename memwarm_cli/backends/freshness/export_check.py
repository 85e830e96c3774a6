"""The session export's part of the freshness judgement (freshness.py): what judging an agent needs
(FreshnessJob), and whether the export has work, from its own read-only planning with the cache the
last pass wrote (a transcript the cache vouches for is not rendered again).

The check renders every transcript the cache does not vouch for, which can take seconds (a 15 MiB
message). So it is bounded as the export step itself is: the run's token is asked per record and per
1 MiB slice (a signal stops it at once), and `--timeout` (FreshnessJob.timeout_ms) counts from the
check's start; when it runs out the judgement says so (`timed_out`) and the agent fails without the
export step rendering the same transcripts again.
"""

from __future__ import annotations

import os
import time
from array import array
from collections.abc import Callable
from pathlib import Path

from memwarm_cli.backends.freshness.file_walk import ListDigest
from memwarm_cli.backends.freshness.fingerprint import StoredFingerprint
from memwarm_cli.backends.freshness.sha256 import sha256_hex
from memwarm_cli.backends.settings.qmd_settings import QmdSettings
from memwarm_cli.backends.state.state_files import StatePath
from memwarm_cli.backends.state.state_records import read_record
from memwarm_cli.cancel import CancelToken
from memwarm_cli.frozen_records import record

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from memwarm_cli.backends.sessions.export_cache import CachedExport


@record
class FreshnessJob:
    """What judging one agent needs; picklable, for a forked worker (forked_map)."""

    qmd: QmdSettings
    index_path: Path
    workspace: Path
    now_ms: int
    stored: StoredFingerprint | None = None
    qmd_version: str = ""
    want_pending: bool = False  # count documents waiting for embeddings (init-backends, vector modes)
    # Read the index's stats (index_stats.stats_on) over the connection the check opens (status: one
    # connection per agent, not two); pending embeddings counted for a vector search mode only.
    want_stats: bool = False
    # The export cache the last export pass wrote (export_cache.py; None: none is known): a transcript
    # and export it vouches for are not rendered again, as the export step itself would not render them.
    export_cache: StatePath | None = None
    # `--timeout` (init-backends): what the export check may take, as the export step itself may.
    timeout_ms: int | None = None


@record
class ExportWork:
    reasons: tuple[str, ...]  # why the export is not current (empty: it has no work)
    timed_out: bool = False  # the check ran out of --timeout


class ExportCheckTimedOut(Exception):
    """The export check ran out of `--timeout` (FreshnessJob.timeout_ms)."""


def export_cache_path(state_dir: str | os.PathLike[str], qmd: QmdSettings, qmd_dir: Path) -> StatePath | None:
    """`<qmdDir>/memwarm-session-export.json`, where the export step keeps its cache (None: the export
    is off, and the session modules are not imported)."""
    if not qmd.sessions.enabled:
        return None
    # export_cache: status imports no session module unless the export is on (test_imports)
    from memwarm_cli.backends.sessions.export_cache import CACHE_FILE_NAME

    return StatePath.of(state_dir, qmd_dir / CACHE_FILE_NAME)


def transcripts_digest(qmd: QmdSettings, now_ms: int) -> str | None:
    """The session export's inputs in the retention window at `now_ms` (None: export off)."""
    sessions = qmd.sessions
    if not sessions.enabled:
        return None
    # session_export: ~176 ms by -X importtime (its redaction rules), which status never pays (test_imports)
    from memwarm_cli.backends.sessions.session_export import transcripts_in_window

    files = transcripts_in_window(
        sessions.sessions_dir, retention_days=sessions.retention_days, now_ms=now_ms
    )
    digest = ListDigest()
    digest.update([(name, size, mtime_ns) for name, size, mtime_ns, _ in files])
    # The ctimes too: an edit in place that keeps the size and puts the mtime back moves the ctime.
    ctimes = sha256_hex(array("q", [ctime_ns for *_, ctime_ns in files]).tobytes())
    return digest.hexdigest("transcripts", ctimes)


def protected_dirs(qmd: QmdSettings, workspace: Path) -> list[Path]:
    """What the export dir must not be or contain (session_export_step.protected_dirs)."""
    others = [spec.path for spec in qmd.collections if spec.kind != "sessions"]
    return [workspace, workspace / "memory", *others]


def export_work(job: FreshnessJob, token: CancelToken | None) -> ExportWork:
    """The export has work when its plan writes or deletes anything (its own read-only planning).
    Raises Cancelled when `token` is cancelled meanwhile."""
    sessions = job.qmd.sessions
    if "\0" in str(sessions.export_dir):
        return ExportWork(("the session export dir holds a NUL character: a run fails the agent",))
    # session_export: ~176 ms by -X importtime (its redaction rules), which status never pays (test_imports)
    from memwarm_cli.backends.sessions.session_export import SessionExportRefused, plan_session_export

    try:
        plan = plan_session_export(
            sessions.sessions_dir,
            sessions.export_dir,
            retention_days=sessions.retention_days,
            now_ms=job.now_ms,
            agent_qmd_dir=sessions.agent_qmd_dir,
            protected_dirs=protected_dirs(job.qmd, job.workspace),
            cache=_export_cache(job),
            check=_stopper(token, job.timeout_ms),
        )
    except ExportCheckTimedOut:
        seconds = (job.timeout_ms or 0) / 1000
        return ExportWork(
            (f"the session export check did not finish within --timeout ({seconds:g} s)",), True
        )
    except SessionExportRefused as error:
        return ExportWork((f"the session export is refused: {error}",))
    except OSError as error:
        return ExportWork((f"the session export cannot be planned: {error.strerror or error}",))
    work = []
    if plan.writes:
        work.append(f"{len(plan.writes)} to write ({', '.join(plan.writes[:3])})")
    if plan.deletes:
        work.append(f"{len(plan.deletes)} to delete ({', '.join(plan.deletes[:3])})")
    if plan.create_export_dir:
        work.append("its directory to create")
    return ExportWork((f"the session export has work: {'; '.join(work)}",) if work else ())


def _stopper(token: CancelToken | None, timeout_ms: int | None) -> Callable[[], None]:
    """What the check calls per record and per slice of a long line: Cancelled on a signal,
    ExportCheckTimedOut once `--timeout` has passed since the check began."""
    deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000

    def check() -> None:
        if token is not None:
            token.check()
        if deadline is not None and time.monotonic() > deadline:
            raise ExportCheckTimedOut

    return check


def _export_cache(job: FreshnessJob) -> dict[str, CachedExport]:
    """What the last export pass recorded (an unusable cache reads as none, silently: the export step
    that reads it again says so)."""
    path = job.export_cache
    if path is None:
        return {}
    # export_cache: status imports no session module unless the export is on (test_imports)
    from memwarm_cli.backends.sessions.export_cache import MAX_CACHE_BYTES, parse_cache

    export_dir = str(job.qmd.sessions.export_dir)
    found = read_record(
        path, lambda data: parse_cache(data, export_dir), max_bytes=MAX_CACHE_BYTES, warn=None
    )
    return found or {}
