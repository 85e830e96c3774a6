"""Bootstrap settings read from the raw config as OpenClaw's runtime reads them (spec §2.2, §3.3, §4.1, §6.3).

Every value records where it came from (the agents.list entry, or from 2026.8.1 the agents.entries
one; agents.defaults; or the built-in default) so `context` can say which limit applied and why.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from memwarm_cli.agents import find_agent_entry, list_agent_entries, normalize_agent_id, roster_label
from memwarm_cli.config.lookup import as_object, lookup
from memwarm_cli.jsstring import js_is_finite_number, js_number_text, js_trim, js_truthy
from memwarm_cli.profiles.releases import Profile
from memwarm_cli.textsafe import clip

# typing.TYPE_CHECKING without importing typing: ~2.5 ms of `context`'s start (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, NamedTuple

    LimitOrigin = Literal["per-agent", "defaults", "built-in"]
else:
    from memwarm_cli.named_tuples import NamedTuple

DEFAULT_MAX_CHARS = 20_000
DEFAULT_TOTAL_MAX_CHARS = 60_000
INJECTION_MODES = ("always", "continuation-skip", "never")
WARNING_MODES = ("off", "once", "always")
DEFAULT_HEARTBEAT_EVERY = "30m"


class BootstrapLimit(NamedTuple):
    name: str  # the config key: bootstrapMaxChars / bootstrapTotalMaxChars
    value: int
    origin: LimitOrigin
    configured: Any  # the raw value that decided (None when nothing was set)
    note: str | None  # why a configured value was not used, or how it was rounded


def agents_defaults(cfg: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return as_object(lookup(cfg, "agents", "defaults"))


def _shown(value: Any) -> str:
    if isinstance(value, float):
        return js_number_text(value)
    return clip(repr(value))


def resolve_limit(
    cfg: Mapping[str, Any] | None, agent_id: str, key: str, default: int, *, profile: Profile
) -> BootstrapLimit:
    """`entry[key] ?? defaults[key]`; a finite number > 0 is floored, anything else is the default.

    `??` falls back only for null or missing, so an invalid per-agent value does not reach the defaults.
    """
    entry = find_agent_entry(cfg, agent_id, profile=profile) if cfg is not None else None
    origin: LimitOrigin
    if entry is not None and entry.get(key) is not None:
        roster = roster_label(cfg, profile=profile)
        where = f"{roster}.{agent_id}.{key}" if roster == "agents.entries" else f"{roster}[{agent_id}].{key}"
        raw, origin = entry[key], "per-agent"
    else:
        raw = agents_defaults(cfg).get(key)
        origin, where = "defaults", f"agents.defaults.{key}"
    if raw is None:
        return BootstrapLimit(key, default, "built-in", None, None)
    if not js_is_finite_number(raw) or raw <= 0:
        return BootstrapLimit(key, default, "built-in", raw, f"{where} {_shown(raw)} is not a number > 0")
    value = math.floor(raw)
    note = None if value == raw else f"{where} {_shown(raw)} floored to {value}"
    return BootstrapLimit(key, value, origin, raw, note)


def resolve_context_injection(cfg: Mapping[str, Any] | None, agent_id: str, *, profile: Profile) -> Any:
    """The entry's valid mode, else `agents.defaults.contextInjection` unvalidated, else `always`."""
    entry = find_agent_entry(cfg, agent_id, profile=profile) if cfg is not None else None
    own = entry.get("contextInjection") if entry is not None else None
    if own in INJECTION_MODES:
        return own
    configured = agents_defaults(cfg).get("contextInjection")
    return "always" if configured is None else configured


def resolve_truncation_warning(cfg: Mapping[str, Any] | None, *, profile: Profile) -> str:
    """`agents.defaults.bootstrapPromptTruncationWarning` up to 2026.7.x; from 2026.8.1 the key is retired
    and the notice is always given."""
    if not profile.truncation_warning_setting:
        return "always"
    mode = agents_defaults(cfg).get("bootstrapPromptTruncationWarning")
    return mode if mode in WARNING_MODES else "always"


# ---- heartbeat guidance (§3.3 step 3) -------------------------------------------------------------

_UNIT_MS = {"ms": 1, "s": 1_000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}
_DIGITS = frozenset("0123456789")


def _duration_segments(value: str) -> list[tuple[str, str | None]] | None:
    """`<number><unit>` pieces of `value` (number `\\d+(\\.\\d+)?`, unit ms|s|m|h|d or none), None if
    something else is in the way. A scanner, not a regex, to keep `context`'s start-up cheap."""
    segments: list[tuple[str, str | None]] = []
    index = 0
    while index < len(value):
        end = index
        while end < len(value) and value[end] in _DIGITS:
            end += 1
        if end == index:
            return None
        if end < len(value) and value[end] == ".":
            fraction = end + 1
            while fraction < len(value) and value[fraction] in _DIGITS:
                fraction += 1
            if fraction == end + 1:
                return None
            end = fraction
        unit = "ms" if value.startswith("ms", end) else value[end] if end < len(value) else None
        if unit is not None and unit not in _UNIT_MS:
            return None
        segments.append((value[index:end], unit))
        index = end + (len(unit) if unit else 0)
    return segments


def heartbeat_every_ms(text: str) -> int | None:
    """A heartbeat `every` in milliseconds (no unit: minutes; `1h30m` sums), None when unparsable.

    One segment may omit its unit (`^(\\d+(\\.\\d+)?)(ms|s|m|h|d)?$`); several must all carry one.
    """
    segments = _duration_segments(js_trim(text).lower())
    if not segments or (len(segments) > 1 and any(unit is None for _, unit in segments)):
        return None
    total = sum(float(number) * _UNIT_MS[unit or "m"] for number, unit in segments)
    return math.floor(total + 0.5) if math.isfinite(total) else None  # Math.round


class HeartbeatDecision(NamedTuple):
    keep: bool
    reason: str


def heartbeat_decision(
    cfg: Mapping[str, Any], agent_id: str, default_agent_id: str, *, profile: Profile
) -> HeartbeatDecision:
    """Whether HEARTBEAT.md stays in the bootstrap files (only asked when a config is given)."""
    if agent_id != default_agent_id:
        return HeartbeatDecision(True, f"agent {agent_id} is not the default agent")
    entries = list_agent_entries(cfg, profile=profile)
    with_heartbeat = [entry for entry in entries if js_truthy(entry.get("heartbeat"))]
    if with_heartbeat and not any(normalize_agent_id(e.get("id")) == agent_id for e in with_heartbeat):
        return HeartbeatDecision(False, "heartbeats are configured for other agents only")
    entry = find_agent_entry(cfg, agent_id, profile=profile)
    merged = {**as_object(agents_defaults(cfg).get("heartbeat")), **as_object(lookup(entry, "heartbeat"))}
    if merged.get("includeSystemPromptSection") is False:
        return HeartbeatDecision(False, "heartbeat.includeSystemPromptSection is false")
    every = merged.get("every")
    if every is None:  # missing (or null): the built-in interval
        every = DEFAULT_HEARTBEAT_EVERY
    if not isinstance(every, str) or not js_trim(every):
        return HeartbeatDecision(False, f"heartbeat.every {_shown(every)} is not a duration")
    every_ms = heartbeat_every_ms(every)
    if every_ms is None:
        return HeartbeatDecision(False, f"heartbeat.every {clip(every)!r} is not a duration")
    if every_ms <= 0:
        return HeartbeatDecision(False, f"heartbeat.every {clip(every)!r} disables heartbeats")
    return HeartbeatDecision(True, f"heartbeat guidance is on (every {js_trim(every)})")
