"""The one bootstrap pipeline, computed once: session, settings, reads, filters, budget, visibility, blocks.

`memwarm context` renders this plan as text (the blocks), a table and JSON (the rows, one per file read
from the workspace with what happened to it), the way `scan` and `prelude` render the startup plan.
Reference: ../shared/spec/bootstrap-context.md (2026.6.35), and for later releases the profile's features
(memwarm_cli/profiles/releases.py): which files, how a failed read shows, the memory eligibility rule,
the USER.md cap, the truncation notice, and from 2026.8.1 the legacy setup state that fails the run.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from enum import StrEnum

from memwarm_cli.agents import default_agent_id as designated_default
from memwarm_cli.bootstrap.budget import Placement, place_files
from memwarm_cli.bootstrap.candidates import (
    BOOTSTRAP_MD,
    HEARTBEAT_MD,
    BootstrapFile,
    Dropped,
    read_bootstrap_files,
    session_filter_reason,
    workspace_root,
)
from memwarm_cli.bootstrap.context_settings import (
    DEFAULT_MAX_CHARS,
    DEFAULT_TOTAL_MAX_CHARS,
    BootstrapLimit,
    HeartbeatDecision,
    heartbeat_decision,
    resolve_context_injection,
    resolve_limit,
    resolve_truncation_warning,
)
from memwarm_cli.bootstrap.memory_eligibility import artifact_path_reason, memory_plugin_reasons
from memwarm_cli.bootstrap.rendering import (
    TRUNCATION_NOTICE,
    ContextFile,
    RenderedBlocks,
    is_bootstrap_md_path,
    is_dynamic,
    render_blocks,
)
from memwarm_cli.bootstrap.session_keys import SessionKey, parse_session_key
from memwarm_cli.bootstrap.trimming import Trimmed
from memwarm_cli.bootstrap.workspace_state import SetupState, check_legacy_state, read_setup_state
from memwarm_cli.boundary_read import ReadFailure
from memwarm_cli.jsstring import js_length, js_trim, js_trim_end
from memwarm_cli.profiles.releases import Profile, legacy_state_error_name

# typing.TYPE_CHECKING without importing typing: ~2.5 ms of `context`'s start (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, NamedTuple

    BootstrapMode = Literal["full", "none"]
else:
    from memwarm_cli.named_tuples import NamedTuple


class BootstrapStatus(StrEnum):
    """The fixed status vocabulary of `context` rows (documented in the README)."""

    INCLUDED = "included"
    TRUNCATED = "truncated"
    MISSING = "missing"
    SYMLINK_ESCAPE = "symlink-escape"
    SYMLINK_REFUSED = "symlink-refused"
    NOT_REGULAR = "not-regular"
    HARDLINK = "hardlink"
    TOO_LARGE = "too-large"
    UNREADABLE = "unreadable"
    EMPTY = "empty"
    BUDGET_EXHAUSTED = "budget-exhausted"
    HIDDEN = "hidden"
    SESSION_FILTER = "session-filter"
    SETUP_COMPLETED = "setup-completed"
    HEARTBEAT_OFF = "heartbeat-off"
    MEMORY_INELIGIBLE = "memory-ineligible"
    INJECTION_NEVER = "injection-never"

    @property
    def description(self) -> str:
        return STATUS_DESCRIPTIONS[self]


STATUS_DESCRIPTIONS = {
    BootstrapStatus.INCLUDED: "included",
    BootstrapStatus.TRUNCATED: "included, truncated",
    BootstrapStatus.MISSING: "missing (marker injected)",
    BootstrapStatus.SYMLINK_ESCAPE: "symlink leaving the workspace (missing marker injected)",
    BootstrapStatus.SYMLINK_REFUSED: "a symlink, refused from 2026.8.1 ([UNREADABLE] entry injected)",
    BootstrapStatus.NOT_REGULAR: "not a regular file (missing marker injected)",
    BootstrapStatus.HARDLINK: "hard-linked file (missing marker injected)",
    BootstrapStatus.TOO_LARGE: "larger than 2 MiB (missing marker injected)",
    BootstrapStatus.UNREADABLE: "unreadable (missing marker injected)",
    BootstrapStatus.EMPTY: "skipped as empty or blank",
    BootstrapStatus.BUDGET_EXHAUSTED: "not included, total budget exhausted",
    BootstrapStatus.HIDDEN: "hidden from the prompt (bootstrap mode none), budget still spent",
    BootstrapStatus.SESSION_FILTER: "skipped by the session filter",
    BootstrapStatus.SETUP_COMPLETED: "dropped, workspace setup completed",
    BootstrapStatus.HEARTBEAT_OFF: "dropped, heartbeat guidance off",
    BootstrapStatus.MEMORY_INELIGIBLE: "dropped, not a memory file eligible for automatic context",
    BootstrapStatus.INJECTION_NEVER: "not injected, contextInjection is never",
}

# From 2026.8.1 a present file that cannot be read is an `[UNREADABLE: reason]` entry, not missing.
UNREADABLE_DESCRIPTIONS = {
    BootstrapStatus.SYMLINK_ESCAPE: "symlink leaving the workspace ([UNREADABLE] entry injected)",
    BootstrapStatus.NOT_REGULAR: "not a regular file ([UNREADABLE] entry injected)",
    BootstrapStatus.HARDLINK: "hard-linked file ([UNREADABLE] entry injected)",
    BootstrapStatus.TOO_LARGE: "larger than 2 MiB ([UNREADABLE] entry injected)",
    BootstrapStatus.UNREADABLE: "unreadable ([UNREADABLE] entry injected)",
}

_FAILURE_STATUS = {
    ReadFailure.MISSING: BootstrapStatus.MISSING,
    ReadFailure.SYMLINK_ESCAPE: BootstrapStatus.SYMLINK_ESCAPE,
    ReadFailure.SYMLINK_REFUSED: BootstrapStatus.SYMLINK_REFUSED,
    ReadFailure.NOT_REGULAR: BootstrapStatus.NOT_REGULAR,
    ReadFailure.HARDLINK: BootstrapStatus.HARDLINK,
    ReadFailure.OVERSIZE: BootstrapStatus.TOO_LARGE,
    ReadFailure.UNREADABLE: BootstrapStatus.UNREADABLE,
}
_DROPPED_STATUS = {
    Dropped.SESSION_FILTER: BootstrapStatus.SESSION_FILTER,
    Dropped.SETUP_COMPLETED: BootstrapStatus.SETUP_COMPLETED,
    Dropped.HEARTBEAT_OFF: BootstrapStatus.HEARTBEAT_OFF,
    Dropped.MEMORY_INELIGIBLE: BootstrapStatus.MEMORY_INELIGIBLE,
}


class InjectedStat(NamedTuple):
    """OpenClaw's per-file injection stats for the prompt-visible files (spec §6.2)."""

    name: str
    path: str
    missing: bool
    raw_chars: int
    injected_chars: int
    truncated: bool


