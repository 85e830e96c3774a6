"""`scan --all`'s extra rows: every other `*.md` in memory/, known from the directory listing alone.

The prelude never reads these notes, so memwarm does not stat them either: a row holds what the listing
saw, a name, and what the name says (a dated note outside the window, or a name that is not a note's).
On 100k notes they are nearly all of `scan --all`'s rows, so they are kept as runs: consecutive names (in
name order) sharing a stamp, a kind and a status. A sorted listing puts each stamp's names together, and
within them the slugged `<stamp>-*` before `<stamp>.md`, so a day of notes is classified by two bisections
and one filter instead of one Python step per name; a row becomes an object only when a view asks for it
(the JSON view never does: scan_record.py writes a run's lines from one template).
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Set
from typing import TYPE_CHECKING, NamedTuple

from memwarm_cli.datetime_types import date
from memwarm_cli.startup.file_rows import FileRow, Status

if TYPE_CHECKING:
    from memwarm_cli.startup.file_rows import Kind


class ListedRow(FileRow):
    """A row known only from the listing: the fields not set keep FileRow's defaults.

    Half the cost of the dataclass's own __init__, which assigns all fourteen fields.
    """

    def __init__(self, stamp: str, name: str, kind: Kind | None, status: Status) -> None:
        self.stamp, self.clock, self.name, self.kind, self.status = stamp, None, name, kind, status
        self.candidate = False


class ListedRun(NamedTuple):
    """Consecutive `--all` rows that differ only by name (`stamp` is "" for a name mismatch)."""

    stamp: str
    kind: Kind | None
    status: Status
    names: list[str]

    def rows(self) -> list[FileRow]:
        return [ListedRow(self.stamp, name, self.kind, self.status) for name in self.names]


STAMP_LENGTH = len("YYYY-MM-DD")
_DATE_STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def is_date_stamp(stamp: str) -> bool:
    """A real `YYYY-MM-DD` date (date.fromisoformat alone also takes ISO week dates: `2026-W01-1`)."""
    if not _DATE_STAMP.fullmatch(stamp):
        return False
    try:
        date.fromisoformat(stamp)
    except ValueError:
        return False
    return True


class _Runs:
    def __init__(self) -> None:
        self.runs: list[ListedRun] = []

    def add(self, stamp: str, kind: Kind | None, status: Status, names: list[str]) -> None:
        if not names:
            return
        runs = self.runs
        if runs and runs[-1].stamp == stamp and runs[-1].kind == kind and runs[-1].status is status:
            runs[-1].names.extend(names)
        else:
            runs.append(ListedRun(stamp, kind, status, names))

    def mismatch(self, names: list[str]) -> None:
        self.add("", None, Status.NAME_MISMATCH, [name for name in names if name.endswith(".md")])


def listed_runs(names: list[str], window: Set[str]) -> list[ListedRun]:
    """The runs for a sorted listing: every `*.md` name but the window's daily and slugged notes (their
    rows are the prelude's own), classified as `name-mismatch` or, with a real date stamp, as a daily
    or slugged note `outside-window`."""
    runs = _Runs()
    index, end = 0, len(names)
    while index < end:
        name = names[index]
        stamp = name[:STAMP_LENGTH]
        if len(stamp) < STAMP_LENGTH:  # shorter than a stamp: never a note's name
            runs.mismatch([name])
            index += 1
            continue
        if index + 1 < end and names[index + 1].startswith(stamp):
            stop = _end_of_prefix(names, stamp, index)
            group = names[index:stop]
        else:  # a stamp of one name: most misnamed notes (no bisecting for them)
            stop = index + 1
            group = [name]
        index = stop
        in_window = stamp in window
        if not (in_window or is_date_stamp(stamp)):
            runs.mismatch(group)
            continue
        slugged = bisect_left(group, stamp + "-")
        after = bisect_left(group, stamp + ".", slugged)  # `<stamp>.md` and the rest sort after
        runs.mismatch(group[:slugged])
        if not in_window:
            notes = [name for name in group[slugged:after] if name.endswith(".md")]
            runs.add(stamp, "slugged", Status.OUTSIDE_WINDOW, notes)
        daily = stamp + ".md"
        for name in group[after:]:
            if name == daily:
                if not in_window:
                    runs.add(stamp, "daily", Status.OUTSIDE_WINDOW, [name])
            else:
                runs.mismatch([name])
    return runs.runs


def _end_of_prefix(names: list[str], prefix: str, start: int) -> int:
    """The index after the last name starting with `prefix` (names sorted, names[start] one of them)."""
    last = ord(prefix[-1])
    if last < 0x10FFFF:
        return bisect_left(names, prefix[:-1] + chr(last + 1), start + 1)
    stop = start + 1
    while stop < len(names) and names[stop].startswith(prefix):
        stop += 1
    return stop
