"""Values read out of a raw, unvalidated config as OpenClaw's runtime reads them: `cfg?.a?.b`, `a ?? b`.

A level that is not an object makes the value absent, never an error: a value of the wrong type counts
as absent higher up too.
"""

from __future__ import annotations

from collections.abc import Mapping

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memwarm_cli.profiles.releases import Profile

# Not-present marker for raw config values, where absent and null must be told apart (None is JSON null).
MISSING: Any = type("Missing", (), {"__repr__": lambda self: "<missing>"})()


def lookup(value: Any, *keys: str, missing: Any = None) -> Any:
    """`value?.[k1]?.[k2]...`: `missing` as soon as a level is not an object or lacks the key."""
    current = value
    for key in keys:
        # `type(...) is dict` first: parsed configs hold plain dicts, and the ABC check is slow when
        # repeated for every one of 10,000 agents.
        if not (type(current) is dict or isinstance(current, Mapping)) or key not in current:
            return missing
        current = current[key]
    return current


def contains_key(value: Any, key: str) -> bool:
    """Whether an object anywhere in a parsed config (inside objects and arrays, at any depth) has `key`."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):  # as includes.py walks it
            if key in item:
                return True
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def as_object(value: Any) -> Mapping[str, Any]:
    """`value` when it is a JSON object, else an empty mapping (so lookups on garbage fall back)."""
    return value if type(value) is dict or isinstance(value, Mapping) else {}


def coalesce(*values: Any) -> Any:
    """JS `a ?? b ?? c`: the first value that is not None."""
    for value in values:
        if value is not None:
            return value
    return None


def memory_search_block(cfg: Any, profile: Profile, entry: Any = None) -> Any:
    """The memory-search settings as the profile's release reads them: the defaults' block
    (`agents.defaults.memorySearch` up to 2026.7.x, top-level `memory.search` from 2026.8.1), or with
    `entry` that agent's own (`memorySearch`, or `memory.search` in its `agents.entries` entry).
    `missing` (None) when absent; the value unvalidated."""
    if entry is not None:
        own = ("memorySearch",) if profile.memory_search_key[0] == "agents" else ("memory", "search")
        return lookup(entry, *own)
    return lookup(cfg, *profile.memory_search_key)
