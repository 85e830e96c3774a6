"""The qmd collections of an agent: names, paths and patterns exactly as OpenClaw 2026.6.35 makes them
(`resolveDefaultCollections` + `resolveCustomPaths`, research backend-635.md §1-§2).

1. Defaults, unless `memory.qmd.includeDefaultMemory` is false: `memory-root-<a>` (the workspace,
   `MEMORY.md`) and `memory-dir-<a>` (`<workspace>/memory`, `**/*.md`). There is no `memory-alt`.
2. One combined list: `memory.qmd.paths[]`, then the agent's merged `memorySearch.extraPaths` (defaults
   first; trimmed, empty and repeated ones dropped), then its merged `memorySearch.qmd.extraCollections`
   (defaults first; entries whose `path` is no string dropped). An entry's index `n` is its position in
   this list, counting the entries that are skipped later.
3. Each entry's trimmed path resolves (`~` and absolute through resolveUserPath, relative lexically
   against the workspace). If it is a file (stat, following links), the collection is its directory and
   the pattern its escaped basename (a `pattern` key is ignored); otherwise (a directory, or missing)
   the path as resolved, with the trimmed `pattern` or `**/*.md`.
4. Entries with the same path and pattern as an earlier custom entry are skipped (the defaults do not
   count: a custom entry equal to a default gives two collections qmd cannot both hold, see
   `duplicates_of_defaults`).
5. Names: an explicit `name` whose collection lies outside the workspace (both through realpath) is
   used as it is (sanitized); otherwise `<name or custom-n>-<a>`. `-2`, `-3`, ... make it unique
   against every earlier name, the defaults' included.

`<a>` is the sanitized agent id. The session export's collection (`sessions-<id>`) comes last
(qmd_settings.py adds it). The only file-system access is the stat of step 3 and the realpath of step 5,
for custom entries only.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

from memwarm_cli.config import resolve_user_path
from memwarm_cli.config.lookup import as_object
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_trim, js_trimmed_string

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    # "default" is 6.35's kind "memory" (memwarm's name for it); extraPaths and extraCollections are
    # "custom", as in the release.
    CollectionKind = Literal["default", "custom", "sessions"]


DEFAULT_PATTERN = "**/*.md"
SESSIONS_PATTERN = "**/*.md"


@record
class CollectionSpec:
    """One qmd collection memwarm manages for an agent."""

    name: str  # e.g. memory-root-main, memory-dir-main, notes-main, custom-1-main, shared
    path: Path  # absolute, normalized (lexically: 6.35 compares it with qmd's, without realpath)
    pattern: str  # qmd's --mask glob
    kind: CollectionKind  # default (memory-root/memory-dir), custom, sessions (exports)
    source: str  # config key it came from, e.g. "memory.qmd.paths[0]" or "default memory (MEMORY.md)"


# A name already made of these needs no substitution (most agent ids), and a file name is escaped
# character by character: status and init-backends compile no expression here for them (compiling the
# two this module had cost ~0.1 ms of their start; tests/backends/settings hold the results alike).
_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789-")
_NAME_RUN = r"[^a-z0-9-]+"  # a source: re's cache compiles it when a name first needs it
_QMD_GLOB_CHARS = "\\*?[]{}()!+@"


def _name_runs_as_dashes(lowered: str) -> str:
    """Runs of `[^a-z0-9-]` as one `-` each."""
    if all(char in _NAME_CHARS for char in lowered):
        return lowered
    return re.sub(_NAME_RUN, "-", lowered)


def sanitize_collection_name(value: str) -> str:
    """`sanitizeName`: lowercase, runs of `[^a-z0-9-]` become `-`, trim `-`; empty gives "collection"."""
    name = _name_runs_as_dashes(value.lower()).strip("-")
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
    segment = _name_runs_as_dashes(agent_id.lower()).strip("-") or "agent"
    return ensure_unique_name(f"sessions-{segment}", taken)


def escape_exact_file_pattern(file_name: str) -> str:
    """`escapeQmdExactFilePattern`: a backslash before each of ``\\ * ? [ ] { } ( ) ! + @``, so qmd's glob
    matches exactly this file name."""
    return "".join("\\" + char if char in _QMD_GLOB_CHARS else char for char in file_name)


def resolve_collection_path(raw: str, workspace: Path, env: Mapping[str, str]) -> Path | None:
    """`~` or absolute: resolveUserPath; otherwise relative to the workspace. None for an empty value."""
    text = js_trim(raw)
    if not text:
        return None
    if text.startswith("~") or os.path.isabs(text):
        resolved = resolve_user_path(text, env)
        return Path(resolved) if resolved is not None else None
    return Path(os.path.normpath(os.path.join(str(workspace), text)))


def containment_path(raw: str) -> str:
    """`canonicalizePathForContainment`: the realpath of the longest existing prefix of the absolute
    path, with the rest appended."""
    resolved = os.path.abspath(raw)
    current = resolved
    suffix: list[str] = []
    while True:
        try:
            canonical = os.path.realpath(current, strict=True)
        except (OSError, ValueError):
            parent = os.path.dirname(current)
            if parent == current:
                return os.path.normpath(resolved)
            suffix.insert(0, os.path.basename(current))
            current = parent
            continue
        return os.path.normpath(os.path.join(canonical, *suffix))


def is_inside(path: str, root: str) -> bool:
    """`isPathInsideRoot(path, root)`: `path` is `root` or under it, both through realpath."""
    relative = os.path.relpath(containment_path(path), containment_path(root))
    return relative == "." or (relative.split(os.sep)[0] != ".." and not os.path.isabs(relative))


def _is_file(path: Path) -> bool:
    """`fs.statSync(path).isFile()`: a regular file, links followed; False on any error."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


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
    agent_id: str,
    workspace: Path,
    extra_paths: Sequence[tuple[str, str]],
    extra_collections: Sequence[tuple[Mapping[str, Any], str]],
    env: Mapping[str, str],
) -> tuple[tuple[CollectionSpec, ...], tuple[str, ...]]:
    """Steps 1-5 above. `extra_paths` are the merged extraPaths and `extra_collections` the merged
    extraCollections, each with the config key it came from (memory_search.py merges them). Returns
    (collections, why each skipped entry gave none)."""
    taken: set[str] = set()
    collections: list[CollectionSpec] = []
    skipped: list[str] = []
    if qmd_block.get("includeDefaultMemory") is not False:
        collections.extend(default_collections(workspace, agent_id, taken))

    entries: list[tuple[Any, str]] = []
    raw_paths = qmd_block.get("paths")
    if isinstance(raw_paths, list):
        entries.extend((item, f"memory.qmd.paths[{i}]") for i, item in enumerate(raw_paths))
    entries.extend(({"path": path}, source) for path, source in extra_paths)
    entries.extend(extra_collections)

    workspace_text = str(workspace)
    seen: set[tuple[str, str]] = set()
    for index, (item, source) in enumerate(entries):
        spec = as_object(item)  # upstream reads `entry.path`: a string or any non-object has none
        raw_path = spec.get("path")
        resolved = resolve_collection_path(raw_path, workspace, env) if isinstance(raw_path, str) else None
        if resolved is None:
            hint = "" if isinstance(item, Mapping) else " (an entry is an object: {path, name?, pattern?})"
            skipped.append(f"{source}: path required{hint}")
            continue
        collection_path = resolved
        pattern = js_trimmed_string(spec.get("pattern")) or DEFAULT_PATTERN
        if _is_file(resolved):
            collection_path = resolved.parent
            pattern = escape_exact_file_pattern(resolved.name)
        key = (str(collection_path), pattern)
        if key in seen:
            skipped.append(
                f"{source}: {collection_path} ({pattern}) is already indexed by another collection"
            )
            continue
        seen.add(key)
        explicit = js_trimmed_string(spec.get("name"))
        if explicit and not is_inside(str(collection_path), workspace_text):
            base = explicit
        else:
            base = scope_collection_base(explicit or f"custom-{index + 1}", agent_id)
        name = ensure_unique_name(base, taken)
        collections.append(CollectionSpec(name, collection_path, pattern, "custom", source))
    return tuple(collections), tuple(skipped)


def duplicates_of_defaults(
    collections: Sequence[CollectionSpec],
) -> list[tuple[CollectionSpec, CollectionSpec]]:
    """(custom, default) pairs with the same path and pattern. qmd holds one collection per path and
    pattern, so OpenClaw 2026.6.35 removes one to add the other at every open, and its memory search
    fails on the one that is gone; memwarm adds the default and reports the custom one."""
    defaults = {(str(c.path), c.pattern): c for c in collections if c.kind == "default"}
    return [
        (c, defaults[(str(c.path), c.pattern)])
        for c in collections
        if c.kind == "custom" and (str(c.path), c.pattern) in defaults
    ]
