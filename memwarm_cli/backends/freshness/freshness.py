"""Is an agent's index warm? One judgement, for `status` (which shows its reasons) and for the no-change
check of `init-backends` (which skips every qmd command when it says yes).

Warm means `qmd update` would change nothing, judged from the index itself (research backend-635 §6):
every collection memwarm manages for the agent is registered in the index with its path (the realpath)
and its pattern, the index holds every file the collection would index with that file's current content
(index_check.py), holds no file that is gone, and the session export has nothing to write or delete.
Whoever built the index, memwarm or OpenClaw's gateway, does not matter.

memwarm's own record (fingerprint.py) is a cache in front of that: where a collection's files and the
index file are as they were when memwarm last saw the index current, the collection is not read again.
Pending embeddings are read from the index as well (the report degrades the agent for them).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from memwarm_cli.backends.freshness import fingerprint as fp
from memwarm_cli.backends.freshness.export_check import (
    FreshnessJob,
    export_work,
    transcripts_digest,
)
from memwarm_cli.backends.freshness.file_walk import (
    collection_digest,
    collection_root,
    shared_parents,
)
from memwarm_cli.backends.freshness.fingerprint import Snapshot
from memwarm_cli.backends.freshness.forked_map import forked_map
from memwarm_cli.backends.freshness.qmd_glob import UNSURE, compile_ignore, compile_mask
from memwarm_cli.backends.qmd.index_stats import (
    IndexStats,
    IndexUnreadable,
    Registration,
    index_identity,
    open_index,
    read_index_stats,
    read_registrations,
    stats_on,
)
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.cancel import CancelToken
from memwarm_cli.config.paths import is_directory
from memwarm_cli.frozen_records import record
from memwarm_cli.sqlite_driver import sqlite3

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    from memwarm_cli.backends.freshness.index_check import FileChanges

    ReasonKind = Literal[
        "unsuccessful",
        "index-missing",
        "index-unreadable",
        "unregistered",
        "registered-elsewhere",
        "pattern",
        "files",
        "export",
    ]


@record
class StaleReason:
    kind: ReasonKind
    text: str  # one sentence (outside text raw: the CLI escapes it)
    changes: FileChanges | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "text": self.text,
            "changes": self.changes.to_json() if self.changes else None,
        }


@record
class Freshness:
    fresh: bool
    reasons: tuple[StaleReason, ...] = ()  # empty when fresh
    from_record: bool = False  # memwarm's record vouched for every collection: the index was not read
    pending: int | None = None  # documents waiting for embeddings (asked for vector modes only)
    notes: tuple[str, ...] = ()  # warm, but worth saying (a collection the gateway will re-add)
    # The export check (rendering the transcripts the export cache does not vouch for) ran out of
    # `--timeout`: the export step would only run out of it again on the same transcripts.
    export_check_timed_out: bool = False

    @property
    def stale_files(self) -> int:
        """Files qmd update would add, update or deactivate."""
        return sum(r.changes.count for r in self.reasons if r.changes is not None)

    def to_json(self) -> dict[str, Any]:
        return {
            "fresh": self.fresh,
            "staleFiles": self.stale_files,
            "judgedFrom": "record" if self.from_record else "index",
            "reasons": [reason.to_json() for reason in self.reasons],
            "notes": list(self.notes),
        }


@record
class Judged:
    snapshot: Snapshot  # the parts now, for the record a successful run writes
    freshness: Freshness
    stats: IndexStats | None = None  # with want_stats, when the index was read (else the caller reads it)


def _holds_export(spec: CollectionSpec, export_dir: str) -> bool:
    root = collection_root(spec)
    return spec.kind == "sessions" or export_dir.startswith(root.rstrip(os.sep) + os.sep)


class _Judgement:
    def __init__(self, job: FreshnessJob, token: CancelToken | None) -> None:
        self.job = job
        self.token = token
        self.reasons: list[StaleReason] = []
        self.notes: list[str] = []
        self.digests: dict[str, str | None] = {}
        self.counts: dict[str, int] = {}
        self.stats: IndexStats | None = None
        self.export_timed_out = False

    def stale(self, kind: ReasonKind, text: str, changes: FileChanges | None = None) -> None:
        self.reasons.append(StaleReason(kind, text, changes))

    def walk_only(self, spec: CollectionSpec) -> None:
        self.digests[spec.name], self.counts[spec.name] = collection_digest(spec)

    def run(self) -> Judged:
        job, qmd = self.job, self.job.qmd
        stored = job.stored
        settings = fp.settings_digest(qmd.as_dict())
        identity = index_identity(job.index_path)
        index_part = None if identity is None else fp.sha256_text(identity)
        transcripts = transcripts_digest(qmd, job.now_ms)
        old = stored.parts if stored is not None and stored.digest != fp.UNSUCCESSFUL_DIGEST else None
        vouching = (
            old is not None and index_part is not None and (old.index, old.settings) == (index_part, settings)
        )
        if stored is not None and stored.digest == fp.UNSUCCESSFUL_DIGEST:
            self.stale("unsuccessful", "the last run's search probe did not answer")
        unvouched: list[CollectionSpec] = []
        for spec in qmd.collections:
            if self.token is not None:
                self.token.check()
            if vouching:
                assert old is not None
                self.walk_only(spec)
                if spec.name in old.collections and old.collections[spec.name] == self.digests[spec.name]:
                    continue
            unvouched.append(spec)
        raw_export = str(qmd.sessions.export_dir)
        export_dir = os.path.realpath(raw_export) if qmd.sessions.enabled and "\0" not in raw_export else ""
        export_unvouched = qmd.sessions.enabled and (
            not vouching
            or (old is not None and old.transcripts != transcripts)
            or any(_holds_export(spec, export_dir) for spec in unvouched)
        )
        pending: int | None = None
        if identity is None:
            self.stale("index-missing", "the index file is missing")
            for spec in unvouched:
                if spec.name not in self.digests:
                    self.walk_only(spec)
        elif unvouched or job.want_pending:
            pending = self._check_index(unvouched)
        if export_unvouched:
            work = export_work(job, self.token)
            for text in work.reasons:
                self.stale("export", text)
            self.export_timed_out = work.timed_out
        snapshot = Snapshot(
            settings, job.qmd_version, self.digests, transcripts, self.counts, qmd.collections
        )
        freshness = Freshness(
            fresh=not self.reasons,
            reasons=tuple(self.reasons),
            from_record=not unvouched and not export_unvouched and not self.reasons,
            pending=pending,
            notes=tuple(self.notes),
            export_check_timed_out=self.export_timed_out,
        )
        return Judged(snapshot, freshness, self.stats if job.want_stats else None)

    def _check_index(self, specs: list[CollectionSpec]) -> int | None:
        """The collections the record does not vouch for, against the index; and the documents waiting
        for embeddings when asked (unknown, None, when the index cannot say: that alone is no change)."""
        job = self.job
        counts_pending = job.want_pending or (job.want_stats and job.qmd.search_mode != "search")
        if specs:
            try:
                with open_index(job.index_path) as db:
                    registered = read_registrations(db)
                    for spec in specs:
                        self._check_collection(db, registered, spec)
                    if job.want_pending or job.want_stats:
                        self.stats = _stats_on(db, counts_pending)
            except (FileNotFoundError, IndexUnreadable, sqlite3.Error) as exc:
                self.stats = None
                problem = "the index file is missing" if isinstance(exc, FileNotFoundError) else str(exc)
                self.stale("index-unreadable", f"the index cannot be read: {problem}")
                for spec in specs:
                    if spec.name not in self.digests:
                        self.walk_only(spec)
                return None
        if not job.want_pending:
            return None
        stats = self.stats
        if stats is None:  # not read above, or its read failed: read_index_stats retries once
            try:
                stats = read_index_stats(job.index_path, pending=True)
            except (FileNotFoundError, IndexUnreadable):
                return None
        names = {spec.name for spec in job.qmd.collections}
        return sum(count for name, count in stats.pending_embeddings.items() if name in names)

    def _check_collection(
        self, db: sqlite3.Connection, registered: dict[str, Registration] | None, spec: CollectionSpec
    ) -> None:
        # index_check: only for a collection memwarm's record does not vouch for (~0.5 ms CPU of a status
        # that finds every collection as recorded)
        from memwarm_cli.backends.freshness.index_check import check_collection, count_active, removed_changes

        name = spec.name
        if registered is None:
            self.walk_only(spec)
            self.stale("unregistered", "the index does not say which collections it holds (a qmd before 2.0)")
            return
        entry = registered.get(name)
        if not is_directory(spec.path):
            self.digests[name], self.counts[name] = None, 0
            if entry is not None and count_active(db, name):
                changes = removed_changes(db, name)
                self.stale("files", changes.describe(), changes)
            return
        root = collection_root(spec)
        if str(spec.path) != root:
            self.notes.append(
                f"collection {name}: {spec.path} is a symlink to {root}; OpenClaw's gateway compares the "
                "path as written and re-adds the collection each time it opens it"
            )
        if entry is None:
            self.walk_only(spec)
            self.stale("unregistered", f"collection {name} is not in the index (a run adds it)")
            return
        if entry.path != root or entry.pattern != spec.pattern:
            self.walk_only(spec)
            text = (
                f"collection {name} is registered for {entry.path} ({entry.pattern}); the config wants "
                f"{root} ({spec.pattern}) (a run rebinds it)"
            )
            self.stale("registered-elsewhere", text)
            return
        matcher = compile_mask(spec.pattern)
        ignore = compile_ignore(entry.ignore)
        if matcher is None or ignore is UNSURE:
            self.walk_only(spec)
            glob = spec.pattern if matcher is None else ", ".join(entry.ignore)
            self.stale(
                "pattern", f"collection {name}: memwarm cannot tell which files qmd's glob {glob} matches"
            )
            return
        check = check_collection(db, name, root, matcher, ignore, self.token)
        self.digests[name] = check.digest.hexdigest(root, spec.pattern, "")
        self.counts[name] = check.digest.count
        if check.changes.count:
            self.stale("files", check.changes.describe(), check.changes)


def _stats_on(db: sqlite3.Connection, pending: bool) -> IndexStats | None:
    """The index's stats over the open connection; None when that read fails (the caller then reads
    them as it would have without this shortcut, with read_index_stats' retry)."""
    try:
        return stats_on(db, pending=pending)
    except (IndexUnreadable, sqlite3.Error):
        return None


def judge(job: FreshnessJob, token: CancelToken | None = None) -> Judged:
    """The agent's freshness now, and the parts a record of it would hold."""
    return _Judgement(job, token).run()


def judge_all(jobs: Sequence[FreshnessJob], token: CancelToken, workers: int | None = None) -> list[Judged]:
    """judge for each job, in forked workers (forked_map): the walks are nearly all of the time of
    `status` and of a no-change `init-backends`. A cancelled token ends them (Cancelled): between
    agents, between the walk's collections, and within the export check, per record and per slice; this
    process stops waiting for its workers then, and kills them."""

    def one(job: FreshnessJob) -> Judged:
        token.check()
        return judge(job, token)

    with shared_parents():
        return forked_map(one, jobs, workers, check=token.check)
