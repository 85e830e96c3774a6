"""The qmd backend settings of one agent, resolved like OpenClaw's `resolveMemoryBackendConfig(...).qmd`
(memory-backends.md §4): command, search mode, update/embed timing, limits, sessions, collections.

A pure function of the backend choice, the agent's id and workspace, its extra paths and an environment
mapping; never raises on bad values (defaults instead, like upstream).
"""

from __future__ import annotations

import math
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from memwarm_cli.backends.backend_choice import BackendChoice
from memwarm_cli.backends.qmd_collections import CollectionSpec, resolve_collection_path, resolve_collections
from memwarm_cli.config.lookup import as_object
from memwarm_cli.durations import parse_duration_ms
from memwarm_cli.jsstring import js_is_finite_number, js_trimmed_string, js_truthy

SearchMode = Literal["search", "vsearch", "query"]

SEARCH_MODES: tuple[SearchMode, ...] = ("search", "vsearch", "query")
DEFAULT_COMMAND = "qmd"
DEFAULT_SEARCH_MODE: SearchMode = "search"

DEFAULT_UPDATE_INTERVAL_MS = 5 * 60_000
DEFAULT_DEBOUNCE_MS = 15_000
DEFAULT_EMBED_INTERVAL_MS = 60 * 60_000
DEFAULT_COMMAND_TIMEOUT_MS = 30_000
DEFAULT_UPDATE_TIMEOUT_MS = 120_000
DEFAULT_EMBED_TIMEOUT_MS = 120_000
DEFAULT_LIMITS = {"maxResults": 6, "maxSnippetChars": 700, "maxInjectedChars": 4000, "timeoutMs": 4000}


def _positive_int(value: Any, default: int) -> int:
    """`finite and > 0 gives floor, else default`."""
    return math.floor(value) if js_is_finite_number(value) and value > 0 else default


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


@dataclass(frozen=True)
class QmdUpdateSettings:
    interval_ms: int
    debounce_ms: int
    on_boot: bool
    wait_for_boot_sync: bool
    embed_interval_ms: int
    command_timeout_ms: int  # collection list/add/remove
    update_timeout_ms: int  # qmd update
    embed_timeout_ms: int  # qmd embed


@dataclass(frozen=True)
class QmdLimits:
    max_results: int
    max_snippet_chars: int
    max_injected_chars: int
    timeout_ms: int  # one search


@dataclass(frozen=True)
class QmdSessionSettings:
    enabled: bool
    export_dir: Path | None  # None: <qmdDir>/sessions
    retention_days: int | None


@dataclass(frozen=True)
class QmdSettings:
    """`resolveMemoryBackendConfig(...).qmd` for one agent (collections already scoped to the agent)."""

    command: str  # first token only, as upstream runs it
    command_raw: str  # the configured value (or "qmd")
    search_mode: SearchMode
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
            "includeDefaultMemory": self.include_default_memory,
            "collections": [
                {"name": c.name, "path": str(c.path), "pattern": c.pattern, "kind": c.kind}
                for c in self.collections
            ],
            "update": {
                "intervalMs": self.update.interval_ms,
                "debounceMs": self.update.debounce_ms,
                "onBoot": self.update.on_boot,
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
                "exportDir": str(self.sessions.export_dir) if self.sessions.export_dir else None,
                "retentionDays": self.sessions.retention_days,
            },
        }


def split_command(raw: str) -> str:
    """The first token of a shell-split command (args are dropped, as upstream does)."""
    try:
        tokens = shlex.split(raw)
    except ValueError:
        tokens = []
    if tokens and tokens[0]:
        return tokens[0]
    parts = raw.split()
    return parts[0] if parts else DEFAULT_COMMAND


def resolve_qmd_settings(
    choice: BackendChoice,
    agent_id: str,
    workspace: Path,
    extra_paths: Sequence[str],
    env: Mapping[str, str],
) -> QmdSettings:
    """The resolved qmd block for one agent; never raises on bad values (defaults instead, like upstream)."""
    block = choice.qmd_block
    command_raw = js_trimmed_string(block.get("command")) or DEFAULT_COMMAND
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
    sessions = as_object(block.get("sessions"))
    export_raw = sessions.get("exportDir")
    export_dir = resolve_collection_path(export_raw, workspace, env) if isinstance(export_raw, str) else None
    retention = sessions.get("retentionDays")
    session_settings = QmdSessionSettings(
        enabled=js_truthy(sessions.get("enabled")),
        export_dir=export_dir,
        retention_days=_positive_int(retention, 0) or None,
    )
    collections, skipped = resolve_collections(
        block, choice.qmd_source, agent_id, workspace, extra_paths, env
    )
    return QmdSettings(
        command=split_command(command_raw),
        command_raw=command_raw,
        search_mode=search_mode,
        include_default_memory=block.get("includeDefaultMemory") is not False,
        collections=collections,
        update=update_settings,
        limits=limit_settings,
        sessions=session_settings,
        skipped_paths=skipped,
    )
