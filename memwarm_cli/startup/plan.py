"""The one startup-context pipeline: window, candidates, reading, trimming and fitting, computed once.

`prelude` prints `plan.prelude`; `scan` renders `plan.rows` and the summary. Both present the same plan,
so they cannot disagree. Reference: OpenClaw `startup-context.ts` (V3; see the spec).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping

from memwarm_cli.boundary_read import ReadFailure, read_workspace_file
from memwarm_cli.datetime_types import tzinfo
from memwarm_cli.frozen_records import field, mutable_record
from memwarm_cli.jsstring import js_length, js_trim
from memwarm_cli.profiles.releases import Profile
from memwarm_cli.startup.clock import window_stamps
from memwarm_cli.startup.file_rows import FileRow, Status, WindowDay
from memwarm_cli.startup.prelude_settings import (
    SLUGGED_FILES_PER_DAY,
    StartupSettings,
    resolve_startup_settings,
)
from memwarm_cli.startup.text import (
    ADDITIONAL_TRUNCATED_MARKER,
    fit_block,
    render_prelude,
    trim_content,
)

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memwarm_cli.startup.listed_notes import ListedRun

_READ_FAILURE_STATUS = {
    ReadFailure.MISSING: Status.MISSING,
    ReadFailure.SYMLINK_ESCAPE: Status.SYMLINK_ESCAPE,
    ReadFailure.SYMLINK_REFUSED: Status.SYMLINK_REFUSED,
    ReadFailure.NOT_REGULAR: Status.NOT_REGULAR,
    ReadFailure.HARDLINK: Status.HARDLINK,
    ReadFailure.OVERSIZE: Status.OVERSIZE,
    ReadFailure.UNREADABLE: Status.UNREADABLE,
}


@mutable_record
class StartupPlan:
    workspace: str
    at_ms: int
    settings: StartupSettings
    profile: Profile  # the OpenClaw release group whose rules made the plan
    local_date: str
    utc_date: str
    window: list[WindowDay]
    window_rows: list[FileRow]  # the window's files: candidates, past the cap, skipped
    sections: list[str] = field(default_factory=list)
    budget_used: int = 0
    marker_emitted: bool = False
    listing_error: str | None = None
    loaded_any: bool = False
    listed: list[ListedRun] = field(default_factory=list)  # `--all`'s other notes (listed_notes.py)
    _rows: list[FileRow] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def rows(self) -> list[FileRow]:
        """Every row, the window's first, then `--all`'s in name order (made once, when asked for)."""
        if self._rows is None:
            self._rows = [*self.window_rows, *(row for run in self.listed for row in run.rows())]
        return self._rows

    @property
    def prelude(self) -> str | None:
        """`buildSessionStartupContextPrelude`'s result: None when no file had content."""
        return render_prelude(self.sections) if self.loaded_any else None


# ---- date window -------------------------------------------------------------------------------


def build_window(at_ms: int, tz: tzinfo, days: int) -> tuple[str, str, list[WindowDay]]:
    """V3 `buildStartupMemoryDateStamps`: the local window, plus UTC's date when it falls outside it.

    UsageError when a date of the window would fall outside the years 1000 to 9999, in any zone.
    """
    local, utc, local_window = window_stamps(at_ms, tz, days)
    if utc == local or utc in local_window:
        window = [WindowDay(s, "both" if s == utc else "local") for s in local_window]
    elif utc > local:
        window = [WindowDay(utc, "utc"), *(WindowDay(s, "local") for s in local_window)]
    else:
        window = [*(WindowDay(s, "local") for s in local_window), WindowDay(utc, "utc")]
    seen: set[str] = set()
    unique = [d for d in window if not (d.stamp in seen or seen.add(d.stamp))]  # type: ignore[func-returns-value]
    return local, utc, unique


# ---- listing -----------------------------------------------------------------------------------


