"""Memory search and qmd backend settings, resolved like OpenClaw does (memory-backends.md §3, §4, §5.1).

Everything here is a pure function of the parsed config (a plain dict), the agent's id, list entry and
workspace, the state dir and an environment mapping: no file-system access, no processes. The results
are frozen dataclasses that `config show` / `config check` display and `init-backends` acts on.

Entry points:
- `resolve_memory_search(cfg, agent_id, entry, state_dir, env)`: §3, or None when memory search is off.
- `resolve_backend_choice(cfg, entry)`: which backend, and which config key decided it.
- `resolve_qmd_settings(cfg, agent_id, entry, workspace, extra_paths, env)`: §4 incl. collections.
- `agent_qmd_paths(state_dir, agent_id)`: the per-agent qmd directories and index path (§5.1).
- `resolve_agent_backend(...)`: all of the above for one agent, in one dataclass.
- `qmd_child_env(base_env, paths)`: the environment every qmd command of that agent runs with.

JS semantics are kept where they matter: `a ?? b` lets only null/undefined (None/missing) fall through,
numbers are finite non-boolean int/float values, strings are trimmed with JS whitespace rules.
"""

from __future__ import annotations

import math
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from memwarm_cli.config import resolve_user_path
from memwarm_cli.config.lookup import as_object, coalesce, lookup
from memwarm_cli.durations import parse_duration_ms
from memwarm_cli.jsstring import js_is_finite_number, js_trim, js_trimmed_string, js_truthy

SearchMode = Literal["search", "vsearch", "query"]
Backend = Literal["builtin", "qmd"]
CollectionKind = Literal["default", "custom", "extra"]

SEARCH_MODES: tuple[SearchMode, ...] = ("search", "vsearch", "query")
DEFAULT_COMMAND = "qmd"
DEFAULT_SEARCH_MODE: SearchMode = "search"
DEFAULT_PATTERN = "**/*.md"

DEFAULT_UPDATE_INTERVAL_MS = 5 * 60_000
DEFAULT_DEBOUNCE_MS = 15_000
DEFAULT_EMBED_INTERVAL_MS = 60 * 60_000
DEFAULT_COMMAND_TIMEOUT_MS = 30_000
DEFAULT_UPDATE_TIMEOUT_MS = 120_000
DEFAULT_EMBED_TIMEOUT_MS = 120_000
DEFAULT_LIMITS = {"maxResults": 6, "maxSnippetChars": 700, "maxInjectedChars": 4000, "timeoutMs": 4000}

UPSTREAM_SPELLING_WARNING = (
    "{path} is accepted here, but upstream OpenClaw's strict config schema rejects it; "
    "upstream reads {upstream}"
)


# --------------------------------------------------------------------------------------------------------
# Small JS-like helpers


def _positive_int(value: Any, default: int) -> int:
    """`finite and > 0 gives floor, else default`."""
    return math.floor(value) if js_is_finite_number(value) and value > 0 else default


def _non_negative_int(value: Any, default: int) -> int:
    """`finite and >= 0 gives floor, else default`."""
    return math.floor(value) if js_is_finite_number(value) and value >= 0 else default


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


def _duration_or_default(raw: Any, default_ms: int) -> int:
    if raw is None:
        return default_ms
    try:
        return parse_duration_ms(str(raw), "m")
    except ValueError:
        return default_ms


# --------------------------------------------------------------------------------------------------------
# §3 memory search config


@dataclass(frozen=True)
class MemorySearchSettings:
    """The agent's resolved `memorySearch` (defaults merged with the agents.list entry's overrides)."""

    enabled: bool
    sources: tuple[str, ...]
    extra_paths: tuple[str, ...]  # raw trimmed strings; resolved per backend
    provider: str
    fallback: str
    model: str
    store_path: Path
    chunk_tokens: int
    chunk_overlap: int
    max_results: int
    min_score: float
    session_memory: bool


_PROVIDER_DEFAULT_MODELS = {
    "openai": "text-embedding-3-small",
    "gemini": "gemini-embedding-001",
    "voyage": "voyage-4-large",
    "mistral": "mistral-embed",
}


def _memory_search_blocks(cfg: Mapping[str, Any], entry: Mapping[str, Any] | None) -> tuple[Any, Any]:
    defaults = lookup(cfg, "agents", "defaults", "memorySearch")
    overrides = lookup(entry, "memorySearch") if entry is not None else None
    return as_object(defaults), as_object(overrides)


