"""`scan --all`'s extra rows, found by bisecting the sorted listing (listed_notes.py), are exactly those a
name-by-name classification finds, in the same order, on odd names; and the JSON lines a run writes from
one template are the stdlib's JSON of each of its rows."""

from __future__ import annotations

from datetime import date
from itertools import pairwise

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarm_cli.startup.file_rows import Status
from memwarm_cli.startup.listed_notes import ListedRun, is_date_stamp, listed_runs
from memwarm_cli.startup.scan_record import file_record, listed_json_lines
from tests.startup.test_scan_record import ZONE, stdlib_json

WINDOW = {"2026-04-10", "2026-04-11"}
Row = tuple[str, str, str | None, Status]


def one_by_one(names: list[str], window: set[str]) -> list[Row]:
    """The rows name by name, as memwarm classified them before runs: every `*.md` but the window's
    daily and slugged notes, sorted, each judged by its own stamp."""
    others = []
    for name in names:
        stamp = name[:10]
        if not name.endswith(".md"):
            continue
        if stamp in window and (name == stamp + ".md" or name.startswith(stamp + "-")):
            continue  # the window's own rows
        others.append(name)
    rows: list[Row] = []
    for name in sorted(others):
        stamp = name[:10]
        dated = len(stamp) == 10 and stamp[4] == stamp[7] == "-" and _real_date(stamp)
        if dated and name == stamp + ".md":
            rows.append((stamp, name, "daily", Status.OUTSIDE_WINDOW))
        elif dated and name.startswith(stamp + "-"):
            rows.append((stamp, name, "slugged", Status.OUTSIDE_WINDOW))
        else:
            rows.append(("", name, None, Status.NAME_MISMATCH))
    return rows


def _real_date(stamp: str) -> bool:
    if not all(stamp[i].isascii() and stamp[i].isdigit() for i in (0, 1, 2, 3, 5, 6, 8, 9)):
        return False
    try:
        date(int(stamp[:4]), int(stamp[5:7]), int(stamp[8:]))
    except ValueError:
        return False
    return True


def by_runs(names: list[str], window: set[str]) -> list[Row]:
    runs = listed_runs(sorted(names), window)
    for before, after in pairwise(runs):  # runs are maximal
        assert (before.stamp, before.kind, before.status) != (after.stamp, after.kind, after.status)
    return [(row.stamp, row.name, row.kind, row.status) for run in runs for row in run.rows()]


STAMPS = ["2026-04-11", "2026-04-10", "2026-01-05", "2025-12-31", "2026-02-30", "2026-W01-1", "2026-1-05-"]
STAMPS += ["0000-01-01", "9999-12-31", "２０２６-01-05", "abcdefghij", "2026-04-1", "20260411", ""]
MIDDLES = ["", "-", "-note", "-.", ".", " ", "_x", "x", "-\U0010ffff", "\U0010ffff", "-😀", "-\udce9", "\t"]
ENDS = [".md", ".md.md", ".MD", ".md.bak", "", ".txt", "md"]
NAME = st.builds(
    lambda a, b, c: a + b + c, st.sampled_from(STAMPS), st.sampled_from(MIDDLES), st.sampled_from(ENDS)
)
ANY_NAME = st.one_of(NAME, st.text(min_size=1, max_size=14).map(lambda text: text + ".md"))


@settings(max_examples=300, deadline=None)
@given(st.sets(st.one_of(NAME, ANY_NAME), max_size=40), st.sets(st.sampled_from(STAMPS[:5]), max_size=3))
def test_runs_list_what_a_name_by_name_classification_lists(names: set[str], window: set[str]) -> None:
    names.discard("")
    assert by_runs(list(names), window) == one_by_one(list(names), window)


def test_a_big_listing_of_notes_makes_two_runs_a_day() -> None:
    days = [f"2025-{month:02d}-{day:02d}" for month in (1, 2) for day in range(1, 29)]
    names = [f"{stamp}-note-{i:03d}.md" for stamp in days for i in range(50)] + [f"{s}.md" for s in days]
    names += ["README.md", "notes.txt", "2025-01-01-draft.txt"]
    runs = listed_runs(sorted(names), WINDOW)
    assert len(runs) == 2 * len(days) + 1  # the misnamed README is the last run
    assert by_runs(names, WINDOW) == one_by_one(names, WINDOW)


def test_the_date_stamp_is_strict() -> None:
    assert is_date_stamp("2026-01-05") and is_date_stamp("2024-02-29")
    for stamp in ("2026-02-30", "2026-W01-1", "2026-1-05-", "２０２６-01-05", "2025-02-29", "20260105.."):
        assert not is_date_stamp(stamp), stamp


def test_a_runs_json_lines_are_the_stdlib_json_of_its_rows() -> None:
    plain = ["2025-01-01-a.md", "2025-01-01-B_2.md", "2025-01-01-x-y.z.md"]
    odd = [
        *plain,
        "2025-01-01-with space.md",
        '2025-01-01-"q".md',
        "2025-01-01-\\.md",
        "2025-01-01-\udce9.md",
    ]
    odd += ["2025-01-01-\u202e.md", "2025-01-01-\x1b[31m.md", "2025-01-01-😀.md"]
    for run in (
        ListedRun("2025-01-01", "slugged", Status.OUTSIDE_WINDOW, plain),
        ListedRun("2025-01-01", "slugged", Status.OUTSIDE_WINDOW, odd),
        ListedRun("2025-01-01", "daily", Status.OUTSIDE_WINDOW, ["2025-01-01.md"]),
        ListedRun("", None, Status.NAME_MISMATCH, ["README.md", " lead.md", "a\nb.md"]),
    ):
        assert listed_json_lines(run, ZONE) == [stdlib_json(file_record(row, ZONE)) for row in run.rows()]