class BootstrapRow(NamedTuple):
    """One file read from the workspace and what happened to it."""

    file: BootstrapFile
    status: BootstrapStatus
    detail: str | None
    raw_chars: int  # after trimEnd; 0 for a missing file
    budget_chars: int  # units counted against the total budget (hidden BOOTSTRAP.md included)
    injected_chars: int  # units shown in the prompt
    placement: Placement | None  # None for files dropped before the budget loop
    status_text: str = ""  # the status's description, in the words of the run's release

    @property
    def trimmed(self) -> Trimmed | None:
        return self.placement.trimmed if self.placement is not None else None

    @property
    def block(self) -> str | None:
        """Which prompt block shows the file: `stable`, `dynamic` (HEARTBEAT.md), or None."""
        if self.injected_chars == 0:
            return None
        return "dynamic" if is_dynamic(self.file.path) else "stable"


class BootstrapPlan(NamedTuple):
    workspace: str
    session: SessionKey
    default_agent_id: str | None  # None: no agent is designated (2026.8.1+ rosters without an owner)
    context_injection: Any  # as resolved: the defaults value is not validated
    max_chars: BootstrapLimit
    total_max_chars: BootstrapLimit
    setup: SetupState
    heartbeat: HeartbeatDecision | None  # None without a config: the filter does not run
    bootstrap_mode: BootstrapMode
    warning_mode: str
    files: list[BootstrapFile]  # resolved: after the session, setup and heartbeat filters
    context_files: list[ContextFile]  # after the budgets, before hiding and sanitising
    injected: list[InjectedStat]
    truncation_notice: str | None
    blocks: RenderedBlocks
    rows: list[BootstrapRow]
    profile: Profile  # the OpenClaw release group whose rules made the plan

    @property
    def budget_used(self) -> int:
        return sum(js_length(f.content) for f in self.context_files)

    @property
    def rendered_chars(self) -> int:
        """Units of the rendered blocks (what the prompt gains, headings and paths included)."""
        blocks = (self.blocks.project_context, self.blocks.dynamic_project_context)
        return sum(js_length(block) for block in blocks if block is not None)


