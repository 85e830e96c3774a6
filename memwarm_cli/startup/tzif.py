"""IANA time zones read straight from their TZif files, giving exactly the offsets `zoneinfo.ZoneInfo` gives.

Why not zoneinfo: `import zoneinfo` imports `sysconfig` (zoneinfo._tzpath asks it for the TZPATH the
interpreter was built with), ~4 ms of a ~50 ms `memwarm prelude`, which only needs a zone's UTC offsets
at instants (startup/clock.py). This reader follows CPython's zoneinfo (Lib/zoneinfo/_common.py and
_zoneinfo.py, 3.11) step for step: the same search path, the same parts of the file, the same rules
before the first transition, between transitions and after the last (the POSIX TZ footer, which slim
tzdata files rely on from the last transition on). tests/startup/test_tzif.py compares it with ZoneInfo
for every zone of the system at many instants and wall times.

It answers only when it is sure to read the file zoneinfo would read; otherwise `load_zone` returns None
and the caller asks zoneinfo (startup/prelude_settings.lookup_zone): PYTHONTZPATH set to anything but
absolute directories, a build-time TZPATH it cannot read from the interpreter's sysconfig data, a name
not found in the search path (zoneinfo then tries the tzdata package), a file or footer it does not
parse exactly as zoneinfo would.
"""

from __future__ import annotations

import os
import sys
from bisect import bisect_right
from datetime import datetime, timedelta, timezone, tzinfo

EPOCH_ORDINAL = 719_163  # date(1970, 1, 1).toordinal()


class ZoneFileError(ValueError):
    """A zone file or footer this reader does not take as zoneinfo would: ask zoneinfo."""


# ---- where zoneinfo looks ---------------------------------------------------------------------------


def zone_search_path(environ: dict[str, str] | os._Environ[str] | None = None) -> tuple[str, ...] | None:
    """zoneinfo's TZPATH (zoneinfo._tzpath.reset_tzpath), or None when it cannot be known cheaply.

    PYTHONTZPATH when set (every entry absolute: zoneinfo warns about and drops the others); else the
    interpreter's build-time TZPATH, as sysconfig.get_config_var reads it from the `_sysconfigdata`
    module, read here from that module's source text instead of importing sysconfig."""
    env = os.environ if environ is None else environ
    configured = env.get("PYTHONTZPATH")
    if configured is None:
        configured = _build_tzpath(env)
        if configured is None:
            return None
    if not configured:
        return None  # zoneinfo then reads the tzdata package only
    paths = tuple(configured.split(os.pathsep))
    return paths if all(os.path.isabs(path) for path in paths) else None


def _build_tzpath(env: dict[str, str] | os._Environ[str]) -> str | None:
    if "_PYTHON_SYSCONFIGDATA_NAME" in env:  # sysconfig would import the module it names
        return None
    multiarch = getattr(sys.implementation, "_multiarch", "")
    name = f"_sysconfigdata_{sys.abiflags}_{sys.platform}_{multiarch}.py"
    stdlib = os.path.dirname(os.__file__)
    # The module sysconfig imports is the first on sys.path: only the standard library's is read here.
    for entry in sys.path:
        folder = os.path.abspath(entry or os.curdir)
        if folder == stdlib:
            break
        if os.path.exists(os.path.join(folder, name)) or os.path.isfile(folder):
            return None  # another copy first, or a zip archive that may hold one
    else:
        return None  # the standard library is not on sys.path: its import is not this file
    try:
        with open(os.path.join(stdlib, name), encoding="utf-8") as source:
            text = source.read()
    except (OSError, UnicodeDecodeError):
        return None
    # pprint writes the dict one item a line: ` 'TZPATH': '/usr/share/zoneinfo:...',`
    start = text.find("\n 'TZPATH': '")
    if start < 0 or text.find("'TZPATH'", start + 12) >= 0:
        return None
    start += len("\n 'TZPATH': '")
    end = text.find("',\n", start)
    value = text[start:end] if end >= 0 else ""
    if end < 0 or "'" in value or "\\" in value or "\n" in value:
        return None
    return value


def _valid_key(name: str) -> bool:
    """A key zoneinfo looks up as a plain relative path (its _validate_tzfile_path accepts it, and the
    same file is found): no empty, `.` or `..` part, no backslash or NUL."""
    if not name or name.startswith("/") or "\\" in name or "\0" in name:
        return False
    return all(part not in ("", ".", "..") for part in name.split("/"))


def load_zone(name: str, search_path: tuple[str, ...] | None) -> TzifZone | None:
    """The zone `name` from the first file of the search path zoneinfo would open, or None when unsure
    (no search path, an unusual key, no such file, a file or footer read differently): ask zoneinfo."""
    if search_path is None or not _valid_key(name):
        return None
    for folder in search_path:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            try:
                with open(path, "rb") as handle:
                    return TzifZone(name, handle.read())
            except (OSError, ValueError, IndexError):
                return None
    return None