def memory_search_enabled(cfg: Mapping[str, Any], entry: Mapping[str, Any] | None) -> bool:
    """`enabled = overrides.enabled ?? defaults.enabled ?? true` (JS truthiness of the result)."""
    defaults, overrides = _memory_search_blocks(cfg, entry)
    return js_truthy(coalesce(overrides.get("enabled"), defaults.get("enabled"), True))


def merged_extra_paths(cfg: Mapping[str, Any], entry: Mapping[str, Any] | None) -> tuple[str, ...]:
    """`[...defaults.extraPaths, ...overrides.extraPaths]`, trimmed, empties dropped, first kept."""
    defaults, overrides = _memory_search_blocks(cfg, entry)
    seen: list[str] = []
    for block in (defaults, overrides):
        raw = block.get("extraPaths")
        if not isinstance(raw, list):
            continue
        for item in raw:
            text = js_trimmed_string(item)
            if text is not None and text not in seen:
                seen.append(text)
    return tuple(seen)


def resolve_memory_search(
    cfg: Mapping[str, Any],
    agent_id: str,
    entry: Mapping[str, Any] | None,
    state_dir: Path,
    env: Mapping[str, str],
) -> MemorySearchSettings | None:
    """`resolveMemorySearchConfig(cfg, agentId)`: None iff memory search is disabled for the agent.

    `entry` is the agent's `agents.list[]` object (None when the agent has no entry); `env` is used for
    `~` expansion of `store.path`.
    """
    if not memory_search_enabled(cfg, entry):
        return None
    defaults, overrides = _memory_search_blocks(cfg, entry)

    def pick(*keys: str) -> Any:
        return coalesce(lookup(overrides, *keys), lookup(defaults, *keys))

    session_memory = js_truthy(pick("experimental", "sessionMemory"))
    raw_sources = pick("sources")
    sources: list[str] = []
    if isinstance(raw_sources, list):
        for source in raw_sources:
            keep = source == "memory" or (source == "sessions" and session_memory)
            if keep and source not in sources:
                sources.append(source)
    if not sources:
        sources = ["memory"]

    provider_raw = pick("provider")
    provider = provider_raw if isinstance(provider_raw, str) and provider_raw else "auto"
    fallback_raw = pick("fallback")
    fallback = fallback_raw if isinstance(fallback_raw, str) and fallback_raw else "none"
    model_raw = pick("model")
    model = model_raw if isinstance(model_raw, str) and model_raw else ""
    model = model or _PROVIDER_DEFAULT_MODELS.get(provider, "")

    store_raw = pick("store", "path")
    store_path: Path | None = None
    if isinstance(store_raw, str):
        store_path = resolve_user_path(store_raw.replace("{agentId}", agent_id), env)
    if store_path is None:
        store_path = state_dir / "memory" / f"{agent_id}.sqlite"

    tokens_raw = pick("chunking", "tokens")
    tokens = max(1, math.floor(tokens_raw)) if js_is_finite_number(tokens_raw) else 400
    overlap_raw = pick("chunking", "overlap")
    overlap = math.floor(overlap_raw) if js_is_finite_number(overlap_raw) else 80
    overlap = int(_clamp(overlap, 0, max(0, tokens - 1)))

    max_results_raw = pick("query", "maxResults")
    max_results = math.floor(max_results_raw) if js_is_finite_number(max_results_raw) else 6
    min_score_raw = pick("query", "minScore")
    min_score = _clamp(float(min_score_raw), 0.0, 1.0) if js_is_finite_number(min_score_raw) else 0.35

    return MemorySearchSettings(
        enabled=True,
        sources=tuple(sources),
        extra_paths=merged_extra_paths(cfg, entry),
        provider=provider,
        fallback=fallback,
        model=model,
        store_path=store_path,
        chunk_tokens=tokens,
        chunk_overlap=overlap,
        max_results=max_results,
        min_score=min_score,
        session_memory=session_memory,
    )


# --------------------------------------------------------------------------------------------------------
# Backend choice: memory.backend / memory.qmd, or the memorySearch.backend / memorySearch.qmd spelling


