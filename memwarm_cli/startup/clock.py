"""Instants as epoch milliseconds (as JS `Date` holds them) and their conversions, in one place."""

from __future__ import annotations

import math
import re
import time
from datetime import UTC, datetime, timedelta, tzinfo

from memwarm_cli.errors import UsageError

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# A JS Date holds instants up to 8.64e15 ms either side of the epoch (years -271821 to 275760).
JS_MAX_MS = 8_640_000_000_000_000
_EPOCH_MS = re.compile(r"^-?\d+$")


def utc_instant(ms: float) -> datetime:
    """The UTC datetime of epoch milliseconds (fractions truncated toward minus infinity).

    OverflowError outside Python's years 1 to 9999.
    """
    return EPOCH + timedelta(milliseconds=math.floor(ms))


def parse_instant(text: str | None) -> int:
    """`--at`: ISO 8601 with an offset or `Z`, or integer epoch milliseconds; None means now.

    Any instant a JS Date holds is accepted here; whether its date window can be computed is decided
    with the zone and the window (`startup.plan.build_window`).
    """
    if text is None:
        return time.time_ns() // 1_000_000
    value = text.strip()
    if _EPOCH_MS.match(value):
        at_ms = int(value) if len(value) <= 20 else JS_MAX_MS + 1
    else:
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            raise UsageError(
                f'--at: cannot read "{text}": use ISO 8601 with an offset or Z '
                "(2026-04-11T18:00:00Z) or epoch milliseconds"
            ) from None
        if moment.tzinfo is None:
            raise UsageError(f'--at: "{text}" has no UTC offset; add Z or +HH:MM')
        try:
            at_ms = (moment - EPOCH) // timedelta(milliseconds=1)
        except OverflowError:
            at_ms = JS_MAX_MS + 1
    if not -JS_MAX_MS <= at_ms <= JS_MAX_MS:
        raise UsageError(f'--at: "{text}" is out of range: JavaScript dates end 8.64e15 ms from the epoch')
    return at_ms


def describe_instant(at_ms: int) -> str:
    """The instant as ISO 8601 when Python can write it, else as epoch milliseconds."""
    try:
        return iso_utc(at_ms)
    except (OverflowError, ValueError):
        return f"{at_ms} ms from the epoch"


def iso_utc(at_ms: int) -> str:
    """`Date.prototype.toISOString()`."""
    moment = utc_instant(at_ms)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


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
