"""startup/tzif.py against zoneinfo: for EVERY zone of the system, the same UTC offset, wall time, fold and
abbreviation at instants across the whole range (LMT, every transition of the file and the seconds around
it, and 2037-2100 where only the TZ footer's rule applies), and the same offset for wall times in gaps and
repeated hours, both folds. Then the cases it leaves to zoneinfo."""

from __future__ import annotations

import os
import zoneinfo
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path

import pytest

from memwarm_cli.startup.prelude_settings import lookup_zone
from memwarm_cli.startup.tz_footer import FooterRule, _rule_epoch
from memwarm_cli.startup.tzif import TzifZone, load_zone, zone_search_path

SEARCH_PATH = zone_search_path()
ZONES = sorted(zoneinfo.available_timezones())
YEAR_SECONDS = 365 * 86400
GRID = range(-4_000_000_000, 4_200_000_000, 97 * 86400 + 3601)  # 1843-2103, every 97 days and an hour


def test_the_search_path_is_zoneinfos() -> None:
    assert SEARCH_PATH == zoneinfo.TZPATH


def _instants(zone: TzifZone) -> list[int]:
    moments = set(GRID)
    for moment in zone._trans_utc:
        if -50 * YEAR_SECONDS * 100 < moment < 250 * YEAR_SECONDS:
            moments.update(moment + delta for delta in (-3601, -1, 0, 1, 3600))
    after = zone._tz_after
    if isinstance(after, FooterRule):
        for year in range(2037, 2101, 2):
            for rule, offset in ((after.start, after.std), (after.end, after.dst)):
                moment = _rule_epoch(rule, year) - int(offset.utcoffset(None).total_seconds())
                moments.update(moment + delta for delta in (-1, 0, 1, 3599, 3600))
    return sorted(moments)


def _at(moment: int, tz: tzinfo) -> tuple[object, ...]:
    try:
        local = datetime.fromtimestamp(moment, tz)
    except (OverflowError, OSError, ValueError) as error:
        return (type(error).__name__,)
    return local.replace(tzinfo=None), local.fold, local.utcoffset(), local.tzname(), local.isoformat()


@pytest.mark.parametrize("chunk", range(8))
def test_every_zone_agrees_with_zoneinfo(chunk: int) -> None:
    checked = 0
    for name in ZONES[chunk::8]:
        zone = load_zone(name, SEARCH_PATH)
        if zone is None:  # only a zone of the tzdata package, not in the system's files
            assert not any(os.path.isfile(os.path.join(folder, name)) for folder in zoneinfo.TZPATH), name
            continue
        reference = zoneinfo.ZoneInfo(name)
        for index, moment in enumerate(_instants(zone)):
            assert _at(moment, zone) == _at(moment, reference), (name, moment)
            # the date window's path (clock.date_stamp): astimezone from UTC, the same fromutc
            if index % 7 == 0 and -62_000_000_000 < moment < 253_000_000_000:
                utc = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(seconds=moment)
                ours, theirs = utc.astimezone(zone), utc.astimezone(reference)
                assert (ours.date(), ours.utcoffset()) == (theirs.date(), theirs.utcoffset()), (name, moment)
        for moment in zone._trans_utc[-12:] + list(range(2_000_000_000, 4_100_000_000, 94_608_000)):
            for delta in (-3600, -1, 0, 1800, 3600, 7200):
                wall = datetime(1970, 1, 1) + timedelta(seconds=moment + delta)
                for fold in (0, 1):
                    ours_wall = wall.replace(tzinfo=zone, fold=fold)
                    theirs_wall = wall.replace(tzinfo=reference, fold=fold)
                    assert ours_wall.utcoffset() == theirs_wall.utcoffset(), (name, wall, fold)
                    assert ours_wall.tzname() == theirs_wall.tzname(), (name, wall, fold)
        checked += 1
    assert checked >= len(ZONES[chunk::8]) * 0.9


def test_lookup_zone_reads_the_file_itself_and_keeps_its_other_answers() -> None:
    assert isinstance(lookup_zone("America/Chicago"), TzifZone)
    assert lookup_zone("america/chicago") is not None  # case-insensitive, as ICU
    assert lookup_zone("+05:30") is not None and lookup_zone("+05:30").utcoffset(None) == timedelta(hours=5.5)  # type: ignore[union-attr]
    assert lookup_zone("Mars/Olympus") is None
    assert lookup_zone("posixrules") is None


@pytest.mark.parametrize("value", ["", "relative/dir", f"/usr/share/zoneinfo{os.pathsep}relative"])
def test_a_pythontzpath_it_would_not_read_as_zoneinfo_does(value: str) -> None:
    assert zone_search_path({"PYTHONTZPATH": value}) is None  # zoneinfo decides


def test_pythontzpath_is_the_search_path(tmp_path: Path) -> None:
    assert zone_search_path({"PYTHONTZPATH": f"{tmp_path}{os.pathsep}/usr/share/zoneinfo"}) == (
        str(tmp_path),
        "/usr/share/zoneinfo",
    )
    assert zone_search_path({"_PYTHON_SYSCONFIGDATA_NAME": "_sysconfigdata_other"}) is None


@pytest.mark.parametrize(
    "name", ["../etc/passwd", "America//Chicago", "/etc/localtime", "America/./Chicago", ""]
)
def test_keys_zoneinfo_would_refuse_or_normalise_go_to_zoneinfo(name: str) -> None:
    assert load_zone(name, SEARCH_PATH) is None


def test_odd_files_go_to_zoneinfo(tmp_path: Path) -> None:
    (tmp_path / "Not_TZif").write_bytes(b"hello, world\n")
    (tmp_path / "Truncated").write_bytes(Path(zoneinfo.TZPATH[0], "America", "Chicago").read_bytes()[:300])
    (tmp_path / "Dir").mkdir()
    for name in ("Not_TZif", "Truncated", "Dir", "Missing"):
        assert load_zone(name, (str(tmp_path),)) is None, name


def test_a_zone_only_the_first_folder_has(tmp_path: Path) -> None:
    source = Path(zoneinfo.TZPATH[0], "Asia", "Tokyo").read_bytes()
    (tmp_path / "Asia").mkdir()
    (tmp_path / "Asia" / "Chicago").write_bytes(source)  # a Tokyo under another name, found first
    zone = load_zone("Asia/Chicago", (str(tmp_path), zoneinfo.TZPATH[0]))
    assert zone is not None and datetime(2026, 1, 1, tzinfo=zone).utcoffset() == timedelta(hours=9)
