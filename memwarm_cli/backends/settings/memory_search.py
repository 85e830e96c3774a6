"""The agent's memory search settings, resolved like OpenClaw's `resolveMemorySearchConfig`
(memory-backends.md §3).

A pure function of the parsed config, the agent's id and list entry, the state dir and an environment
mapping. JS semantics are kept where they matter: `a ?? b` lets only null/undefined (None/missing) fall
through, numbers are finite non-boolean int/float values, strings are trimmed with JS whitespace rules.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

from memwarm_cli.agents import normalize_agent_id
from memwarm_cli.backends.settings.backend_choice import agent_label
from memwarm_cli.config.lookup import as_object, coalesce, lookup, memory_search_block
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_is_finite_number, js_trimmed_string, js_truthy

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memwarm_cli.profiles.releases import Profile


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))


@record
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


def release_search_enabled(
    cfg: Mapping[str, Any], entry: Mapping[str, Any] | None, *, profile: Profile
) -> bool:
    """The same rule read where `profile`'s release keeps the blocks (2026.8.1+: `memory.search` and
    `agents.entries.<id>.memory.search`): the one answer of both the builtin index and `config path`."""
    own = as_object(memory_search_block(cfg, profile, entry or {}))
    defaults = as_object(memory_search_block(cfg, profile))
    return js_truthy(coalesce(own.get("enabled"), defaults.get("enabled"), True))


def merged_extra_paths(cfg: Mapping[str, Any], entry: Mapping[str, Any] | None) -> tuple[str, ...]:
    """`[...defaults.extraPaths, ...overrides.extraPaths]`, trimmed, empties dropped, first kept."""
    return tuple(path for path, _ in extra_path_sources(cfg, entry))


def _search_prefixes(cfg: Mapping[str, Any], entry: Mapping[str, Any] | None) -> tuple[str, str]:
    return "agents.defaults.memorySearch", f"{agent_label(cfg, entry)}.memorySearch"


def extra_path_sources(cfg: Mapping[str, Any], entry: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """The merged extraPaths (as `merged_extra_paths`), each with the config key it first came from."""
    defaults, overrides = _memory_search_blocks(cfg, entry)
    found: dict[str, str] = {}
    for block, prefix in zip((defaults, overrides), _search_prefixes(cfg, entry), strict=True):
        raw = block.get("extraPaths")
        if not isinstance(raw, list):
            continue
        for i, item in enumerate(raw):
            text = js_trimmed_string(item)
            if text is not None and text not in found:
                found[text] = f"{prefix}.extraPaths[{i}]"
    return list(found.items())


def extra_collection_sources(
    cfg: Mapping[str, Any], entry: Mapping[str, Any] | None
) -> list[tuple[Mapping[str, Any], str]]:
    """`[...defaults.qmd.extraCollections, ...overrides.qmd.extraCollections]`, keeping the objects
    whose `path` is a string (6.35 drops the others before counting), each with its config key."""
    defaults, overrides = _memory_search_blocks(cfg, entry)
    found: list[tuple[Mapping[str, Any], str]] = []
    for block, prefix in zip((defaults, overrides), _search_prefixes(cfg, entry), strict=True):
        raw = lookup(block, "qmd", "extraCollections")
        if not isinstance(raw, list):
            continue
        for i, item in enumerate(raw):
            if isinstance(item, Mapping) and isinstance(item.get("path"), str):
                found.append((item, f"{prefix}.qmd.extraCollections[{i}]"))
    return found


def resolve_memory_search(
    cfg: Mapping[str, Any],
    agent_id: str,
    entry: Mapping[str, Any] | None,
    state_dir: Path,
    env: Mapping[str, str],
) -> MemorySearchSettings | None:
    """`resolveMemorySearchConfig(cfg, agentId)`: None iff memory search is disabled for the agent.

    `entry` is the agent's `agents.list[]` object (None when the agent has no entry). The builtin index is
    `<stateDir>/agents/<id>/agent/openclaw-agent.sqlite` (`resolveOpenClawAgentSqlitePath`).
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

    # 2026.6.35 has no store.path (it refuses the key): the builtin index is the agent's database.
    store_path = state_dir / "agents" / normalize_agent_id(agent_id) / "agent" / "openclaw-agent.sqlite"

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