@mutable_record
class _Listing:
    slugged: dict[str, list[tuple[str, float]]]  # stamp -> [(name, mtime_ms)], regular files that stat-ed
    ignored: dict[str, list[tuple[str, Status]]]  # stamp -> slugged-looking names the prelude skips
    listed: list[ListedRun]  # every other *.md name (for --all)
    error: str | None


def _is_slugged_name(name: str, stamp: str) -> bool:
    """`YYYY-MM-DD-<slug>.md` for `stamp` (case-sensitive); `2026-04-11-.md` qualifies, as upstream."""
    return name.endswith(".md") and name != stamp + ".md" and name.startswith(stamp + "-")


def _node_can_name(name: str) -> bool:
    """Node decodes directory entries as UTF-8 with U+FFFD, so a name with invalid bytes cannot be stat-ed."""
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _list_memory_dir(memory_dir: str, stamps: set[str], include_others: bool) -> _Listing:
    """List memory/ once; lstat only the window's slugged candidates.

    Upstream keeps `Dirent.isFile()` entries, then stats them (following links). For an entry that is a
    regular file the lstat result is that stat, so one lstat per candidate answers both questions.
    """
    listing = _Listing({s: [] for s in stamps}, {s: [] for s in stamps}, [], None)
    try:
        names = os.listdir(memory_dir)
    except OSError as exc:
        listing.error = exc.strerror or str(exc)
        return listing
    prefix = os.path.join(memory_dir, "")  # join once; per-name os.path.join cost ~4 us x thousands
    for name in [n for n in names if n[:10] in stamps]:  # in listing order, as upstream reads them
        stamp = name[:10]
        if not _is_slugged_name(name, stamp):
            continue
        if not _node_can_name(name):
            listing.ignored[stamp].append((name, Status.VANISHED))
            continue
        try:
            st = os.lstat(prefix + name)
        except OSError:
            listing.ignored[stamp].append((name, Status.VANISHED))
            continue
        if stat.S_ISREG(st.st_mode):
            listing.slugged[stamp].append((name, st.st_mtime_ns / 1e6))
        else:
            kind = Status.SLUG_SYMLINK if stat.S_ISLNK(st.st_mode) else Status.NOT_REGULAR
            listing.ignored[stamp].append((name, kind))
    if include_others:
        from memwarm_cli.startup.listed_notes import listed_runs  # only `scan --all` lists the others

        listing.listed = listed_runs(sorted(names), stamps)
    return listing


# ICU root collation, approximated: whitespace < punctuation (in ICU's order) < digits < letters
# (case-insensitive first, lowercase before uppercase). Only used to break exact mtime ties.
_ICU_PUNCTUATION = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"


def _collation_key(name: str) -> tuple[tuple[tuple[int, int | str], ...], tuple[bool, ...]]:
    import unicodedata  # only on mtime ties: keep it off the start-up path

    primary: list[tuple[int, int | str]] = []
    for ch in unicodedata.normalize("NFD", name):
        if unicodedata.combining(ch):
            continue
        if ch.isspace():
            primary.append((0, ord(ch)))
        elif ch in _ICU_PUNCTUATION:
            primary.append((1, _ICU_PUNCTUATION.index(ch)))
        elif ch.isdigit():
            primary.append((2, ord(ch)))
        elif ch.isalpha():
            primary.append((3, ch.casefold()))
        else:
            primary.append((4, ord(ch)))
    return tuple(primary), tuple(ch.isupper() for ch in name)


