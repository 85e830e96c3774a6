"""Which MEMORY.md/USER.md may enter a session's context automatically (`profile.memory_eligibility`).

An ineligible file is dropped completely: no block, no marker, no stats entry, no guidance line.

- "artifact-path" (2026.7.33-7.35, `filterMemoryBootstrapFiles`): a present file whose path is a memory
  artifact (MEMORY.md, memory.md, USER.md, or a `.md` under memory/ outside memory/dreaming/ and
  memory/.dreams/) is kept only when its real path, relative to the workspace's real path, is one too.
  So MEMORY.md linked to notes/long-term.md is dropped; linked to USER.md or memory/x.md it is kept.
- "memory-plugin" (2026.8.1+, `resolveIneligibleAutomaticMemoryFiles`): only with a config object. The
  memory plugin the config selects classifies each present MEMORY.md/USER.md (an `[UNREADABLE]` entry
  too): memory-core keeps a file whose real path lies strictly inside the workspace's real path and is
  a curated root file (MEMORY.md, memory.md, USER.md), a users/<id>/USER.md or a `.md` under memory/,
  and drops the rest, the dreaming files among them. No memory plugin (disabled, slot "none", denied):
  nothing is dropped; another plugin memwarm cannot ask: everything is dropped, the release's answer
  for a plugin without provenance classification.

Both releases also consult provenance records in OpenClaw's plugin state store (a file a session
recorded as untrusted). memwarm does not read that store: a workspace without records is what it
describes, as a fresh state dir (and the golden cases) have.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from memwarm_cli.bootstrap.candidates import MEMORY_MD, USER_MD, BootstrapFile
from memwarm_cli.config.lookup import as_object, lookup
from memwarm_cli.jsstring import js_trim
from memwarm_cli.textsafe import clip

# typing.TYPE_CHECKING without importing typing: ~2.5 ms of `context`'s start (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

CURATED_ROOT = ("MEMORY.md", "memory.md", "USER.md")
MEMORY_CORE = "memory-core"
# Spelled out: `import string` (string.ascii_letters) costs ~0.4 ms of `context`'s start for two constants.
_ID_FIRST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_ID_REST = _ID_FIRST | {"_", "-"}


def _personal_user(resolved: str) -> bool:
    """`users/<profile-id>/USER.md`, the id `[a-zA-Z0-9][a-zA-Z0-9_-]{0,127}`."""
    segments = resolved.split("/")
    if len(segments) != 3 or segments[0] != "users" or segments[2] != "USER.md":
        return False
    name = segments[1]
    return 0 < len(name) <= 128 and name[0] in _ID_FIRST and all(ch in _ID_REST for ch in name)


def _artifact_path(relative: str) -> str | None:
    """`normalizeMemoryArtifactRelativePath` (2026.7.35)."""
    normalized = relative.replace("\\", "/")
    if not normalized or normalized.startswith("/") or ".." in normalized.split("/"):
        return None
    if normalized in CURATED_ROOT:
        return normalized
    if not normalized.startswith("memory/") or not normalized.endswith(".md"):
        return None
    if normalized.startswith(("memory/dreaming/", "memory/.dreams/")):
        return None
    return normalized


def _relative(root: str, path: str) -> str:
    return os.path.relpath(path, root).replace(os.sep, "/")


def artifact_path_reason(root: str, file: BootstrapFile) -> str | None:
    """Why 2026.7.33-7.35 drop `file` (None: kept)."""
    relative = _relative(root, file.path)
    if file.missing or not (_artifact_path(relative) or file.name in CURATED_ROOT):
        return None
    requested = _artifact_path(relative)
    if requested is None:
        return f"{relative} is not a memory artifact path"
    real_root = os.path.realpath(root)
    try:
        source = os.path.realpath(os.path.join(real_root, requested), strict=True)
    except OSError:
        return f"{relative} does not resolve"
    resolved = _relative(real_root, source)
    if _artifact_path(resolved) is None:
        return f"{relative} resolves to {resolved}, not a memory file of the workspace"
    return None


def memory_plugin(cfg: Mapping[str, Any]) -> str | None:
    """`resolveMemoryRuntimePluginIds`: the plugin the memory slot selects, None when there is none."""
    plugins = as_object(cfg.get("plugins"))
    if plugins.get("enabled") is False:
        return None
    slot = lookup(plugins, "slots", "memory")
    chosen = js_trim(slot) if isinstance(slot, str) else ""
    if chosen.lower() == "none":
        return None
    plugin = chosen or MEMORY_CORE
    deny = plugins.get("deny")
    if isinstance(deny, list) and plugin in deny:
        return None
    if lookup(plugins, "entries", plugin, "enabled") is False:
        return None
    return plugin


def _memory_core_reason(root: str, relative: str) -> str | None:
    """memory-core's classification: None for "agent" (eligible), else why the file is not."""
    try:
        real_root = os.path.realpath(root, strict=True)
        real_file = os.path.realpath(os.path.join(root, relative), strict=True)
    except OSError:
        return f"{relative} does not resolve (untrusted)"
    if not real_file.startswith(real_root.rstrip(os.sep) + os.sep):
        return f"{relative} resolves outside the workspace (untrusted)"
    resolved = _relative(real_root, real_file)
    segments = resolved.split("/")
    if (len(segments) == 1 and segments[0] in ("DREAMS.md", "dreams.md")) or (
        segments[0] == "memory" and len(segments) > 1 and segments[1] in ("dreaming", ".dreams")
    ):
        return f"{relative} resolves to {resolved}, a dreaming file (system)"
    curated = len(segments) == 1 and segments[0] in CURATED_ROOT
    workspace_memory = segments[0] == "memory" and segments[-1].endswith(".md")
    if curated or _personal_user(resolved) or workspace_memory:
        return None
    return f"{relative} resolves to {resolved}, not a memory file of the workspace (untrusted)"


def memory_plugin_reasons(
    root: str, files: Sequence[BootstrapFile], cfg: Mapping[str, Any] | None
) -> dict[str, str]:
    """2026.8.1+: path -> why it is dropped, for every present MEMORY.md/USER.md that is ineligible."""
    candidates = [f for f in files if not f.missing and f.name in (MEMORY_MD, USER_MD)]
    if not candidates or cfg is None:
        return {}
    plugin = memory_plugin(cfg)
    if plugin is None:
        return {}
    if plugin != MEMORY_CORE:
        why = f"memory plugin {clip(plugin)!r} classifies no workspace files for memwarm"
        return {f.path: why for f in candidates}
    reasons = {}
    for file in candidates:
        reason = _memory_core_reason(root, _relative(root, file.path))
        if reason is not None:
            reasons[file.path] = reason
    return reasons
