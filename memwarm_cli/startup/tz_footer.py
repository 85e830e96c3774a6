"""The POSIX TZ string at the end of a TZif file (`CST6CDT,M3.2.0,M11.1.0`): the rule zoneinfo applies
after a zone's last transition, read as zoneinfo reads it (CPython 3.11, Lib/zoneinfo/_zoneinfo.py
_parse_tz_str and _TZStr; Modules/_zoneinfo.c). Slim tzdata files stop their transitions at 2007 and rely
on it from then on. Apart from startup/tzif.py, which reads the rest of the file, by concern.
"""

from __future__ import annotations

from memwarm_cli.datetime_types import timedelta, timezone

EPOCH_ORDINAL = 719_163  # date(1970, 1, 1).toordinal()


class ZoneFileError(ValueError):
    """A zone file or footer this reader does not take as zoneinfo would: ask zoneinfo."""


_FIXED: dict[tuple[int, str], timezone] = {}


def fixed_type(seconds: int, name: str) -> timezone:
    """One `datetime.timezone` per (offset, abbreviation); ValueError past +-24 hours."""
    key = (seconds, name)
    found = _FIXED.get(key)
    if found is None:
        found = _FIXED[key] = timezone(timedelta(seconds=seconds), name)
    return found


def type_seconds(zone: timezone) -> int:
    offset = zone.utcoffset(None)
    return offset.days * 86400 + offset.seconds


# Read by hand, not by a regular expression: compiling zoneinfo's takes longer than reading the file.
# A strict part of zoneinfo's grammar (its _parse_tz_str): anything else raises, and zoneinfo decides.
_LETTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
_QUOTED = _LETTERS | frozenset("0123456789+-")
_DIGITS = frozenset("0123456789")


def _name(text: str, at: int) -> tuple[str, int]:
    """A zone abbreviation at `at`: 3+ ASCII letters, or `<...>` of 3+ letters, digits, `+`, `-`."""
    if text.startswith("<", at):
        close = text.find(">", at)
        name = text[at + 1 : close] if close > 0 else ""
        if len(name) < 3 or not set(name) <= _QUOTED:
            raise ZoneFileError(f"TZ string not read here: {text}")
        return name, close + 1
    end = at
    while end < len(text) and text[end] in _LETTERS:
        end += 1
    if end - at < 3:
        raise ZoneFileError(f"TZ string not read here: {text}")
    return text[at:end], end


def _clock(text: str, at: int) -> tuple[str | None, int]:
    """`[+-]h[h[h]][:mm[:ss]]` at `at` (None if there is no digit there)."""
    end = at + (text[at : at + 1] in ("+", "-"))
    digits = end
    while end < len(text) and text[end] in _DIGITS and end - digits < 3:
        end += 1
    if end == digits:
        return None, at
    for _ in range(2):
        if text[end : end + 1] == ":" and set(text[end + 1 : end + 3]) <= _DIGITS and len(text) >= end + 3:
            end += 3
        else:
            break
    return text[at:end], end


def _hms(text: str, limit: int) -> int:
    """`[+-]h[:mm[:ss]]` as seconds (minus for `-`); ZoneFileError past `limit` hours."""
    sign = -1 if text.startswith("-") else 1
    parts = [int(part) for part in text.lstrip("+-").split(":")]
    if parts[0] > limit:
        raise ZoneFileError(f"hours out of range: {text}")
    parts += [0] * (3 - len(parts))
    return sign * (parts[0] * 3600 + parts[1] * 60 + parts[2])


def parse_footer(text: str) -> timezone | FooterRule:
    """The TZ string after the last transition: a fixed type (`EST5`, `<+03>-3`) or a daylight saving
    rule (`CST6CDT,M3.2.0,M11.1.0`)."""
    head, *rules = text.split(",")
    std, at = _name(head, 0)
    std_clock, at = _clock(head, at)
    if std_clock is None:
        raise ZoneFileError(f"TZ string not read here: {text}")
    std_offset = -_hms(std_clock, 24)
    if at == len(head) and not rules:
        return fixed_type(std_offset, std)
    dst, at = _name(head, at)
    dst_clock, at = _clock(head, at)
    if at != len(head) or len(rules) != 2:
        raise ZoneFileError(f"TZ string not read here: {text}")
    dst_offset = std_offset + 3600 if dst_clock is None else -_hms(dst_clock, 24)
    return FooterRule(
        fixed_type(std_offset, std),
        fixed_type(dst_offset, dst),
        dst_offset - std_offset,
        _day_rule(rules[0]),
        _day_rule(rules[1]),
    )


