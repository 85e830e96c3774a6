"""Instants at the edges of the calendar: every (zone, window, instant) gives a window or a usage error.

OpenClaw's date stamps are ISO dates only within the years 1000 to 9999: below, `Intl` writes the year
unpadded (`999-03-01`) and `Date.UTC` maps years 0-99 to 1900-1999; Python's calendar ends at 9999. An
instant whose window (the local dates `dailyMemoryDays` back, plus the UTC date) leaves those years is a
usage error (exit 2, one line) for `prelude`, `scan` and `context`, in every zone, never an OverflowError.
"""

from __future__ import annotations

import itertools
import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memwarm_cli.errors import UsageError
from memwarm_cli.exitcodes import ExitCode
from memwarm_cli.startup.clock import JS_MAX_MS, iso_utc, parse_instant
from memwarm_cli.startup.plan import build_window
from memwarm_cli.startup.prelude_settings import lookup_zone
from tests.conftest import RunCli

ZONES = [
    "UTC",
    "Etc/GMT+12",  # UTC-12
    "Pacific/Pago_Pago",  # UTC-11
    "Pacific/Kiritimati",  # UTC+14
    "Asia/Kolkata",  # +05:30
    "Asia/Kathmandu",  # +05:45
    "Pacific/Chatham",  # +12:45 / +13:45 (DST)
    "America/St_Johns",  # -03:30 / -02:30 (DST)
    "America/New_York",
    "Europe/Berlin",
    "Australia/Lord_Howe",  # a half-hour DST shift
    "America/Sitka",  # LMT -14:58 before 1867
    "Asia/Manila",  # LMT +15:56 before 1845
    "+23:59",  # offset zones Node 22 accepts
    "-23:59",
]