# ---- the file ----------------------------------------------------------------------------------------


def _header(data: bytes, at: int) -> tuple[int, list[int]]:
    """(version, [isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt]) of the header at `at`."""
    if data[at : at + 4] != b"TZif":
        raise ZoneFileError("Invalid TZif file: magic not found")
    version_byte = data[at + 4 : at + 5]
    if version_byte == b"\x00":
        version = 1
    elif version_byte in (b"2", b"3", b"4"):
        version = int(version_byte)
    else:
        raise ZoneFileError("unknown TZif version")
    counts = [int.from_bytes(data[at + 20 + 4 * i : at + 24 + 4 * i], "big", signed=True) for i in range(6)]
    if min(counts) < 0 or len(data) < at + 44:
        raise ZoneFileError("truncated TZif header")
    return version, counts


def _signed(data: bytes, at: int, size: int) -> int:
    return int.from_bytes(data[at : at + size], "big", signed=True)


class TzifZone(tzinfo):
    """An IANA zone from its TZif bytes: zoneinfo.ZoneInfo's offsets, instant by instant.

    `fromutc` (what `datetime.fromtimestamp(t, zone)` and `astimezone(zone)` call) gives the wall time
    and fold ZoneInfo gives, carrying the offset in force as a fixed `datetime.timezone` named by its
    abbreviation: formatting it (`isoformat`) then never asks the zone again, at C speed. `utcoffset`
    and `tzname` of a wall time in this zone follow ZoneInfo's rules for gaps and folds; `dst` is not
    inferred (None).
    """

    def __init__(self, key: str, data: bytes) -> None:
        version, (isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt) = _header(data, 0)
        at = 44
        time_size = 4
        if version >= 2:  # skip the version 1 block: the 64-bit data follows it
            at += timecnt * 5 + typecnt * 6 + charcnt + leapcnt * 8 + isstdcnt + isutcnt
            version, (isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt) = _header(data, at)
            at += 44
            time_size = 8
        if len(data) < at + timecnt * (time_size + 1) + typecnt * 6 + charcnt:
            raise ZoneFileError("truncated TZif data")
        trans_utc = [_signed(data, at + i * time_size, time_size) for i in range(timecnt)]
        at += timecnt * time_size
        trans_idx = list(data[at : at + timecnt])
        at += timecnt
        utcoff = [_signed(data, at + 6 * i, 4) for i in range(typecnt)]
        isdst = [data[at + 6 * i + 4] for i in range(typecnt)]
        abbrind = [data[at + 6 * i + 5] for i in range(typecnt)]
        at += typecnt * 6
        chars = data[at : at + charcnt]
        at += charcnt
        if len(chars) != charcnt or any(index >= typecnt for index in trans_idx):
            raise ZoneFileError("truncated TZif data")
        abbr = [chars[index : chars.find(b"\x00", index)].decode() for index in abbrind]
        tz_str = None
        if version >= 2:
            at += isutcnt + isstdcnt + leapcnt * 12
            end = data.find(b"\n", at + 1)
            if data[at : at + 1] != b"\n" or end < 0:
                raise ZoneFileError("no TZ string footer")
            tz_str = data[at + 1 : end]

        types = [_fixed(seconds, name) for seconds, name in zip(utcoff, abbr, strict=True)]
        self.key = key
        self._trans_utc = trans_utc
        self._ttinfos = [types[index] for index in trans_idx]
        self._trans_local = _ts_to_local(trans_idx, trans_utc, utcoff)
        # The first standard type, else the first type (not the first transition's, as the pure-Python
        # zoneinfo has it: the C one, which ZoneInfo is, is followed throughout).
        self._tti_before = next(
            (types[i] for i in range(typecnt) if not isdst[i]), types[0] if types else None
        )
        # After the last transition: the footer's rule or fixed type; without a footer, the last
        # transition's type (or the last type).
        self._tz_after: timezone | FooterRule
        if tz_str:
            self._tz_after = parse_footer(tz_str.decode())
        elif types:
            self._tz_after = self._ttinfos[-1] if self._ttinfos else types[-1]
        else:
            raise ZoneFileError("No time zone information found.")
        self._fixed = (
            len(types) <= 1
            and isinstance(self._tz_after, timezone)
            and (not types or types[0] == self._tz_after)
        )

    def __repr__(self) -> str:
        return f"TzifZone({self.key!r})"

    def __str__(self) -> str:
        return self.key

    def fromutc(self, dt: datetime) -> datetime:
        """ZoneInfo.fromutc (the C implementation's, Modules/_zoneinfo.c): the wall time of the UTC time
        `dt`, fold 1 in a repeated hour."""
        if not isinstance(dt, datetime) or dt.tzinfo is not self:
            raise ValueError("fromutc: dt.tzinfo is not self")
        timestamp = (dt.toordinal() - EPOCH_ORDINAL) * 86400 + dt.hour * 3600 + dt.minute * 60 + dt.second
        trans = self._trans_utc
        num_trans = len(trans)
        if num_trans and timestamp < trans[0]:
            tti, fold = self._tti_before, False
        elif not num_trans or timestamp > trans[-1]:
            after = self._tz_after
            tti, fold = after.at_utc(timestamp, dt.year) if isinstance(after, FooterRule) else (after, False)
            if num_trans:
                # Just after the last transition the repeated hour is between the type before it and
                # the one after it, whatever the footer's rule says.
                tti_prev = self._tti_before if num_trans == 1 else self._ttinfos[-2]
                assert tti_prev is not None  # a transition has a type
                diff = _seconds(tti_prev) - _seconds(tti)
                if diff > 0 and timestamp < trans[-1] + diff:
                    fold = True
        else:
            idx = bisect_right(trans, timestamp)
            if idx >= 2:
                tti_prev, tti = self._ttinfos[idx - 2], self._ttinfos[idx - 1]
            else:
                assert self._tti_before is not None
                tti_prev, tti = self._tti_before, self._ttinfos[0]
            fold = _seconds(tti_prev) - _seconds(tti) > timestamp - trans[idx - 1]
        assert tti is not None
        local = dt.replace(tzinfo=tti) + tti.utcoffset(None)
        return local.replace(fold=1) if fold else local

    def _find(self, dt: datetime | None) -> timezone | None:
        """zoneinfo's _find_trans: the type in force at the wall time `dt` (its fold chooses in a gap
        or a repeated hour)."""
        if dt is None:
            return self._tz_after if self._fixed and isinstance(self._tz_after, timezone) else None
        ts = (dt.toordinal() - EPOCH_ORDINAL) * 86400 + dt.hour * 3600 + dt.minute * 60 + dt.second
        local = self._trans_local[dt.fold]
        if local and ts < local[0]:
            return self._tti_before
        if not local or ts > local[-1]:
            after = self._tz_after
            return after.at_wall(ts, dt.year, dt.fold) if isinstance(after, FooterRule) else after
        return self._ttinfos[bisect_right(local, ts) - 1]

    def utcoffset(self, dt: datetime | None) -> timedelta | None:
        found = self._find(dt)
        return None if found is None else found.utcoffset(None)

    def tzname(self, dt: datetime | None) -> str | None:
        found = self._find(dt)
        return None if found is None else found.tzname(None)

    def dst(self, dt: datetime | None) -> timedelta | None:
        return None


