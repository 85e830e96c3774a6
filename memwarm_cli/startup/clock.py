"""Instants as epoch milliseconds (as JS `Date` holds them) and their conversions, in one place."""

from __future__ import annotations

import math
import time

from memwarm_cli.datetime_types import UTC, date, datetime, timedelta, tzinfo
from memwarm_cli.errors import InstantError

# Not typing.TYPE_CHECKING: `typing` costs ~4 ms of a start (mypy reads this as the same flag).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# A JS Date holds instants up to 8.64e15 ms either side of the epoch (years -271821 to 275760).
JS_MAX_MS = 8_640_000_000_000_000


def utc_instant(ms: float) -> datetime:
    """The UTC datetime of epoch milliseconds (fractions truncated toward minus infinity).

    OverflowError outside Python's years 1 to 9999.
    """
    return EPOCH + timedelta(milliseconds=math.floor(ms))


def parse_instant(text: str | None) -> int:
    """`--at`: ISO 8601 with an offset or `Z`, or integer epoch milliseconds; None means now.

    Any instant a JS Date holds is accepted here; whether its date window can be computed is decided
    with the zone and the window (`window_stamps`).
    """
    if text is None:
        return time.time_ns() // 1_000_000
    value = text.strip()
    # `^-?\d+$` (\d: decimal digits, str.isdecimal), in str methods: the regex cost every start its compile
    if (value[1:] if value.startswith("-") else value).isdecimal():
        at_ms = int(value) if len(value) <= 20 else JS_MAX_MS + 1
    else:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise InstantError(
                f'cannot read the instant "{text}": use ISO 8601 with an offset or Z '
                "(2026-04-11T18:00:00Z) or epoch milliseconds"
            ) from None
        if moment.tzinfo is None:
            if "T" not in value.upper() and " " not in value:
                # A date alone: the window is the agent's local dates and the UTC date of an instant,
                # which a day does not fix (midnight UTC is still the day before west of Greenwich).
                raise InstantError(
                    f'the instant "{text}" is a date without a time: the notes picked depend on the '
                    "instant (the agent's local dates and the UTC date); give a time with an offset: "
                    f"{value}T12:00:00Z"
                )
            raise InstantError(f'the instant "{text}" has no UTC offset; add Z or +HH:MM')
        try:
            at_ms = (moment - EPOCH) // timedelta(milliseconds=1)
        except OverflowError:
            at_ms = JS_MAX_MS + 1
    if not -JS_MAX_MS <= at_ms <= JS_MAX_MS:
        raise InstantError(
            f'the instant "{text}" is out of range: JavaScript dates end 8.64e15 ms from the epoch'
        )
    return at_ms


DAY_MS = 86_400_000


def _civil_from_days(days: int) -> tuple[int, int, int]:
    """(year, month, day) of a day count from 1970-01-01, proleptic Gregorian, any year (H. Hinnant)."""
    z = days + 719_468
    era = z // 146_097
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    month = mp + 3 if mp < 10 else mp - 9
    return yoe + era * 400 + (month <= 2), month, doy - (153 * mp + 2) // 5 + 1


def iso_utc(at_ms: int) -> str:
    """`Date.prototype.toISOString()`, for every instant a JS Date holds: years outside 0-9999 as
    `+275760-09-13T00:00:00.000Z` / `-000001-...`, where Python's datetime stops at 1 and 9999."""
    days, in_day = divmod(int(at_ms), DAY_MS)
    year, month, day = _civil_from_days(days)
    hours, rest = divmod(in_day, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    seconds, millis = divmod(rest, 1000)
    shown = f"{year:04d}" if 0 <= year <= 9999 else f"{'+' if year > 0 else '-'}{abs(year):06d}"
    return f"{shown}-{month:02d}-{day:02d}T{hours:02d}:{minutes:02d}:{seconds:02d}.{millis:03d}Z"


def date_stamp(at_ms: int, tz: tzinfo) -> str:
    """The `YYYY-MM-DD` calendar date of the instant in `tz`."""
    return utc_instant(at_ms).astimezone(tz).date().isoformat()


def local_time(ms: float | None, tz: tzinfo) -> str | None:
    """An instant (a file's mtime) in `tz`, ISO 8601 with offset, to the second; None if unrepresentable."""
    if ms is None:
        return None
    try:
        # One C call, as utc_instant(ms).astimezone(tz) to the second: scan --all formats 100k of them.
        return datetime.fromtimestamp(ms // 1000, tz).isoformat()
    except (OverflowError, OSError, ValueError):
        return None


def local_times(tz: tzinfo) -> Callable[[float | None], str | None]:
    """local_time in `tz`, remembered by the second: the files of one workspace share their mtimes'
    seconds often (a checkout, a sync), and `context --json` formats thousands of them."""
    seen: dict[float, str | None] = {}

    def text(ms: float | None) -> str | None:
        if ms is None:
            return None
        second = ms // 1000  # the key local_time formats
        try:
            return seen[second]
        except KeyError:
            shown = seen[second] = local_time(ms, tz)
            return shown

    return text


# OpenClaw's stamps are the ISO dates Python computes only in these years: below 1000, `Intl` writes the
# year unpadded (`999-03-01`) and `Date.UTC` maps years 0-99 to 1900-1999; Python's calendar ends at 9999.
EARLIEST_STAMP = "1000-01-01"
LATEST_STAMP = "9999-12-31"


def shift_stamp(stamp: str, days_back: int) -> str:
    return (date.fromisoformat(stamp) - timedelta(days=days_back)).isoformat()


def window_stamps(at_ms: int, tz: tzinfo, days: int) -> tuple[str, str, list[str]]:
    """The local date in `tz`, the UTC date, and the local dates `days` back (today first).

    InstantError when one of them would fall outside the years 1000 to 9999, in any zone.
    """
    try:
        local = date_stamp(at_ms, tz)
        utc = date_stamp(at_ms, UTC)
        local_window = [shift_stamp(local, k) for k in range(days)]
        inside = min([*local_window, utc]) >= EARLIEST_STAMP and max(local, utc) <= LATEST_STAMP
    except (OverflowError, ValueError):  # past Python's years 1 to 9999
        inside = False
    if not inside:
        raise InstantError(
            f"the instant {iso_utc(at_ms)} is out of range: its date window ({days} "
            f"{'day' if days == 1 else 'days'} back in the agent's time zone, and the UTC date) must lie "
            "within the years 1000 to 9999, where memwarm can compute OpenClaw's date stamps"
        )
    return local, utc, local_window
