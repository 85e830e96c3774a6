"""Startup-context settings read the way OpenClaw's runtime reads them.

A value of the wrong type counts as absent, numbers are clamped (`clampInt`), time zones fall back to the
host zone. Every effective value records where it came from, so `scan` and `config show` can explain it.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from functools import lru_cache

from memwarm_cli.config.lookup import MISSING, lookup
from memwarm_cli.datetime_types import UTC, timedelta, timezone, tzinfo
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_int, js_is_finite_number, js_number_text, js_trim
from memwarm_cli.startup.tzif import load_zone, zone_search_path
from memwarm_cli.textsafe import clip

# typing.TYPE_CHECKING without importing typing, which costs every start ~2-4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    Action = Literal["new", "reset"]
    LimitSource = Literal["default", "config", "clamped"]

ACTIONS: tuple[Action, ...] = ("new", "reset")


def jsonable(value: Any) -> Any:
    """A raw config value as JSON can carry it: MISSING is null, non-finite numbers their JS text."""
    if value is MISSING:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return js_number_text(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list):
        return [jsonable(v) for v in value]
    return value


@record
class LimitSpec:
    name: str
    default: int
    minimum: int
    maximum: int


DAILY_MEMORY_DAYS = LimitSpec("dailyMemoryDays", 2, 1, 14)
MAX_FILE_BYTES = LimitSpec("maxFileBytes", 16_384, 1, 64 * 1024)
MAX_FILE_CHARS = LimitSpec("maxFileChars", 1_200, 1, 10_000)
MAX_TOTAL_CHARS = LimitSpec("maxTotalChars", 2_800, 1, 50_000)
LIMIT_SPECS = (DAILY_MEMORY_DAYS, MAX_FILE_BYTES, MAX_FILE_CHARS, MAX_TOTAL_CHARS)
SLUGGED_FILES_PER_DAY = 4


@record
class Limit:
    """One effective limit and its provenance."""

    name: str
    value: int
    source: LimitSource
    configured: Any  # the raw config value, or MISSING
    note: str | None  # e.g. "clamped from 999", "ignored: not a number ('5')"


def clamp_int(value: Any, spec: LimitSpec) -> Limit:
    """`clampInt(value, fallback, min, max)` with the reason for the outcome."""
    if value is MISSING:
        return Limit(spec.name, spec.default, "default", value, None)
    if not js_is_finite_number(value):
        return Limit(
            spec.name, spec.default, "default", value, f"ignored: not a finite number ({_shown(value)})"
        )
    truncated = math.trunc(value)
    result = min(spec.maximum, max(spec.minimum, truncated))
    if result == value and isinstance(value, int):
        return Limit(spec.name, result, "config", value, None)
    if result == value:  # a float that is already a whole number in range, e.g. 3.0
        return Limit(spec.name, result, "config", value, None)
    return Limit(spec.name, result, "clamped", value, f"clamped from {_shown(value)}")


def _shown(value: Any) -> str:
    """A raw config value in a note: numbers as JS prints them (an oversized int is Infinity)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return repr(value)
    return js_number_text(float(js_int(value)) if isinstance(value, int) else value)


@record
class TimezoneChoice:
    configured: Any  # the raw userTimezone value, or MISSING
    used: str  # the zone string in force, as written (not canonicalised)
    fell_back: bool
    reason: str | None  # why it fell back to the host zone
    tz: tzinfo


@record
class GateDecision:
    action: Action
    applied: bool
    reason: str | None  # why not applied


@record
class StartupSettings:
    daily_memory_days: Limit
    max_file_bytes: Limit
    max_file_chars: Limit
    max_total_chars: Limit
    timezone: TimezoneChoice

    @property
    def limits(self) -> tuple[Limit, Limit, Limit, Limit]:
        return (self.daily_memory_days, self.max_file_bytes, self.max_file_chars, self.max_total_chars)


def startup_context_section(cfg: Mapping[str, Any] | None) -> Any:
    return lookup(cfg, "agents", "defaults", "startupContext", missing=MISSING)


def should_apply_startup_context(cfg: Mapping[str, Any] | None, action: Action) -> GateDecision:
    """`shouldApplyStartupContext`: strict `enabled === false`, then the `applyOn` array."""
    section = startup_context_section(cfg)
    if lookup(section, "enabled", missing=MISSING) is False:
        return GateDecision(action, False, "agents.defaults.startupContext.enabled is false")
    apply_on = lookup(section, "applyOn", missing=MISSING)
    if not isinstance(apply_on, list) or not apply_on:
        return GateDecision(action, True, None)
    if action in [item for item in apply_on if isinstance(item, str)]:
        return GateDecision(action, True, None)
    listed = ", ".join(repr(item) for item in apply_on)
    return GateDecision(
        action, False, f'agents.defaults.startupContext.applyOn [{listed}] does not include "{action}"'
    )


# Offset-style zones Node 22's ICU accepts: +05:30, +05, +0530, -08:00, and a Unicode minus.
# Compiled by re's cache when a name starts like an offset (a zone name never does; compiling it at
# import cost every start ~0.3 ms).
_OFFSET_ZONE = r"^([+\-\u2212])([01]\d|2[0-3])(?::?([0-5]\d))?$"


# Files in the system zoneinfo tree that are not zone names ICU knows.
_NOT_ICU_ZONE_NAMES = frozenset({"localtime", "posixrules", "leapseconds", "tzdata.zi", "zone.tab"})


@lru_cache(maxsize=1)
def _zone_names_by_folded_name() -> dict[str, str]:
    # zoneinfo: ~9 ms by -X importtime; status and other commands never resolve a zone (test_imports)
    import zoneinfo

    return {
        name.casefold(): name for name in zoneinfo.available_timezones() if name not in _NOT_ICU_ZONE_NAMES
    }