_FIXED: dict[tuple[int, str], timezone] = {}


def _fixed(seconds: int, name: str) -> timezone:
    """One `datetime.timezone` per (offset, abbreviation); ValueError past +-24 hours."""
    key = (seconds, name)
    found = _FIXED.get(key)
    if found is None:
        found = _FIXED[key] = timezone(timedelta(seconds=seconds), name)
    return found


def _seconds(zone: timezone) -> int:
    offset = zone.utcoffset(None)
    return offset.days * 86400 + offset.seconds


def _ts_to_local(
    trans_idx: list[int], trans_utc: list[int], utcoff: list[int]
) -> tuple[list[int], list[int]]:
    """zoneinfo's _ts_to_local: each transition as local seconds, for fold 0 (the larger offset of the
    two around it) and fold 1 (the smaller)."""
    if not trans_utc:
        return [], []
    wall = (list(trans_utc), list(trans_utc))
    if len(utcoff) > 1:
        offset_0, offset_1 = utcoff[0], utcoff[trans_idx[0]]
        if offset_1 > offset_0:
            offset_1, offset_0 = offset_0, offset_1
    else:
        offset_0 = offset_1 = utcoff[0]
    wall[0][0] += offset_0
    wall[1][0] += offset_1
    for i in range(1, len(trans_idx)):
        offset_0, offset_1 = utcoff[trans_idx[i - 1]], utcoff[trans_idx[i]]
        if offset_1 > offset_0:
            offset_1, offset_0 = offset_0, offset_1
        wall[0][i] += offset_0
        wall[1][i] += offset_1
    return wall


# ---- the POSIX TZ footer -----------------------------------------------------------------------------

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
        return _fixed(std_offset, std)
    dst, at = _name(head, at)
    dst_clock, at = _clock(head, at)
    if at != len(head) or len(rules) != 2:
        raise ZoneFileError(f"TZ string not read here: {text}")
    dst_offset = std_offset + 3600 if dst_clock is None else -_hms(dst_clock, 24)
    return FooterRule(
        _fixed(std_offset, std),
        _fixed(dst_offset, dst),
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
        start = _rule_epoch(self.start, year) - _seconds(self.std)
        end = _rule_epoch(self.end, year) - _seconds(self.dst)
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
