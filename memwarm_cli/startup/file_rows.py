"""The startup plan's rows: what one file of memory/ is, and the fixed status vocabulary `scan` shows.

The plan (plan.py) makes them; `scan --all`'s listing (listed_notes.py) makes rows of its own; the views
read them. Apart from the plan, so that both makers import it and neither imports the other.
"""

from __future__ import annotations

from enum import StrEnum

from memwarm_cli.frozen_records import mutable_record, record
from memwarm_cli.startup.text import sanitize_label

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    Clock = Literal["local", "utc", "both"]
    Kind = Literal["daily", "slugged"]


class Status(StrEnum):
    """The fixed status vocabulary of `scan` (documented in the README)."""

    INCLUDED = "included"
    TRUNCATED = "truncated"
    SHRUNK = "shrunk"
    BUDGET_EXHAUSTED = "budget-exhausted"
    EMPTY = "empty"
    MISSING = "missing"
    OVERSIZE = "oversize"
    SYMLINK_ESCAPE = "symlink-escape"
    SYMLINK_REFUSED = "symlink-refused"
    HARDLINK = "hardlink"
    NOT_REGULAR = "not-regular"
    SLUG_CAP = "slug-cap"
    SLUG_SYMLINK = "slug-symlink"
    VANISHED = "vanished"
    UNREADABLE = "unreadable"
    OUTSIDE_WINDOW = "outside-window"
    NAME_MISMATCH = "name-mismatch"

    @property
    def description(self) -> str:
        return STATUS_DESCRIPTIONS[self]

    @property
    def included(self) -> bool:
        return self in (Status.INCLUDED, Status.TRUNCATED, Status.SHRUNK)


STATUS_DESCRIPTIONS: dict[Status, str] = {
    Status.INCLUDED: "included",
    Status.TRUNCATED: "included, truncated to maxFileChars",
    Status.SHRUNK: "included, shrunk to fit maxTotalChars",
    Status.BUDGET_EXHAUSTED: "not included, total budget exhausted",
    Status.EMPTY: "empty or whitespace only",
    Status.MISSING: "missing",
    Status.OVERSIZE: "larger than maxFileBytes",
    Status.SYMLINK_ESCAPE: "symlink escaping the workspace",
    Status.SYMLINK_REFUSED: "symlink on the path (refused from OpenClaw 2026.8.1)",
    Status.HARDLINK: "hardlink (more than one link)",
    Status.NOT_REGULAR: "not a regular file",
    Status.SLUG_CAP: "slugged file past the four-per-day cap",
    Status.SLUG_SYMLINK: "slugged symlink (never read)",
    Status.VANISHED: "vanished between listing and stat",
    Status.UNREADABLE: "unreadable",
    Status.OUTSIDE_WINDOW: "outside the date window",
    Status.NAME_MISMATCH: "name is not YYYY-MM-DD.md or YYYY-MM-DD-<slug>.md",
}


@record
class WindowDay:
    stamp: str  # YYYY-MM-DD
    clock: Clock  # which clock's window produced it


@mutable_record
class FileRow:
    """One file the prelude considered (or, with `--all`, one it did not), and what happened to it."""

    stamp: str
    clock: Clock | None
    name: str  # the raw file name in memory/
    kind: Kind | None
    status: Status
    detail: str | None = None
    size: int | None = None
    mtime_ms: float | None = None
    chars_read: int | None = None  # UTF-16 units of the decoded file
    chars_trimmed: int | None = None  # after JS trim
    chars_capped: int | None = None  # after the maxFileChars cut (marker included)
    block_chars: int | None = None  # the block placed in the prelude
    block: str | None = None
    candidate: bool = True  # False for rows the prelude never reads (cap, symlinks, --all extras)

    @property
    def relative_path(self) -> str:
        return f"memory/{self.name}"

    @property
    def label(self) -> str:
        return sanitize_label(self.relative_path)
