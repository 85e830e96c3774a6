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

from memwarm_cli.datetime_types import datetime, timedelta, timezone, tzinfo
from memwarm_cli.safe_files import FileTooLargeError, NotRegularFileError, read_bounded
from memwarm_cli.startup.tz_footer import (
    EPOCH_ORDINAL,
    FooterRule,
    ZoneFileError,
    fixed_type,
    parse_footer,
    type_seconds,
)

# typing.TYPE_CHECKING without importing typing, which costs every start ~2.5 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping


# ---- where zoneinfo looks ---------------------------------------------------------------------------


def zone_search_path(environ: Mapping[str, str] | None = None) -> tuple[str, ...] | None:
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


def _build_tzpath(env: Mapping[str, str]) -> str | None:
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
        text = read_bounded(os.path.join(stdlib, name), _MAX_FILE_BYTES)[0].decode()
    except (OSError, UnicodeDecodeError, NotRegularFileError, FileTooLargeError):
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


# A zone file is a few kilobytes, the sysconfig data some 40 KB: anything larger is left to zoneinfo.
_MAX_FILE_BYTES = 1 << 20


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
                return TzifZone(name, read_bounded(path, _MAX_FILE_BYTES)[0])
            except (OSError, ValueError, IndexError, NotRegularFileError, FileTooLargeError):
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

        types = [fixed_type(seconds, name) for seconds, name in zip(utcoff, abbr, strict=True)]
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
                diff = type_seconds(tti_prev) - type_seconds(tti)
                if diff > 0 and timestamp < trans[-1] + diff:
                    fold = True
        else:
            idx = bisect_right(trans, timestamp)
            if idx >= 2:
                tti_prev, tti = self._ttinfos[idx - 2], self._ttinfos[idx - 1]
            else:
                assert self._tti_before is not None
                tti_prev, tti = self._tti_before, self._ttinfos[0]
            fold = type_seconds(tti_prev) - type_seconds(tti) > timestamp - trans[idx - 1]
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