def raw_chars(file: BootstrapFile) -> int:
    return 0 if file.content is None else js_length(js_trim_end(file.content))


def _apply_filters(
    loaded: list[BootstrapFile],
    session: SessionKey,
    setup: SetupState,
    heartbeat: HeartbeatDecision | None,
    memory: dict[str, str],
    profile: Profile,
) -> list[BootstrapFile]:
    """Every file read, those a filter drops marked with the filter and its reason (§3.3, in order;
    `memory`: path -> why the memory eligibility rule drops it)."""
    marked = []
    for file in loaded:
        reason = session_filter_reason(file.name, session, profile=profile)
        if reason is not None:
            file = file._replace(dropped=Dropped.SESSION_FILTER, dropped_reason=reason)
        elif file.name == BOOTSTRAP_MD and setup.completed:
            reason = f"{setup.source} records setup completed at {setup.marker}"
            file = file._replace(dropped=Dropped.SETUP_COMPLETED, dropped_reason=reason)
        elif file.name == HEARTBEAT_MD and heartbeat is not None and not heartbeat.keep:
            file = file._replace(dropped=Dropped.HEARTBEAT_OFF, dropped_reason=heartbeat.reason)
        elif file.path in memory:
            file = file._replace(dropped=Dropped.MEMORY_INELIGIBLE, dropped_reason=memory[file.path])
        marked.append(file)
    return marked


def _memory_reasons(
    root: str, files: list[BootstrapFile], cfg: Mapping[str, Any] | None, profile: Profile
) -> dict[str, str]:
    if profile.memory_eligibility == "artifact-path":
        found = ((f.path, artifact_path_reason(root, f)) for f in files)
        return {path: reason for path, reason in found if reason is not None}
    if profile.memory_eligibility == "memory-plugin":
        return memory_plugin_reasons(root, files, cfg)
    return {}


def _is_pending(root: str, files: list[BootstrapFile], setup: SetupState) -> bool:
    """BOOTSTRAP.md is pending: it exists (stat follows links) before setup completes, or has text."""
    if not setup.completed and os.path.exists(os.path.join(root, BOOTSTRAP_MD)):
        return True
    return any(f.name == BOOTSTRAP_MD and f.content is not None and js_trim(f.content) for f in files)


def _row(
    file: BootstrapFile, placement: Placement | None, visible: dict[str, str], injection: Any, shown: bool
) -> BootstrapRow:
    raw = raw_chars(file)
    injected = js_length(visible[file.path]) if file.path in visible else 0
    budget = placement.chars if placement is not None else 0
    detail: str | None = file.detail
    if file.unreadable and file.content is not None:
        detail = file.content[len("[UNREADABLE: ") : -1]
    if injection == "never":
        status = BootstrapStatus.INJECTION_NEVER
    elif file.dropped is not None:
        status, detail = _DROPPED_STATUS[file.dropped], file.dropped_reason
    elif placement is None or placement.outcome == "budget-exhausted":
        status = BootstrapStatus.BUDGET_EXHAUSTED
        if placement is not None:
            detail = f"{placement.remaining_before} chars left" + (f"; {file.detail}" if file.detail else "")
    elif placement.outcome == "empty":
        status = BootstrapStatus.EMPTY
    elif not shown:
        status = BootstrapStatus.HIDDEN
        if file.failure is not None:
            detail = file.failure.value + (f": {file.detail}" if file.detail else "")
    elif file.failure is not None or file.content is None:
        status = _FAILURE_STATUS[file.failure or ReadFailure.UNREADABLE]
        if placement.marker_clamped:
            detail = "marker cut to the total budget" + (f"; {file.detail}" if file.detail else "")
    elif placement.marker_clamped or (placement.trimmed is not None and placement.trimmed.cut):
        status = BootstrapStatus.TRUNCATED
    else:
        status = BootstrapStatus.INCLUDED
    text = UNREADABLE_DESCRIPTIONS.get(status, status.description) if file.unreadable else status.description
    return BootstrapRow(file, status, detail, raw, budget, injected, placement, text)


