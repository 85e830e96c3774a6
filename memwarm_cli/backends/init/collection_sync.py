"""Reconciling an agent's managed qmd collections (memory-backends.md §5.3), and planning it for `--dry-run`.

The names, paths and patterns are exactly OpenClaw 2026.6.35's (qmd_collections.py), so after a
memwarm run the gateway finds every collection as it wants it and changes none, and after the gateway's
run memwarm keeps them all. Collections are listed, added when missing, rebound when their path or
pattern changed. A conflicting collection is taken over only when memwarm manages it; nothing else is
ever removed, and a collection is never removed unless memwarm can add its replacement in the same step.

A collection whose directory does not exist (say `memory/` before the first note) is reported
"missing", never created (memwarm writes only under the state dir; the gateway creates it and adds the
collection at first use), and added by the first run that finds it. A custom collection with the path
and pattern of a default one is refused ("conflict", the agent fails): qmd holds one collection per
path and pattern, so 6.35 swaps the two at every open and its memory search fails.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from memwarm_cli.backends.init.agent_job import AgentFailed, AgentJob
from memwarm_cli.backends.init.init_report import CollectionOutcome, PlannedCommand
from memwarm_cli.backends.qmd import qmd_commands
from memwarm_cli.backends.qmd import qmd_output as output
from memwarm_cli.backends.settings.qmd_collections import (
    CollectionSpec,
    duplicates_of_defaults,
    scope_collection_base,
)

# Actions after which a collection is in the index, as a run reports them and as `--dry-run` plans them.
LIVE_ACTIONS = frozenset({"kept", "added", "rebound", "keep", "add", "rebind"})

Outcome = Callable[..., CollectionOutcome]


def same_path(listed: str, wanted: Path) -> bool:
    if os.path.normpath(listed) == os.path.normpath(str(wanted)):
        return True
    return os.path.realpath(listed) == os.path.realpath(str(wanted))


def missing_path(spec: CollectionSpec) -> str | None:
    """Why `qmd collection add` is not run for `spec` (its path is not a directory), or None."""
    if spec.path.is_dir():
        return None
    if spec.path.exists():
        return f"qmd collection add skipped for {spec.name}: path is not a directory ({spec.path})"
    return (
        f"qmd collection add skipped for {spec.name}: path does not exist ({spec.path}); memwarm does "
        "not create it, the gateway creates it and adds the collection at first use"
    )


def duplicate_reason(job: AgentJob, spec: CollectionSpec) -> str | None:
    """Why `spec` (a custom collection) is refused: a default collection has its path and pattern."""
    for custom, default in duplicates_of_defaults(job.qmd.collections):
        if custom is spec:
            return (
                f"qmd collection {spec.name} ({spec.source}) has the path and pattern of {default.name} "
                f"({spec.path}, {spec.pattern}): qmd holds one collection per path and pattern, so "
                "OpenClaw 2026.6.35 swaps the two at every open and its memory search fails; remove the "
                "entry (the default collection already indexes it)"
            )
    return None


def probe_collections(job: AgentJob) -> list[str]:
    """The collections `--probe` searches: those in the index, else every managed one."""
    live = [c.name for c in job.collections if c.action in LIVE_ACTIONS]
    return live or [c.name for c in job.qmd.collections]


def _outcome_for(spec: CollectionSpec) -> Outcome:
    def outcome(action: str, detail: str | None = None) -> CollectionOutcome:
        return CollectionOutcome(spec.name, str(spec.path), spec.pattern, spec.kind, action, detail)

    return outcome


# -- a real run -------------------------------------------------------------------------------------------


def list_unchanged(job: AgentJob) -> None:
    """The collections of an agent whose fingerprint matched: kept, or missing (its directory is not
    there and index.yml does not register it either).

    index.yml is read only when a directory is missing: whether a collection is registered decides
    nothing for one whose directory is there (kept either way), and parsing YAML (importing PyYAML
    first) was the largest cost of a warm agent's pass after its walk."""
    registered: dict[str, output.ListedCollection] | None = None
    job.collections = []
    for spec in job.qmd.collections:
        duplicate = duplicate_reason(job, spec)
        if duplicate is not None:
            job.fail_later(duplicate)
            job.collections.append(_outcome_for(spec)("conflict", duplicate))
            continue
        missing = missing_path(spec)
        if missing is not None:
            if registered is None:
                registered = output.read_index_yml(job.paths.index_yml)
            if spec.name in registered:
                missing = None
        action, detail = ("kept", "unchanged since the last run") if missing is None else ("missing", missing)
        job.collections.append(_outcome_for(spec)(action, detail))