def _rank_slugged(names: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """mtime descending, then descending `localeCompare` (stable); collation is paid only on mtime ties."""
    if len({mtime for _, mtime in names}) == len(names):
        return sorted(names, key=lambda item: item[1], reverse=True)
    return sorted(names, key=lambda item: (item[1], _collation_key(item[0])), reverse=True)


# ---- the pipeline ------------------------------------------------------------------------------


def _read_row(workspace: str, row: FileRow, max_bytes: int, max_chars: int, profile: Profile) -> str | None:
    """Read one candidate; fill in its size and character counts. Returns the capped content to load."""
    outcome = read_workspace_file(
        workspace, row.relative_path, max_bytes, reject_symlinks=profile.refuse_symlinks
    )
    row.size = outcome.size if outcome.size is not None else row.size
    row.mtime_ms = outcome.mtime_ms if outcome.mtime_ms is not None else row.mtime_ms
    if outcome.content is None:
        row.status = _READ_FAILURE_STATUS[outcome.failure or ReadFailure.UNREADABLE]
        row.detail = outcome.detail
        return None
    row.chars_read = js_length(outcome.content)
    trimmed = js_trim(outcome.content)
    row.chars_trimmed = js_length(trimmed)
    if not trimmed:
        row.status = Status.EMPTY
        return None
    capped = trim_content(outcome.content, max_chars, profile.surrogate_safe_cuts)
    row.chars_capped = js_length(capped)
    row.status = Status.TRUNCATED if capped != trimmed else Status.INCLUDED
    return capped


def _fit_all(plan: StartupPlan, loaded: list[tuple[FileRow, str]]) -> None:
    max_total = plan.settings.max_total_chars.value
    stopped = False
    for row, content in loaded:
        if stopped:
            row.status = Status.BUDGET_EXHAUSTED
            continue
        fitted = fit_block(row.label, content, max_total - plan.budget_used, plan.profile.surrogate_safe_cuts)
        if fitted is None:
            if plan.sections:
                plan.sections.append(ADDITIONAL_TRUNCATED_MARKER)
                plan.marker_emitted = True
            row.status = Status.BUDGET_EXHAUSTED
            stopped = True
            continue
        if fitted.cut:
            row.status = Status.SHRUNK
        row.block = fitted.text
        row.block_chars = js_length(fitted.text)
        plan.sections.append(fitted.text)
        plan.budget_used += row.block_chars


def build_plan(
    workspace: str | os.PathLike[str],
    cfg: Mapping[str, Any] | None,
    at_ms: int,
    *,
    host_zone: str | None = None,
    include_others: bool = False,
    profile: Profile,
) -> StartupPlan:
    """Compute everything the prelude does for `workspace` at `at_ms` (epoch milliseconds), by the rules
    of `profile` (OpenClaw 2026.6.35's by default)."""
    settings = resolve_startup_settings(cfg, host_zone)
    workspace_dir = os.fspath(workspace)
    local, utc, window = build_window(at_ms, settings.timezone.tz, settings.daily_memory_days.value)
    stamps = {day.stamp for day in window}
    memory_dir = os.path.join(workspace_dir, "memory")
    listing = _list_memory_dir(memory_dir, stamps, include_others)
    plan = StartupPlan(
        workspace_dir, at_ms, settings, profile, local, utc, window, [], listing_error=listing.error
    )

    max_bytes = settings.max_file_bytes.value
    max_chars = settings.max_file_chars.value
    loaded: list[tuple[FileRow, str]] = []
    for day in window:
        ranked = _rank_slugged(listing.slugged[day.stamp])
        candidates = [FileRow(day.stamp, day.clock, f"{day.stamp}.md", "daily", Status.MISSING)]
        candidates += [
            FileRow(day.stamp, day.clock, name, "slugged", Status.MISSING, mtime_ms=mtime)
            for name, mtime in ranked[:SLUGGED_FILES_PER_DAY]
        ]
        for row in candidates:
            content = _read_row(workspace_dir, row, max_bytes, max_chars, profile)
            if content is not None:
                loaded.append((row, content))
        plan.window_rows += candidates
        plan.window_rows += [
            FileRow(day.stamp, day.clock, name, "slugged", Status.SLUG_CAP, mtime_ms=mtime, candidate=False)
            for name, mtime in ranked[SLUGGED_FILES_PER_DAY:]
        ]
        plan.window_rows += [
            FileRow(day.stamp, day.clock, name, "slugged", status, candidate=False)
            for name, status in sorted(listing.ignored[day.stamp])
        ]
    plan.loaded_any = bool(loaded)
    _fit_all(plan, loaded)
    plan.listed = listing.listed
    return plan