def build_bootstrap_plan(
    workspace: str | os.PathLike[str],
    cfg: Mapping[str, Any] | None,
    session_key: str | None,
    *,
    profile: Profile,
    env: Mapping[str, str] | None = None,
    version: str | None = None,
) -> BootstrapPlan:
    """Everything OpenClaw does to build a new session's Project Context for `workspace`, by the rules of
    `profile` (2026.6.35's by default; `version`, the release named, picks the legacy-state error's class).

    `cfg` None means no config object at all (the heartbeat filter, and from 2026.8.1 the memory
    eligibility rule, then do not run); memwarm's CLI passes None when no config file exists, as the
    golden cases' `config: null` does. `env` is the environment of the run (the state dir, the doctor
    command's profile). Raises SessionKeyError for a key the release refuses and, from 2026.8.1,
    LegacyWorkspaceStateError for a workspace whose legacy setup state must be migrated first.
    """
    root = workspace_root(workspace)
    session = parse_session_key(session_key, cfg, profile=profile)
    default_agent_id = designated_default(cfg, profile=profile) if cfg is not None else "main"
    injection = resolve_context_injection(cfg, session.agent_id, profile=profile)
    max_chars = resolve_limit(cfg, session.agent_id, "bootstrapMaxChars", DEFAULT_MAX_CHARS, profile=profile)
    total = resolve_limit(
        cfg, session.agent_id, "bootstrapTotalMaxChars", DEFAULT_TOTAL_MAX_CHARS, profile=profile
    )
    if profile.legacy_state_refused:
        check_legacy_state(root, env or {}, legacy_state_error_name(version, profile))
    if profile.setup_state == "state-database":
        # Imported here: sqlite3, hashlib and unicodedata, ~8 ms CPU that 2026.6.35's context never uses.
        from memwarm_cli.bootstrap.setup_state_db import read_setup_state_from_env

        setup = read_setup_state_from_env(root, env or {})  # OpenClaw's SQLite state store, read only
    else:
        setup = read_setup_state(root)
    heartbeat = None
    if cfg is not None and profile.heartbeat_filter and default_agent_id is not None:
        heartbeat = heartbeat_decision(cfg, session.agent_id, default_agent_id, profile=profile)

    read = read_bootstrap_files(root, profile=profile)
    loaded = _apply_filters(
        read, session, setup, heartbeat, _memory_reasons(root, read, cfg, profile), profile
    )
    files = [] if injection == "never" else [f for f in loaded if f.dropped is None]
    placements = place_files(files, max_chars.value, total.value, profile=profile)
    by_path = {p.file.path: p for p in placements}
    context_files = [ContextFile(p.file.path, p.content) for p in placements if p.content is not None]

    pending = _is_pending(root, files, setup)
    mode: BootstrapMode = "full" if pending and session.primary else "none"

    def shown(path: str) -> bool:
        return mode == "full" or not is_bootstrap_md_path(path)

    visible_files = [f for f in context_files if shown(f.path)]
    visible = {f.path: f.content for f in visible_files}
    injected = []
    for file in files:
        if not shown(file.path):
            continue
        chars = js_length(visible[file.path]) if file.path in visible else 0
        raw = raw_chars(file)
        injected.append(
            InjectedStat(file.name, file.path, file.missing, raw, chars, not file.missing and chars < raw)
        )
    warning_mode = resolve_truncation_warning(cfg, profile=profile)
    notice = TRUNCATION_NOTICE if warning_mode != "off" and any(s.truncated for s in injected) else None
    rows = [_row(f, by_path.get(f.path), visible, injection, shown(f.path)) for f in loaded]
    return BootstrapPlan(
        workspace=root,
        session=session,
        default_agent_id=default_agent_id,
        context_injection=injection,
        max_chars=max_chars,
        total_max_chars=total,
        setup=setup,
        heartbeat=heartbeat,
        bootstrap_mode=mode,
        warning_mode=warning_mode,
        files=files,
        context_files=context_files,
        injected=injected,
        truncation_notice=notice,
        blocks=render_blocks(visible_files, profile=profile),
        rows=rows,
        profile=profile,
    )