@dataclass(frozen=True)
class BackendChoice:
    """Which backend an agent uses and which config keys decided it.

    `backend_source` / `qmd_source` are dotted config paths such as `memory.backend`,
    `agents.defaults.memorySearch.backend` or `agents.list[1].memorySearch.qmd` (a list entry is named
    by its index in `agents.list`), or "default" when nothing was configured. Precedence: the agent's
    `memorySearch.*`, then `agents.defaults.memorySearch.*`, then `memory.*` (each found independently
    for `backend` and for the `qmd` block).
    """

    backend: Backend
    configured: Any  # the raw configured value (None when defaulted), e.g. "qmd", "builtin", "lancedb"
    backend_source: str
    qmd_block: Mapping[str, Any]  # the qmd settings object that applies ({} when none is configured)
    qmd_source: str
    citations: str
    warnings: tuple[str, ...]  # e.g. the upstream-schema warning for the memorySearch.* spelling

    @property
    def uses_upstream_spelling(self) -> bool:
        """True when both settings come from `memory.*` (or defaults), as upstream OpenClaw reads them."""
        return not any("memorySearch" in s for s in (self.backend_source, self.qmd_source))


def _agent_label(cfg: Mapping[str, Any], entry: Mapping[str, Any] | None) -> str:
    """`agents.list[<index>]`, the position of `entry` (that very object) in `cfg`'s `agents.list`.

    The index, not the id: an id may contain `]` or `.`, which would break the dotted path.
    """
    raw_list = lookup(cfg, "agents", "list")
    if entry is not None and isinstance(raw_list, list):
        for index, item in enumerate(raw_list):
            if item is entry:
                return f"agents.list[{index}]"
    return "agents.list[]"


def resolve_backend_choice(cfg: Mapping[str, Any], entry: Mapping[str, Any] | None) -> BackendChoice:
    """The backend for one agent (`entry` is its agents.list object, or None) and where it came from."""
    agent_ms = as_object(lookup(entry, "memorySearch")) if entry is not None else {}
    defaults_ms = as_object(lookup(cfg, "agents", "defaults", "memorySearch"))
    memory = as_object(lookup(cfg, "memory"))
    label = _agent_label(cfg, entry)

    candidates = (
        (agent_ms, f"{label}.memorySearch"),
        (defaults_ms, "agents.defaults.memorySearch"),
        (memory, "memory"),
    )
    configured: Any = None
    backend_source = "default"
    for block, prefix in candidates:
        if block.get("backend") is not None:
            configured = block.get("backend")
            backend_source = f"{prefix}.backend"
            break
    qmd_block: Mapping[str, Any] = {}
    qmd_source = "default"
    for block, prefix in candidates:
        if block.get("qmd") is not None:
            qmd_block = as_object(block.get("qmd"))
            qmd_source = f"{prefix}.qmd"
            break

    warnings: list[str] = []
    for source, upstream in ((backend_source, "memory.backend"), (qmd_source, "memory.qmd")):
        if "memorySearch" in source:
            warnings.append(UPSTREAM_SPELLING_WARNING.format(path=source, upstream=upstream))

    citations_raw = memory.get("citations")
    citations = citations_raw if citations_raw in ("auto", "on", "off") else "auto"
    backend: Backend = "qmd" if configured == "qmd" else "builtin"
    return BackendChoice(
        backend=backend,
        configured=configured,
        backend_source=backend_source,
        qmd_block=qmd_block,
        qmd_source=qmd_source,
        citations=citations,
        warnings=tuple(warnings),
    )


# --------------------------------------------------------------------------------------------------------
# §4 qmd settings and collections


@dataclass(frozen=True)
class CollectionSpec:
    """One qmd collection memwarm manages for an agent."""

    name: str  # e.g. memory-root-main, memory-dir-main, notes-main, custom-1-main
    path: Path  # absolute, normalized
    pattern: str  # qmd's --mask glob
    kind: CollectionKind  # default (memory-root/memory-dir), custom (qmd paths), extra (extraPaths)
    source: str  # config key it came from, e.g. "memory.qmd.paths[0]" or "default memory (MEMORY.md)"


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


_NAME_RUN = re.compile(r"[^a-z0-9-]+")


def sanitize_collection_name(value: str) -> str:
    """`sanitizeName`: lowercase, runs of `[^a-z0-9-]` become `-`, trim `-`; empty gives "collection"."""
    name = _NAME_RUN.sub("-", value.lower()).strip("-")
    return name or "collection"


def scope_collection_base(base: str, agent_id: str) -> str:
    """`scopeCollectionBase`: `<base>-<sanitized agent id>`."""
    return f"{base}-{sanitize_collection_name(agent_id)}"


