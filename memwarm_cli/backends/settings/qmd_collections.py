"""The qmd collections memwarm manages for an agent: names, paths and patterns (memory-backends.md §4).

Default collections (`memory-root-<id>`, `memory-dir-<id>`), then `qmd.paths[]`, then the agent's
`memorySearch.extraPaths`, named and deduplicated as upstream does; the session export's collection
(`sessions-<id>`) comes last (qmd_settings.py adds it). No file-system access.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from memwarm_cli.config import resolve_user_path
from memwarm_cli.config.lookup import as_object
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_trim, js_trimmed_string

CollectionKind = Literal["default", "custom", "extra", "sessions"]

DEFAULT_PATTERN = "**/*.md"
SESSIONS_PATTERN = "**/*.md"


@record
class CollectionSpec:
    """One qmd collection memwarm manages for an agent."""

    name: str  # e.g. memory-root-main, memory-dir-main, notes-main, custom-1-main
    path: Path  # absolute, normalized
    pattern: str  # qmd's --mask glob
    kind: CollectionKind  # default (memory-root/memory-dir), custom (qmd paths), extra, sessions (exports)
    source: str  # config key it came from, e.g. "memory.qmd.paths[0]" or "default memory (MEMORY.md)"


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


def sessions_collection_name(agent_id: str, taken: set[str]) -> str:
    """`sessions-<agent segment>`, or `-2`, `-3`, ... when an earlier managed collection has that name
    (session-export.md §2: the segment is the id lower-cased, runs outside `[a-z0-9-]` as `-`, trimmed,
    `agent` when empty). Records the result in `taken`, like `ensure_unique_name`."""
    segment = _NAME_RUN.sub("-", agent_id.lower()).strip("-") or "agent"
    return ensure_unique_name(f"sessions-{segment}", taken)


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