def _day_rule(text: str) -> tuple[str, int, int, int, int]:
    """(kind, a, b, c, seconds): ("M", month, week, weekday), ("J", day 1-365), ("n", day 0-365), with
    the local time of day in seconds (default 02:00), as zoneinfo's _parse_dst_start_end reads them."""
    date, slash, time = text.partition("/")
    seconds = 7200
    if slash:
        clock, end = _clock(time, 0)
        if clock is None or end != len(time):
            raise ZoneFileError(f"bad rule time: {text}")
        seconds = _hms(clock, 167)
    if date.startswith("M"):
        parts = date[1:].split(".")
        lengths = [len(part) for part in parts]
        if lengths not in ([1, 1, 1], [2, 1, 1]) or not set("".join(parts)) <= _DIGITS:
            raise ZoneFileError(f"bad rule date: {text}")
        month, week, weekday = (int(part) for part in parts)
        if not (1 <= month <= 12 and 1 <= week <= 5 and 0 <= weekday <= 6):
            raise ZoneFileError(f"bad rule date: {text}")
        return "M", month, week, weekday, seconds
    julian = date.startswith("J")
    number = date[1:] if julian else date
    if not 1 <= len(number) <= 3 or not set(number) <= _DIGITS:
        raise ZoneFileError(f"bad rule date: {text}")
    day = int(number)
    if not (1 if julian else 0) <= day <= 365:
        raise ZoneFileError(f"bad rule day: {text}")
    return ("J" if julian else "n"), day, 0, 0, seconds


def _is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def _days_before_year(year: int) -> int:
    y = year - 1
    return y * 365 + y // 4 - y // 100 + y // 400 - EPOCH_ORDINAL


_DAYS_BEFORE_MONTH = (-1, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334)
_DAYS_IN_MONTH = (0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)


def _rule_epoch(rule: tuple[str, int, int, int, int], year: int) -> int:
    """zoneinfo's year_to_epoch: the rule's moment in `year`, in local seconds since 1970."""
    kind, a, b, c, seconds = rule
    if kind == "M":
        month, week, weekday = a, b, c
        days_before = _days_before_year(year)
        # The weekday of the month's first day, Monday 0 (calendar.monthrange), from 1970-01-01 (Thursday).
        first = days_before + _DAYS_BEFORE_MONTH[month] + (month > 2 and _is_leap(year)) + 1
        first_day = (first + 3) % 7
        days_in_month = _DAYS_IN_MONTH[month] + (month == 2 and _is_leap(year))
        month_day = (weekday - (first_day + 1)) % 7 + 1 + (week - 1) * 7
        if month_day > days_in_month:
            month_day -= 7
        ordinal = days_before + _DAYS_BEFORE_MONTH[month] + (month > 2 and _is_leap(year)) + month_day
        return ordinal * 86400 + seconds
    day = a
    if kind == "J" and day >= 59 and _is_leap(year):
        day += 1
    return (_days_before_year(year) + day) * 86400 + seconds


class FooterRule:
    """zoneinfo's _TZStr: standard and daylight saving types and the two yearly moments between them."""

    __slots__ = ("dst", "dst_diff", "end", "start", "std")

    def __init__(
        self,
        std: timezone,
        dst: timezone,
        dst_diff: int,
        start: tuple[str, int, int, int, int],
        end: tuple[str, int, int, int, int],
    ) -> None:
        self.std, self.dst, self.dst_diff, self.start, self.end = std, dst, dst_diff, start, end

    def at_utc(self, ts: int, year: int) -> tuple[timezone, bool]:
        """(type, fold) at UTC seconds `ts` of UTC year `year` (zoneinfo's _get_trans_info_fromutc)."""
        start = _rule_epoch(self.start, year) - type_seconds(self.std)
        end = _rule_epoch(self.end, year) - type_seconds(self.dst)
        isdst = start <= ts < end if start < end else not end <= ts < start
        if self.dst_diff > 0:
            ambig_start, ambig_end = end, end + self.dst_diff
        else:
            ambig_start, ambig_end = start, start - self.dst_diff
        return (self.dst if isdst else self.std), ambig_start <= ts < ambig_end

    def at_wall(self, ts: int, year: int, fold: int) -> timezone:
        """The type at local seconds `ts` (zoneinfo's _get_trans_info)."""
        start, end = _rule_epoch(self.start, year), _rule_epoch(self.end, year)
        if fold == (self.dst_diff >= 0):
            end -= self.dst_diff
        else:
            start += self.dst_diff
        isdst = start <= ts < end if start < end else not end <= ts < start
        return self.dst if isdst else self.std
