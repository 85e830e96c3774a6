from __future__ import annotations

import math
from typing import Any

import pytest

from memwarm_cli.config.lookup import MISSING
from memwarm_cli.startup.prelude_settings import (
    DAILY_MEMORY_DAYS,
    MAX_FILE_BYTES,
    clamp_int,
    lookup_zone,
    resolve_startup_settings,
    resolve_user_timezone,
    should_apply_startup_context,
)


@pytest.mark.parametrize(
    ("value", "expected", "source"),
    [
        (MISSING, 2, "default"),
        (None, 2, "default"),
        ("5", 2, "default"),
        (True, 2, "default"),
        (math.nan, 2, "default"),
        (math.inf, 2, "default"),
        (3, 3, "config"),
        (3.0, 3, "config"),
        (2.9, 2, "clamped"),
        (-0.5, 1, "clamped"),
        (0, 1, "clamped"),
        (999, 14, "clamped"),
        (10**20, 14, "clamped"),
    ],
)
def test_clamp_int(value: Any, expected: int, source: str) -> None:
    limit = clamp_int(value, DAILY_MEMORY_DAYS)
    assert (limit.value, limit.source) == (expected, source)


def test_clamp_notes_say_what_happened() -> None:
    assert clamp_int(999_999_999, MAX_FILE_BYTES).note == "clamped from 999999999"
    assert "not a finite number" in (clamp_int("5", MAX_FILE_BYTES).note or "")


def sc(**fields: Any) -> dict[str, Any]:
    return {"agents": {"defaults": {"startupContext": fields}}}


@pytest.mark.parametrize(
    ("cfg", "new", "reset"),
    [
        (None, True, True),
        ({}, True, True),
        (sc(enabled=False), False, False),
        (sc(enabled=0), True, True),
        (sc(enabled="false"), True, True),
        (sc(applyOn=["new"]), True, False),
        (sc(applyOn=["reset"]), False, True),
        (sc(applyOn=[]), True, True),
        (sc(applyOn="new"), True, True),
        (sc(applyOn=["NEW", "bogus"]), False, False),
        ({"agents": {"defaults": {"startupContext": "yes"}}}, True, True),
    ],
)
def test_gate(cfg: Any, new: bool, reset: bool) -> None:
    assert should_apply_startup_context(cfg, "new").applied is new
    assert should_apply_startup_context(cfg, "reset").applied is reset
    decision = should_apply_startup_context(cfg, "new")
    assert (decision.reason is None) is new


@pytest.mark.parametrize(
    "name",
    [
        "America/Chicago",
        "america/chicago",
        "AMERICA/CHICAGO",
        "UTC",
        "utc",
        "GMT0",
        "Etc/GMT+5",
        "US/Eastern",
        "EST",
    ],
)
def test_zones_icu_accepts(name: str) -> None:
    assert lookup_zone(name) is not None


@pytest.mark.parametrize(
    "name", ["Mars/Olympus", "UTC+5", "GMT+5", "+5:30", "+24:00", "America", "../etc/passwd"]
)
def test_zones_icu_rejects(name: str) -> None:
    assert lookup_zone(name) is None


@pytest.mark.parametrize(
    ("name", "minutes"), [("+05:30", 330), ("+05", 300), ("+0530", 330), ("-08:00", -480), ("−05:00", -300)]
)
def test_offset_zones(name: str, minutes: int) -> None:
    zone = lookup_zone(name)
    assert zone is not None
    offset = zone.utcoffset(None)
    assert offset is not None and offset.total_seconds() == minutes * 60


def test_timezone_is_returned_as_written_and_falls_back_with_a_reason() -> None:
    assert resolve_user_timezone("  america/chicago ", "UTC").used == "america/chicago"
    fallback = resolve_user_timezone("Mars/Olympus", "Asia/Tokyo")
    assert (fallback.used, fallback.fell_back) == ("Asia/Tokyo", True)
    assert "Mars/Olympus" in (fallback.reason or "")
    assert resolve_user_timezone(42, "UTC").fell_back
    assert resolve_user_timezone("", "Not/AZone").used == "UTC"


def test_settings_tolerate_any_shape() -> None:
    cfgs: tuple[Any, ...] = (None, {}, {"agents": None}, {"agents": {"defaults": None}}, {"agents": []})
    for cfg in cfgs:
        settings = resolve_startup_settings(cfg, "UTC")
        assert [limit.value for limit in settings.limits] == [2, 16384, 1200, 2800]