def ensure_unique_name(base: str, taken: set[str]) -> str:
    """`ensureUniqueName`: sanitize, then `-2`, `-3`, ... until free; records the result in `taken`."""
    name = sanitize_collection_name(base)
    candidate = name
    n = 2
    while candidate in taken:
        candidate = f"{name}-{n}"
        n += 1
    taken.add(candidate)
    return candidate


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


def resolve_collection_path(raw: str, workspace: Path, env: Mapping[str, str]) -> Path | None:
    """`~` or absolute: resolveUserPath; otherwise relative to the workspace. None for an empty value."""
    text = js_trim(raw)
    if not text:
        return None
    if text.startswith("~") or os.path.isabs(text):
        return resolve_user_path(text, env)
    return Path(os.path.normpath(os.path.join(str(workspace), text)))


def default_collections(workspace: Path, agent_id: str, taken: set[str]) -> list[CollectionSpec]:
    """`memory-root-<id>` (MEMORY.md in the workspace) and `memory-dir-<id>` (memory/**/*.md).

    The old `memory-alt` collection (memory.md) is not created: later upstream builds dropped it because
    it collides with MEMORY.md on case-insensitive file systems and with qmd's path+pattern uniqueness.
    """
    return [
        CollectionSpec(
            name=ensure_unique_name(scope_collection_base("memory-root", agent_id), taken),
            path=workspace,
            pattern="MEMORY.md",
            kind="default",
            source="default memory (MEMORY.md)",
        ),
        CollectionSpec(
            name=ensure_unique_name(scope_collection_base("memory-dir", agent_id), taken),
            path=Path(os.path.normpath(os.path.join(str(workspace), "memory"))),
            pattern=DEFAULT_PATTERN,
            kind="default",
            source="default memory (memory/**/*.md)",
        ),
    ]


def resolve_collections(
    qmd_block: Mapping[str, Any],
    qmd_source: str,
    agent_id: str,
    workspace: Path,
    extra_paths: Sequence[str],
    env: Mapping[str, str],
) -> tuple[tuple[CollectionSpec, ...], tuple[str, ...]]:
    """Default collections, then `qmd.paths[]`, then the agent's merged `memorySearch.extraPaths`.

    Custom names are `ensureUniqueName(scopeCollectionBase(name || "custom-<i+1>", agentId))`, with `i`
    the index in the combined list. An entry whose path and pattern are already managed is skipped (qmd
    refuses a second collection on the same path and pattern). Returns (collections, skip reasons).
    """
    taken: set[str] = set()
    collections: list[CollectionSpec] = []
    skipped: list[str] = []
    if qmd_block.get("includeDefaultMemory") is not False:
        collections.extend(default_collections(workspace, agent_id, taken))

    prefix = "memory.qmd" if qmd_source == "default" else qmd_source
    entries: list[tuple[Any, str, CollectionKind]] = []
    raw_paths = qmd_block.get("paths")
    if isinstance(raw_paths, list):
        entries.extend((item, f"{prefix}.paths[{i}]", "custom") for i, item in enumerate(raw_paths))
    entries.extend(({"path": p}, f"memorySearch.extraPaths[{i}]", "extra") for i, p in enumerate(extra_paths))

    seen = {(str(c.path), c.pattern) for c in collections}
    for index, (item, source, kind) in enumerate(entries):
        spec = as_object(item)  # upstream reads `entry.path`: a string or any non-object has none
        raw_path = spec.get("path")
        resolved = resolve_collection_path(raw_path, workspace, env) if isinstance(raw_path, str) else None
        if resolved is None:
            hint = "" if isinstance(item, Mapping) else " (an entry is an object: {path, name?, pattern?})"
            skipped.append(f"{source}: path required{hint}")
            continue
        pattern = js_trimmed_string(spec.get("pattern")) or DEFAULT_PATTERN
        key = (str(resolved), pattern)
        if key in seen:
            skipped.append(f"{source}: {resolved} ({pattern}) is already indexed by another collection")
            continue
        seen.add(key)
        base = js_trimmed_string(spec.get("name")) or f"custom-{index + 1}"
        name = ensure_unique_name(scope_collection_base(base, agent_id), taken)
        spec_out = CollectionSpec(name=name, path=resolved, pattern=pattern, kind=kind, source=source)
        collections.append(spec_out)
    return tuple(collections), tuple(skipped)


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


# --------------------------------------------------------------------------------------------------------
# §5.1 per-agent directories and environment