def ensure_collections(job: AgentJob, recorded: set[str]) -> None:
    """List, then add or rebind every managed collection; `recorded` are the names the last run managed."""
    timeout = job.timeout(job.qmd.update.command_timeout_ms)
    job.step("collections", timeout)
    listing = job.run_qmd(qmd_commands.collection_list_args(), timeout)
    if not listing.ok:
        raise AgentFailed(f"qmd collection list failed: {listing.error_message()}")
    listed = output.merge_listing(
        output.parse_collection_list(listing.stdout), output.read_index_yml(job.paths.index_yml)
    )
    managed = _managed_names(job, recorded)
    for spec in job.qmd.collections:
        job.token.check()
        job.collections.append(_ensure_one(job, spec, listed.get(spec.name), managed, timeout))
    # Like the gateway, memwarm never removes a collection it stopped managing; say so once (the
    # next fingerprint no longer records it), since its notes still turn up in searches.
    for name in sorted(recorded - {c.name for c in job.qmd.collections}):
        if name in listed:
            job.warn(no_longer_configured(name))


def no_longer_configured(name: str) -> str:
    return (
        f"qmd collection {name} is no longer configured but stays in the index and in "
        f"search results (left in place; remove it with `qmd collection remove {name}` "
        "in this agent's env)"
    )


def _managed_names(job: AgentJob, recorded: set[str]) -> set[str]:
    """Names memwarm may remove to resolve a conflict: its own, and the gateway's default names."""
    agent = job.settings.agent_id
    defaults = {scope_collection_base(b, agent) for b in ("memory-root", "memory-alt", "memory-dir")}
    return {c.name for c in job.qmd.collections} | recorded | defaults


def _ensure_one(
    job: AgentJob,
    spec: CollectionSpec,
    entry: output.ListedCollection | None,
    managed: set[str],
    timeout: int,
) -> CollectionOutcome:
    outcome = _outcome_for(spec)
    duplicate = duplicate_reason(job, spec)
    if duplicate is not None:
        job.fail_later(duplicate)
        return outcome("conflict", duplicate)
    if entry is not None:
        if entry.path is None:
            return outcome("kept", "path unknown to memwarm: never rebound")
        if same_path(entry.path, spec.path) and (entry.pattern or "") == spec.pattern:
            return outcome("kept")
        missing = missing_path(spec)
        if missing is not None:
            # Never removed for an add that cannot run: the gateway would rebind it at first use (it
            # creates the directory), and until then it keeps answering from where it points.
            job.warn(f"{missing}; {spec.name} stays bound to {entry.path} ({entry.pattern})")
            return outcome("missing", missing)
        removed = job.run_qmd(qmd_commands.collection_remove_args(spec.name), timeout)
        if not removed.ok and not output.is_not_found(removed.error_message()):
            message = f"qmd collection remove failed for {spec.name}: {removed.error_message()}"
            job.fail_later(message)
            return outcome("failed", message)
        detail = f"was {entry.path} ({entry.pattern})"
        added = _add(job, spec, managed, timeout, outcome)
        if added.action == "added":
            return outcome("rebound", detail)
        return added
    return _add(job, spec, managed, timeout, outcome)


