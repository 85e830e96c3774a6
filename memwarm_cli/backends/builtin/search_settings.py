"""An agent's builtin memory search settings as 2026.9.6 resolves them (`resolveMemorySearchConfig`,
src/agents/memory-search.ts), as far as the index's dirtiness and identity depend on them.

Defaults in top-level `memory.search`, the agent's own in `agents.entries.<id>.memory.search` (or, in a
roster not yet rewritten, its `agents.list` entry's `memory.search`), `own ?? defaults` per key. Memory
search is on unless `enabled` says otherwise. The provider is the trimmed `provider`, `auto` or nothing
meaning `openai`; the model is the configured one or the provider's default. Chunking is fixed (400/80).
`rememberAcrossConversations` (on by default when `session.dmScope` is unset or `main` and no binding
sets one) adds `sessions` to the indexed sources.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memwarm_cli.agents import Agent, normalize_agent_id
from memwarm_cli.backends.settings.memory_search import release_search_enabled
from memwarm_cli.config.lookup import as_object, coalesce, lookup, memory_search_block
from memwarm_cli.frozen_records import field, record
from memwarm_cli.jsstring import js_trim, js_truthy
from memwarm_cli.profiles.releases import Profile

DEFAULT_PROVIDER = "openai"
CHUNK_TOKENS = 400
CHUNK_OVERLAP = 80
CHUNKING_VERSION = 5
PROVENANCE_VERSION = 1
FTS_ONLY_MODEL = "fts-only"
DEFAULT_MULTIMODAL_MAX_BYTES = 10_485_760
MULTIMODAL_MODALITIES = ("image", "audio")
# The adapters' default embedding models (2026.9.6's dist: OPENAI_DEFAULT_EMBEDDING_MODEL, ...).
PROVIDER_DEFAULT_MODELS = {
    "openai": "text-embedding-3-small",
    "gemini": "gemini-embedding-001",
    "voyage": "voyage-4-large",
    "mistral": "mistral-embed",
    "ollama": "nomic-embed-text",
    "lmstudio": "text-embedding-nomic-embed-text-v1.5",
}


@record
class IndexFormat:
    """The index format versions a release writes and accepts (its `resolveMemoryIndexIdentityState`)."""

    chunking_version: int
    exact: bool  # any other version is "mismatched" (2026.8.2); else only an older one, or a newer (9.6)
    codes: bool  # the identity carries a `code` (9.6) or only a reason (8.2)


# By profile: P2 as 2026.8.2 wrote it (chunking 3, exact versions, no codes), P3 as 2026.9.6 (chunking 5).
INDEX_FORMATS = {"P2": IndexFormat(3, True, False), "P3": IndexFormat(CHUNKING_VERSION, False, True)}


@record
class ExtraPath:
    path: str  # as configured, trimmed
    pattern: str | None  # a glob under `path` (`{path, pattern}` entries), else None

    def to_json(self) -> Any:
        return self.path if self.pattern is None else {"path": self.path, "pattern": self.pattern}


@record
class Multimodal:
    enabled: bool
    modalities: tuple[str, ...]
    max_file_bytes: int

    @property
    def active(self) -> bool:
        return self.enabled and bool(self.modalities)


@record
class BuiltinSearch:
    """What the release's memory manager of one agent is configured with (search enabled)."""

    agent_id: str
    workspace: str
    db_path: Path  # <stateDir>/agents/<id>/agent/openclaw-agent.sqlite
    sources: tuple[str, ...]  # indexed: memory, and sessions when remembered across conversations
    extra_paths: tuple[ExtraPath, ...]
    provider: str  # the requested provider id (`none`: keyword-only)
    model: str | None  # the expected index model (`fts-only` for `none`); None: not checked
    multimodal: Multimodal
    fts_tokenizer: str
    index_format: IndexFormat = field(default_factory=lambda: INDEX_FORMATS["P3"])

    @property
    def keyword_only(self) -> bool:
        return self.provider == "none"

    @property
    def calls_provider(self) -> bool:
        """A build computes embeddings through the provider (a remote call, maybe billed)."""
        return not self.keyword_only


def _extra_paths(raw_lists: tuple[Any, ...]) -> tuple[ExtraPath, ...]:
    """`normalizeConfiguredMemoryExtraPaths([...defaults, ...own])`: trimmed, empties dropped, one per
    (path, pattern), in first-seen order with the last value kept (a JS Map set twice)."""
    found: dict[tuple[str, str], ExtraPath] = {}
    for raw in raw_lists:
        if not isinstance(raw, list):
            continue
        for item in raw:
            if isinstance(item, str):
                path, pattern = js_trim(item), ""
            elif isinstance(item, Mapping) and isinstance(item.get("path"), str):
                path = js_trim(item["path"])
                raw_pattern = item.get("pattern")
                pattern = js_trim(raw_pattern) if isinstance(raw_pattern, str) else ""
            else:
                continue
            if path:
                found[(path, pattern)] = ExtraPath(path, pattern or None)
    return tuple(found.values())