@dataclass(frozen=True)
class AgentQmdPaths:
    """Where the gateway keeps an agent's qmd state: `<stateDir>/agents/<id>/qmd/...`."""

    qmd_dir: Path
    xdg_config: Path  # XDG_CONFIG_HOME
    xdg_cache: Path  # XDG_CACHE_HOME
    qmd_config_dir: Path  # QMD_CONFIG_DIR = <xdg-config>/qmd (holds index.yml)
    index_path: Path  # <xdg-cache>/qmd/index.sqlite
    models_dir: Path  # <xdg-cache>/qmd/models (symlinked to the shared models dir)
    sessions_dir: Path  # default session export dir

    @property
    def index_yml(self) -> Path:
        return self.qmd_config_dir / "index.yml"


def agent_qmd_paths(state_dir: Path, agent_id: str) -> AgentQmdPaths:
    qmd_dir = state_dir / "agents" / agent_id / "qmd"
    xdg_config = qmd_dir / "xdg-config"
    xdg_cache = qmd_dir / "xdg-cache"
    return AgentQmdPaths(
        qmd_dir=qmd_dir,
        xdg_config=xdg_config,
        xdg_cache=xdg_cache,
        qmd_config_dir=xdg_config / "qmd",
        index_path=xdg_cache / "qmd" / "index.sqlite",
        models_dir=xdg_cache / "qmd" / "models",
        sessions_dir=qmd_dir / "sessions",
    )


def shared_models_dir(env: Mapping[str, str]) -> Path:
    """`<defaultCache>/qmd/models`: the parent's XDG_CACHE_HOME, else `~/.cache` (the OS home)."""
    cache = env.get("XDG_CACHE_HOME") or ""
    if not cache:
        home = env.get("HOME") or os.path.expanduser("~")
        cache = os.path.join(home, ".cache")
    return Path(cache) / "qmd" / "models"


def qmd_child_env(base_env: Mapping[str, str], paths: AgentQmdPaths) -> dict[str, str]:
    """`process.env` plus XDG_CONFIG_HOME, XDG_CACHE_HOME, QMD_CONFIG_DIR (<xdg-config>/qmd), NO_COLOR=1."""
    env = dict(base_env)
    env.update(qmd_env_overrides(paths))
    return env


def qmd_env_overrides(paths: AgentQmdPaths) -> dict[str, str]:
    """Only the variables memwarm sets for qmd (what `--dry-run` shows)."""
    return {
        "XDG_CONFIG_HOME": str(paths.xdg_config),
        "XDG_CACHE_HOME": str(paths.xdg_cache),
        "QMD_CONFIG_DIR": str(paths.qmd_config_dir),
        "NO_COLOR": "1",
    }


# --------------------------------------------------------------------------------------------------------
# Everything for one agent


@dataclass(frozen=True)
class AgentBackendSettings:
    """The memory backend picture of one agent, as `init-backends` and `config show` need it.

    `memory_search` is None when memory search is disabled; `qmd` is None unless the backend is qmd and
    memory search is enabled. `paths` is always filled in (where the qmd index would live).
    """

    agent_id: str
    workspace: Path
    memory_search: MemorySearchSettings | None
    choice: BackendChoice
    qmd: QmdSettings | None
    paths: AgentQmdPaths

    @property
    def skip_reason(self) -> str | None:
        """Why init-backends leaves this agent alone, or None when it is a qmd agent to prepare."""
        if self.memory_search is None:
            return "memory search disabled"
        if self.qmd is None:
            return "builtin"
        return None


def resolve_agent_backend(
    cfg: Mapping[str, Any],
    agent_id: str,
    entry: Mapping[str, Any] | None,
    workspace: Path,
    state_dir: Path,
    env: Mapping[str, str],
) -> AgentBackendSettings:
    """§3 + §4 + §5.1 for one agent (`entry` is its agents.list object, None when it has none)."""
    memory_search = resolve_memory_search(cfg, agent_id, entry, state_dir, env)
    choice = resolve_backend_choice(cfg, entry)
    qmd: QmdSettings | None = None
    if memory_search is not None and choice.backend == "qmd":
        qmd = resolve_qmd_settings(choice, agent_id, workspace, memory_search.extra_paths, env)
    return AgentBackendSettings(
        agent_id=agent_id,
        workspace=workspace,
        memory_search=memory_search,
        choice=choice,
        qmd=qmd,
        paths=agent_qmd_paths(state_dir, agent_id),
    )
