"""The qmd backend settings of one agent, resolved like OpenClaw 2026.6.35's
`resolveMemoryBackendConfig(...).qmd` (memory-backends.md §4; research backend-635.md §1-§4): command,
search mode, rerank, update/embed timing and the boot policy, limits, sessions, collections.

A function of the backend choice, the agent's id and workspace, its extra paths and collections, the
state dir and an environment mapping; never raises on bad values (defaults instead, like upstream). The
session export settings (session-export.md §1-§2) are resolved here too, and nowhere else.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from memwarm_cli.agents import normalize_agent_id
from memwarm_cli.backends.settings.backend_choice import BackendChoice
from memwarm_cli.backends.settings.qmd_collections import (
    SESSIONS_PATTERN,
    CollectionSpec,
    resolve_collection_path,
    resolve_collections,
    sessions_collection_name,
)
from memwarm_cli.backends.settings.qmd_paths import agent_qmd_paths
from memwarm_cli.config.lookup import as_object
from memwarm_cli.durations import parse_duration_ms
from memwarm_cli.frozen_records import field, record
from memwarm_cli.jsstring import js_is_finite_number, js_trimmed_string, js_truthy

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    SearchMode = Literal["search", "vsearch", "query"]
    StartupMode = Literal["off", "idle", "immediate"]


SEARCH_MODES: tuple[SearchMode, ...] = ("search", "vsearch", "query")
DEFAULT_COMMAND = "qmd"
DEFAULT_SEARCH_MODE: SearchMode = "search"

DEFAULT_UPDATE_INTERVAL_MS = 5 * 60_000
DEFAULT_DEBOUNCE_MS = 15_000
DEFAULT_EMBED_INTERVAL_MS = 60 * 60_000
DEFAULT_COMMAND_TIMEOUT_MS = 30_000
DEFAULT_UPDATE_TIMEOUT_MS = 120_000
DEFAULT_EMBED_TIMEOUT_MS = 120_000
DEFAULT_STARTUP: StartupMode = "off"  # 6.35's gateway runs no qmd at boot unless update.startup says so
DEFAULT_STARTUP_DELAY_MS = 120_000
# 6.35's code (its docs and schema help still say 6 and 700, the 2026.2-3 values; the code is what runs).
DEFAULT_LIMITS = {"maxResults": 4, "maxSnippetChars": 450, "maxInjectedChars": 2200, "timeoutMs": 4000}


def _positive_int(value: Any, default: int) -> int:
    """`resolvePositiveIntegerConfig`: finite and > 0 gives `max(1, floor)`, else the default."""
    return max(1, math.floor(value)) if js_is_finite_number(value) and value > 0 else default


def _non_negative_int(value: Any, default: int) -> int:
    """`finite and >= 0 gives floor, else default`."""
    return math.floor(value) if js_is_finite_number(value) and value >= 0 else default


def _duration_or_default(raw: Any, default_ms: int) -> int:
    if raw is None:
        return default_ms
    try:
        return parse_duration_ms(str(raw), "m")
    except ValueError:
        return default_ms


@record
class QmdUpdateSettings:
    interval_ms: int
    debounce_ms: int
    on_boot: bool  # a full manager (first memory use, or boot work) updates when it opens
    startup: StartupMode  # what the gateway does at boot: off (nothing), idle (after the delay), immediate
    startup_delay_ms: int
    wait_for_boot_sync: bool
    embed_interval_ms: int
    command_timeout_ms: int  # collection list/add/remove
    update_timeout_ms: int  # qmd update
    embed_timeout_ms: int  # qmd embed


STARTUP_MODES: tuple[StartupMode, ...] = ("off", "idle", "immediate")


def _startup_mode(raw: Any) -> StartupMode:
    """`resolveStartupMode`: "off", "idle" or "immediate"; anything else is "off"."""
    for mode in STARTUP_MODES:
        if raw == mode and isinstance(raw, str):
            return mode
    return DEFAULT_STARTUP


@record
class QmdLimits:
    max_results: int
    max_snippet_chars: int
    max_injected_chars: int
    timeout_ms: int  # one search


@record
class QmdSessionSettings:
    """`memory.qmd.sessions` for one agent, resolved (session-export.md §1-§2)."""

    enabled: bool
    sessions_dir: Path  # <stateDir>/agents/<normalized id>/sessions: the transcripts
    export_dir: Path  # exportDir, else <stateDir>/agents/<id as given>/qmd/sessions
    export_dir_configured: bool
    retention_days: int | None  # None: keep every transcript
    # <stateDir>/agents/<id as given>/qmd: the agent's own qmd state, where the default export dir lives.
    # Only an export dir inside it gets the release's whole stale cleanup (session_export.py).
    agent_qmd_dir: Path


def resolve_retention_days(value: Any) -> int | None:
    """`resolvePositiveIntegerConfig(retentionDays)`: a finite number > 0 gives `max(1, floor)` (0.5 is
    1 day); anything else is no limit.

    Infinity is no limit too, as in JS (its cutoff is -Infinity). A non-number (which OpenClaw's schema
    rejects) counts as absent.
    """
    if not js_is_finite_number(value) or value <= 0:
        return None
    floored: int = math.floor(value)
    return max(1, floored)


def resolve_session_settings(
    qmd_block: Mapping[str, Any], *, agent_id: str, workspace: Path, state_dir: Path, env: Mapping[str, str]
) -> QmdSessionSettings:
    """§1/§2 from the qmd block: wrong types count as absent, like the rest of the qmd settings.

    The transcripts are under the normalised agent id; the default export dir uses the id as given (as
    upstream does; memwarm's agent ids are normalised already, so the two agree in practice).
    """
    sessions = as_object(qmd_block.get("sessions"))
    export_raw = sessions.get("exportDir")
    configured = resolve_collection_path(export_raw, workspace, env) if isinstance(export_raw, str) else None
    own = agent_qmd_paths(state_dir, agent_id)
    return QmdSessionSettings(
        enabled=js_truthy(sessions.get("enabled")),
        sessions_dir=state_dir / "agents" / normalize_agent_id(agent_id) / "sessions",
        export_dir=configured or own.sessions_dir,
        export_dir_configured=configured is not None,
        retention_days=resolve_retention_days(sessions.get("retentionDays")),
        agent_qmd_dir=own.qmd_dir,
    )


@record
class QmdSettings:
    """`resolveMemoryBackendConfig(...).qmd` for one agent (collections already scoped to the agent)."""

    command: str  # first token only, as upstream runs it
    command_raw: str  # the configured value (or "qmd")
    search_mode: SearchMode
    rerank: bool | None  # memory.qmd.rerank as set; False adds --no-rerank to a `query` search
    search_tool: str | None  # memory.qmd.searchTool trimmed (the mcporter tool; memwarm runs qmd itself)
    include_default_memory: bool
    collections: tuple[CollectionSpec, ...]
    update: QmdUpdateSettings
    limits: QmdLimits
    sessions: QmdSessionSettings
    skipped_paths: tuple[str, ...] = field(default=())  # why a configured path produced no collection

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready view (paths as strings) in a stable order: used for reports and fingerprints."""
        return {
            "command": self.command,
            "searchMode": self.search_mode,
            "rerank": self.rerank,
            "searchTool": self.search_tool,
            "includeDefaultMemory": self.include_default_memory,
            "collections": [
                {"name": c.name, "path": str(c.path), "pattern": c.pattern, "kind": c.kind}
                for c in self.collections
            ],
            "update": {
                "intervalMs": self.update.interval_ms,
                "debounceMs": self.update.debounce_ms,
                "onBoot": self.update.on_boot,
                "startup": self.update.startup,
                "startupDelayMs": self.update.startup_delay_ms,
                "waitForBootSync": self.update.wait_for_boot_sync,
                "embedIntervalMs": self.update.embed_interval_ms,
                "commandTimeoutMs": self.update.command_timeout_ms,
                "updateTimeoutMs": self.update.update_timeout_ms,
                "embedTimeoutMs": self.update.embed_timeout_ms,
            },
            "limits": {
                "maxResults": self.limits.max_results,
                "maxSnippetChars": self.limits.max_snippet_chars,
                "maxInjectedChars": self.limits.max_injected_chars,
                "timeoutMs": self.limits.timeout_ms,
            },
            "sessions": {
                "enabled": self.sessions.enabled,
                "sessionsDir": str(self.sessions.sessions_dir),
                "exportDir": str(self.sessions.export_dir),
                "exportDirConfigured": self.sessions.export_dir_configured,
                "retentionDays": self.sessions.retention_days,
            },
        }


# What shlex.split treats apart from other characters (posix mode, no comments): a command without any is
# its one word.
_SHELL_SYNTAX = frozenset(" \t\r\n'\"\\")


def shell_words(raw: str) -> list[str]:
    """shlex.split(raw) (ValueError for an unclosed quote); shlex loaded only for a command that needs it
    (~0.6 ms CPU of a status on the default `qmd`)."""
    if _SHELL_SYNTAX.isdisjoint(raw):
        return [raw] if raw else []
    import shlex  # a command with whitespace, quotes or backslashes only (docstring)

    return shlex.split(raw)


@functools.lru_cache(maxsize=256)  # the same command for every agent: shlex is slow
def split_command(raw: str) -> str:
    """The first token of a shell-split command (args are dropped, as upstream does)."""
    try:
        tokens = shell_words(raw)
    except ValueError:
        tokens = []
    if tokens and tokens[0]:
        return tokens[0]
    parts = raw.split()
    return parts[0] if parts else DEFAULT_COMMAND


@functools.lru_cache(maxsize=256)  # asked for every agent's (usually one) command
def dropped_words(raw: str) -> str:
    """What `split_command` leaves out of a configured command (its arguments), as written; "" if none."""
    try:
        tokens = shell_words(raw)
    except ValueError:
        tokens = raw.split()
    if len(tokens) <= 1:
        return ""
    import shlex  # a command with arguments: shell_words loaded it

    return " ".join(shlex.quote(token) for token in tokens[1:])


def configured_command(block: Mapping[str, Any]) -> str:
    """`memory.qmd.command` as configured (trimmed), or `qmd`; `split_command` gives what is run."""
    return js_trimmed_string(block.get("command")) or DEFAULT_COMMAND


def resolve_qmd_settings(
    choice: BackendChoice,
    agent_id: str,
    workspace: Path,
    extra_paths: Sequence[tuple[str, str]],
    state_dir: Path,
    env: Mapping[str, str],
    extra_collections: Sequence[tuple[Mapping[str, Any], str]] = (),
) -> QmdSettings:
    """The resolved qmd block for one agent; never raises on bad values (defaults instead, like upstream).
    `extra_paths` / `extra_collections`: the agent's merged memorySearch.extraPaths and
    memorySearch.qmd.extraCollections, each with its config key (memory_search.py).

    With session export on, the export dir is one more collection, after every other one
    (`sessions-<agent>`, pattern `**/*.md`, kind "sessions").
    """
    block = choice.qmd_block
    command_raw = configured_command(block)
    mode_raw = block.get("searchMode")
    search_mode: SearchMode = DEFAULT_SEARCH_MODE
    for mode in SEARCH_MODES:
        if mode_raw == mode:
            search_mode = mode

    update = as_object(block.get("update"))
    update_settings = QmdUpdateSettings(
        interval_ms=_duration_or_default(update.get("interval"), DEFAULT_UPDATE_INTERVAL_MS),
        debounce_ms=_non_negative_int(update.get("debounceMs"), DEFAULT_DEBOUNCE_MS),
        on_boot=update.get("onBoot") is not False,
        startup=_startup_mode(update.get("startup")),
        startup_delay_ms=_non_negative_int(update.get("startupDelayMs"), DEFAULT_STARTUP_DELAY_MS),
        wait_for_boot_sync=update.get("waitForBootSync") is True,
        embed_interval_ms=_duration_or_default(update.get("embedInterval"), DEFAULT_EMBED_INTERVAL_MS),
        command_timeout_ms=_positive_int(update.get("commandTimeoutMs"), DEFAULT_COMMAND_TIMEOUT_MS),
        update_timeout_ms=_positive_int(update.get("updateTimeoutMs"), DEFAULT_UPDATE_TIMEOUT_MS),
        embed_timeout_ms=_positive_int(update.get("embedTimeoutMs"), DEFAULT_EMBED_TIMEOUT_MS),
    )
    limits = as_object(block.get("limits"))
    limit_settings = QmdLimits(
        max_results=_positive_int(limits.get("maxResults"), DEFAULT_LIMITS["maxResults"]),
        max_snippet_chars=_positive_int(limits.get("maxSnippetChars"), DEFAULT_LIMITS["maxSnippetChars"]),
        max_injected_chars=_positive_int(limits.get("maxInjectedChars"), DEFAULT_LIMITS["maxInjectedChars"]),
        timeout_ms=_positive_int(limits.get("timeoutMs"), DEFAULT_LIMITS["timeoutMs"]),
    )
    session_settings = resolve_session_settings(
        block, agent_id=agent_id, workspace=workspace, state_dir=state_dir, env=env
    )
    collections, skipped = resolve_collections(
        block, agent_id, workspace, extra_paths, extra_collections, env
    )
    if session_settings.enabled:
        sessions_collection = CollectionSpec(
            name=sessions_collection_name(agent_id, {c.name for c in collections}),
            path=session_settings.export_dir,
            pattern=SESSIONS_PATTERN,
            kind="sessions",
            source="memory.qmd.sessions",
        )
        collections = (*collections, sessions_collection)
    return QmdSettings(
        command=split_command(command_raw),
        command_raw=command_raw,
        search_mode=search_mode,
        rerank=block.get("rerank") if isinstance(block.get("rerank"), bool) else None,
        search_tool=js_trimmed_string(block.get("searchTool")),
        include_default_memory=block.get("includeDefaultMemory") is not False,
        collections=collections,
        update=update_settings,
        limits=limit_settings,
        sessions=session_settings,
        skipped_paths=skipped,
    )