def _remember_across_conversations(cfg: Mapping[str, Any], own: Mapping[str, Any]) -> bool:
    explicit = coalesce(
        own.get("rememberAcrossConversations"), lookup(cfg, "memory", "search", "rememberAcrossConversations")
    )
    if explicit is not None:
        return js_truthy(explicit)
    scope = lookup(cfg, "session", "dmScope")
    if scope is not None and scope != "main":
        return False
    bindings = cfg.get("bindings")
    if isinstance(bindings, list):
        for binding in bindings:
            session = binding.get("session") if isinstance(binding, Mapping) else None
            if isinstance(session, Mapping) and session.get("dmScope") is not None:
                return False
    return True


def _sources(configured: Any, remember: bool, session_memory: bool) -> tuple[str, ...]:
    """resolveMemorySearchSourcePolicy's indexed `sources`."""

    def normalize(items: Any, sessions_allowed: bool) -> list[str]:
        out: list[str] = []
        for source in items if isinstance(items, list) and items else ["memory"]:
            allowed = source == "memory" or (source == "sessions" and sessions_allowed)
            if allowed and source not in out:
                out.append(source)
        return out or ["memory"]

    sessions_in_config = isinstance(configured, list) and "sessions" in configured
    search = normalize(configured, session_memory or (remember and sessions_in_config))
    return tuple(normalize([*search, "sessions"] if remember else configured, remember or session_memory))


def _multimodal(own: Mapping[str, Any], defaults: Mapping[str, Any]) -> Multimodal:
    def pick(key: str) -> Any:
        return coalesce(lookup(own, "multimodal", key), lookup(defaults, "multimodal", key))

    enabled = pick("enabled") is True
    size = pick("maxFileBytes")
    finite = isinstance(size, int | float) and not isinstance(size, bool) and math.isfinite(size)
    max_bytes = max(1, math.floor(size)) if finite else DEFAULT_MULTIMODAL_MAX_BYTES
    modalities: tuple[str, ...] = ()
    if enabled:
        raw = pick("modalities")
        if raw is None or (isinstance(raw, list) and "all" in raw):
            modalities = MULTIMODAL_MODALITIES
        elif isinstance(raw, list):
            modalities = tuple(m for m in MULTIMODAL_MODALITIES if m in raw)
    return Multimodal(enabled, modalities, max_bytes)


def resolve_builtin_search(
    cfg: Mapping[str, Any], agent: Agent, state_dir: str | os.PathLike[str], *, profile: Profile
) -> BuiltinSearch | None:
    """The agent's settings on a 2026.8.1+ `profile`; None when its memory search is disabled."""
    if not release_search_enabled(cfg, agent.entry, profile=profile):
        return None
    own = as_object(memory_search_block(cfg, profile, agent.entry or {}))
    defaults = as_object(memory_search_block(cfg, profile))

    def pick(*keys: str) -> Any:
        return coalesce(lookup(own, *keys), lookup(defaults, *keys))

    remember = _remember_across_conversations(cfg, own)
    session_memory = js_truthy(pick("experimental", "sessionMemory"))
    sources = _sources(pick("sources"), remember, session_memory)
    raw_provider = pick("provider")
    provider = js_trim(raw_provider) if isinstance(raw_provider, str) else ""
    provider = DEFAULT_PROVIDER if provider in ("", "auto") else provider
    model: str | None = FTS_ONLY_MODEL
    if provider.lower() == "none":
        provider = "none"
    else:
        raw_model = pick("model")
        model = raw_model if isinstance(raw_model, str) else PROVIDER_DEFAULT_MODELS.get(provider.lower(), "")
        model = js_trim(model) or None  # no model known: the release checks none
    tokenizer = pick("store", "fts", "tokenizer")
    return BuiltinSearch(
        agent_id=agent.id,
        workspace=agent.workspace,
        db_path=Path(state_dir, "agents", normalize_agent_id(agent.id), "agent", "openclaw-agent.sqlite"),
        sources=sources,
        extra_paths=_extra_paths((defaults.get("extraPaths"), own.get("extraPaths"))),
        provider=provider,
        model=model,
        multimodal=_multimodal(own, defaults),
        fts_tokenizer=tokenizer if isinstance(tokenizer, str) else "unicode61",
        index_format=INDEX_FORMATS.get(profile.name, INDEX_FORMATS["P3"]),
    )