def _add(
    job: AgentJob, spec: CollectionSpec, managed: set[str], timeout: int, outcome: Outcome
) -> CollectionOutcome:
    missing = missing_path(spec)
    if missing is not None:
        # Never created: memwarm does not write into the user's workspace (or anywhere they own).
        # Not a failure either; the collection is added by the first run that finds the directory
        # (its appearing changes the fingerprint).
        job.warn(missing)
        return outcome("missing", missing)
    add = qmd_commands.collection_add_args(spec)
    first = job.run_qmd(add, timeout)
    if first.ok:
        return outcome("added")
    message = first.error_message()
    other = output.conflicting_collection(first.stderr + "\n" + first.stdout)
    if other is not None and other != spec.name:
        if other not in managed:
            reason = (
                f"qmd collection add conflict for {spec.name}: path+pattern already bound by {other}, "
                "which memwarm does not manage (left in place; remove or rename it)"
            )
            job.fail_later(reason)
            return outcome("conflict", reason)
        bound = f"path+pattern already bound by {other}"
        job.warn(f"qmd collection add conflict for {spec.name}: {bound}; rebinding")
        job.run_qmd(qmd_commands.collection_remove_args(other), timeout)
        second = job.run_qmd(add, timeout)
        if second.ok:
            return outcome("rebound", f"took over path+pattern from {other}")
        reason = (
            f"qmd collection add failed for {spec.name} after rebinding {other}: "
            f"{second.error_message()} (initial: {message})"
        )
        job.fail_later(reason)
        return outcome("failed", reason)
    if output.is_name_taken(message):
        return outcome("kept", "created meanwhile")
    reason = f"qmd collection add failed for {spec.name}: {message}"
    job.fail_later(reason)
    return outcome("failed", reason)


def rebuild_collections(job: AgentJob) -> None:
    """Remove and re-add every collection memwarm manages for this agent (never anyone else's)."""
    timeout = job.timeout(job.qmd.update.command_timeout_ms)
    live = {c.name for c in job.collections if c.action in ("kept", "added", "rebound")}
    for spec in job.qmd.collections:
        if spec.name not in live:
            continue
        job.run_qmd(qmd_commands.collection_remove_args(spec.name), timeout)
        added = job.run_qmd(qmd_commands.collection_add_args(spec), timeout)
        if not added.ok:
            job.fail_later(f"qmd collection add failed for {spec.name}: {added.error_message()}")
    job.log("qmd managed collections rebuilt for update repair (boot)")


# -- --dry-run --------------------------------------------------------------------------------------------


def plan_collections(job: AgentJob) -> list[PlannedCommand]:
    """What `ensure_collections` would run, judged from index.yml (memwarm's dry run starts no qmd)."""
    planned = [
        job.planned(
            qmd_commands.collection_list_args(), "all qmd commands are skipped when the fingerprint matches"
        )
    ]
    recorded = output.read_index_yml(job.paths.index_yml)
    for spec in job.qmd.collections:
        duplicate = duplicate_reason(job, spec)
        if duplicate is not None:
            job.collections.append(_outcome_for(spec)("conflict", duplicate))
            continue
        entry = recorded.get(spec.name)
        add = qmd_commands.collection_add_args(spec)
        # As a real run decides: no add while the directory is missing; the session export dir is
        # created before the collections are (session_export_step.py), so it is never missing.
        missing = None if spec.kind == "sessions" else missing_path(spec)
        if (
            entry is not None
            and entry.path is not None
            and (not same_path(entry.path, spec.path) or entry.pattern != spec.pattern)
        ):
            if missing is None:  # as a real run: no remove without the add that replaces it
                planned.append(job.planned(qmd_commands.collection_remove_args(spec.name)))
                planned.append(job.planned(add))
            action = "rebind" if missing is None else "missing"
        elif entry is not None:
            action = "keep"
        elif missing is None:
            planned.append(job.planned(add))
            action = "add"
        else:
            action = "missing"
        job.collections.append(_outcome_for(spec)(action, missing))
    return planned