def ms(iso: str) -> int:
    return (datetime.fromisoformat(iso) - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(milliseconds=1)


EDGES = [
    ms("1000-01-01T00:00:00Z"),
    ms("1000-01-15T00:00:00Z"),
    ms("0001-01-02T00:00:00Z"),
    ms("0001-01-01T00:00:00Z"),
    ms("9999-12-31T23:59:59.999Z"),
    ms("9999-12-30T00:00:00Z"),
    -JS_MAX_MS,
    JS_MAX_MS,
    0,
]
instants = st.one_of(
    st.integers(-JS_MAX_MS, JS_MAX_MS),
    st.sampled_from(EDGES).flatmap(lambda edge: st.integers(edge - 20 * 86_400_000, edge + 20 * 86_400_000)),
)


@settings(max_examples=400, deadline=None)
@given(zone=st.sampled_from(ZONES), days=st.integers(1, 14), at_ms=instants)
def test_every_zone_window_and_instant_gives_a_window_or_a_usage_error(
    zone: str, days: int, at_ms: int
) -> None:
    tz = lookup_zone(zone)
    assert tz is not None
    try:
        local, utc, window = build_window(at_ms, tz, days)
    except UsageError as exc:
        assert "out of range" in str(exc) and len(str(exc).splitlines()) == 1
        return
    stamps = [day.stamp for day in window]
    for stamp in stamps:
        assert "1000-01-01" <= stamp <= "9999-12-31"
        assert date.fromisoformat(stamp).isoformat() == stamp
    assert local in stamps and utc in stamps
    local_days = [date.fromisoformat(day.stamp) for day in window if day.clock != "utc"]
    assert local_days[0].isoformat() == local and len(local_days) == days
    assert all(a - b == timedelta(days=1) for a, b in itertools.pairwise(local_days))


def test_a_window_inside_the_years_is_not_refused() -> None:
    tz = lookup_zone("UTC")
    assert tz is not None
    _, _, window = build_window(ms("1000-01-14T12:00:00Z"), tz, 14)
    assert window[-1].stamp == "1000-01-01"
    _, _, window = build_window(ms("9999-12-31T23:59:59.999Z"), tz, 1)
    assert [day.stamp for day in window] == ["9999-12-31"]


@pytest.mark.parametrize(
    ("zone", "days", "at"),
    [
        ("Pacific/Kiritimati", 14, "0001-01-02T00:00:00Z"),  # OverflowError before
        ("Etc/GMT+12", 14, "-62135510400000"),
        ("Asia/Kolkata", 3, "0500-06-01T00:00:00Z"),  # JS would stamp it `500-06-01`
        ("UTC", 14, "1000-01-13T00:00:00Z"),  # reaches 0999-12-31
        ("Pacific/Kiritimati", 1, "9999-12-31T12:00:00Z"),  # local date is 10000-01-01
        ("UTC", 2, "8640000000000000"),  # JavaScript's last instant, year 275760
    ],
)
@pytest.mark.parametrize("command", ["prelude", "scan", "context"])
def test_cli_refuses_with_one_line(
    run_cli: RunCli, tmp_path: Path, zone: str, days: int, at: str, command: str
) -> None:
    cfg = tmp_path / "c.json"
    config = {"agents": {"defaults": {"userTimezone": zone, "startupContext": {"dailyMemoryDays": days}}}}
    cfg.write_text(json.dumps(config))
    result = run_cli(["--config", str(cfg), command, "--at", at])
    assert result.returncode == ExitCode.USAGE, result.stderr
    (line,) = result.stderr.splitlines()
    assert line.startswith("memwarm: error: --at: ") and "out of range" in line
    assert result.stdout == ""


def test_cli_accepts_the_last_millisecond_of_9999(run_cli: RunCli, tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    (tmp_path / "memory" / "9999-12-31.md").write_text("the last day")
    cfg = tmp_path / "c.json"
    config = {"agents": {"defaults": {"workspace": str(tmp_path), "userTimezone": "UTC"}}}
    cfg.write_text(json.dumps(config))
    result = run_cli(["--config", str(cfg), "prelude", "--json", "--at", "9999-12-31T23:59:59.999Z"])
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["at"] == "9999-12-31T23:59:59.999Z" and "the last day" in report["prelude"]


def test_epoch_milliseconds_beyond_javascript_dates_are_refused() -> None:
    assert parse_instant(str(JS_MAX_MS)) == JS_MAX_MS
    for text in (str(JS_MAX_MS + 1), str(-JS_MAX_MS - 1), "9" * 400):
        with pytest.raises(UsageError) as info:
            parse_instant(text)
        assert "out of range" in str(info.value)


@pytest.mark.parametrize(
    ("at_ms", "iso"),
    [  # as Node 22's `new Date(at_ms).toISOString()` writes them
        (JS_MAX_MS, "+275760-09-13T00:00:00.000Z"),
        (-JS_MAX_MS, "-271821-04-20T00:00:00.000Z"),
        (253402300799999, "9999-12-31T23:59:59.999Z"),
        (253402300800000, "+010000-01-01T00:00:00.000Z"),
        (-62167219200000, "0000-01-01T00:00:00.000Z"),
        (-62167219200001, "-000001-12-31T23:59:59.999Z"),
        (951782400000, "2000-02-29T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
    ],
)
def test_iso_utc_writes_every_javascript_instant(at_ms: int, iso: str) -> None:
    assert iso_utc(at_ms) == iso


@settings(max_examples=300, deadline=None)
@given(st.integers(ms("0001-01-01T00:00:00Z"), ms("9999-12-31T23:59:59.999Z")))
def test_iso_utc_agrees_with_the_calendar(at_ms: int) -> None:
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=at_ms)
    # isoformat pads the year (strftime's %Y writes year 999 as "999": the old iso_utc did so too).
    assert iso_utc(at_ms) == moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@pytest.mark.parametrize("at", [str(JS_MAX_MS), str(-JS_MAX_MS), "0001-01-01T00:00:00Z"])
def test_init_backends_takes_every_javascript_instant(run_cli: RunCli, tmp_path: Path, at: str) -> None:
    # --at is session export's clock: retention is arithmetic on milliseconds, as in JS; only the
    # report writes the instant, and it does so as JS would.
    (tmp_path / "ws" / "memory").mkdir(parents=True)
    cfg = tmp_path / "c.json"
    qmd = {"command": "sh", "sessions": {"enabled": True, "retentionDays": 3}}
    config = {
        "agents": {"defaults": {"workspace": str(tmp_path / "ws")}},
        "memory": {"backend": "qmd", "qmd": qmd},
    }
    cfg.write_text(json.dumps(config))
    result = run_cli(["--config", str(cfg), "init-backends", "--dry-run", "--at", at])
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    expected = f"transcripts of the last 3 days before {iso_utc(parse_instant(at))}"
    assert expected in result.stdout + result.stderr


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="-+0123456789\u0663\u00b2\u0661 \nT:Z", max_size=8))
def test_epoch_milliseconds_are_what_the_pattern_took(text: str) -> None:
    """parse_instant's str-method test is `^-?\\d+$` on the stripped text (it was that regex)."""
    import re

    value = text.strip()
    try:
        parse_instant(text)
    except UsageError as error:
        taken = "out of range" in str(error)  # epoch ms beyond a JS Date: taken as a number
    else:
        taken = True
    if re.match(r"^-?\d+$", value):
        assert taken, text
    elif taken:  # not a number: only an ISO instant parses
        datetime.fromisoformat(value)