@lru_cache(maxsize=1)
def _zone_search_path() -> tuple[str, ...] | None:
    return zone_search_path()  # once, as zoneinfo reads PYTHONTZPATH once


def _zone(name: str) -> tzinfo | None:
    """The zone file `name` as zoneinfo.ZoneInfo(name) reads it: by startup/tzif.py when it can be sure
    to read the same file the same way (no `import zoneinfo`: ~4 ms of a start, sysconfig above all),
    else by zoneinfo. None when there is no such zone."""
    zone = load_zone(name, _zone_search_path())
    if zone is not None:
        return zone
    import zoneinfo  # the tzdata package, PYTHONTZPATH oddities, files tzif.py does not read

    try:
        return zoneinfo.ZoneInfo(name)
    except (ValueError, OSError, zoneinfo.ZoneInfoNotFoundError):
        return None


@lru_cache(maxsize=64)
def lookup_zone(name: str) -> tzinfo | None:
    """Resolve a zone name the way ICU accepts it: IANA names and links, case-insensitively; fixed offsets."""
    match = re.match(_OFFSET_ZONE, name) if name[:1] in ("+", "-", "\u2212") else None
    if match:
        sign = -1 if match.group(1) != "+" else 1
        offset = timedelta(hours=int(match.group(2)), minutes=int(match.group(3) or 0))
        return timezone(sign * offset)
    if name not in _NOT_ICU_ZONE_NAMES and not name.startswith(("right/", "posix/")):
        zone = _zone(name)  # the common, exactly spelled case: no directory walk
        if zone is not None:
            return zone
    canonical = _zone_names_by_folded_name().get(name.casefold())
    return None if canonical is None else _zone(canonical)


def closest_zone_name(name: str) -> str | None:
    """The known zone name nearest to a misspelt one (`America/Los_Angles` -> `America/Los_Angeles`), or
    None. For error messages only: it lists every zone of the system and compares them (difflib)."""
    # difflib: ~9 ms by -X importtime, for an error message only
    import difflib

    by_folded = _zone_names_by_folded_name()
    wanted = js_trim(name).casefold()
    close = difflib.get_close_matches(wanted, list(by_folded), n=1, cutoff=0.75)
    if close:
        return by_folded[close[0]]
    # A city alone (`Los_Angeles`, `berlin`): against the last part of each name, canonical zones first.
    by_city: dict[str, str] = {}
    for folded, canonical in sorted(by_folded.items(), key=lambda item: ("/" not in item[0], item[0])):
        by_city.setdefault(folded.rsplit("/", 1)[-1], canonical)
    close = difflib.get_close_matches(wanted.rsplit("/", 1)[-1], list(by_city), n=1, cutoff=0.75)
    return by_city[close[0]] if close else None


def unknown_zone_warning(zone: TimezoneChoice) -> str | None:
    """What to tell a user whose userTimezone is a string that names no zone (None otherwise): OpenClaw
    falls back silently, so the wrong day's notes would be picked with nothing said."""
    if not zone.fell_back or not isinstance(zone.configured, str):
        return None
    configured = js_trim(zone.configured)
    guess = closest_zone_name(configured)
    hint = f' (did you mean "{guess}"?)' if guess is not None else ""
    return (
        f'agents.defaults.userTimezone "{clip(configured)}" is not a time zone OpenClaw knows{hint}; '
        f"it falls back to the host zone ({zone.used})"
    )


def host_timezone_name(env: Mapping[str, str] | None = None) -> str:
    """The host zone, as `Intl.DateTimeFormat().resolvedOptions().timeZone` would report it."""
    environ = os.environ if env is None else env
    tz_env = js_trim(environ.get("TZ", "")).lstrip(":")
    if tz_env and lookup_zone(tz_env) is not None:
        return tz_env
    try:
        target = os.path.realpath("/etc/localtime")
        marker = "/zoneinfo/"
        if marker in target:
            candidate = target.split(marker, 1)[1]
            if lookup_zone(candidate) is not None:
                return candidate
    except OSError:
        pass
    return "UTC"


def resolve_user_timezone(configured: Any, host_zone: str) -> TimezoneChoice:
    """`resolveUserTimezone`: trimmed name if ICU accepts it, else the host zone, else UTC."""
    if configured is MISSING or configured is None:
        reason: str | None = "userTimezone is not set"
    elif not isinstance(configured, str):
        reason = f"userTimezone is not a string ({clip(repr(configured))})"
    else:
        trimmed = js_trim(configured)
        if not trimmed:
            reason = "userTimezone is empty"
        else:
            zone = lookup_zone(trimmed)
            if zone is not None:
                return TimezoneChoice(configured, trimmed, False, None, zone)
            reason = f'unknown time zone "{trimmed}"'
    host = js_trim(host_zone) or "UTC"
    host_tz = lookup_zone(host)
    if host_tz is None:
        host, host_tz = "UTC", UTC
    return TimezoneChoice(configured, host, True, f"{reason}; using the host zone {host}", host_tz)


def resolve_startup_settings(cfg: Mapping[str, Any] | None, host_zone: str | None = None) -> StartupSettings:
    section = startup_context_section(cfg)
    limits = [clamp_int(lookup(section, spec.name, missing=MISSING), spec) for spec in LIMIT_SPECS]
    configured_zone = lookup(cfg, "agents", "defaults", "userTimezone", missing=MISSING)
    zone = resolve_user_timezone(
        configured_zone, host_zone if host_zone is not None else host_timezone_name()
    )
    return StartupSettings(limits[0], limits[1], limits[2], limits[3], zone)
