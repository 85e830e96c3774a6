"""The plan as plain data: the stable `scan --json` schema (documented in the README).

`files[]` comes as dicts (`file_records`: the plain and table views, `context --json`) or as one line
of JSON per file, made as they are written (`file_record_lines`): `scan --all --json` on a million notes
never holds its rows, only the plan's names.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping

from memwarm_cli.datetime_types import tzinfo
from memwarm_cli.jsstring import js_length
from memwarm_cli.startup.clock import iso_utc, local_time, local_times
from memwarm_cli.startup.file_rows import FileRow, Status
from memwarm_cli.startup.plan import StartupPlan
from memwarm_cli.startup.prelude_settings import (
    ACTIONS,
    GateDecision,
    Limit,
    jsonable,
    should_apply_startup_context,
)
from memwarm_cli.startup.session import AgentPlan
from memwarm_cli.startup.text import sanitize_label
from memwarm_cli.textsafe import escape_text, json_string

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memwarm_cli.startup.listed_notes import ListedRun
    from memwarm_cli.startup.prelude_settings import Action  # a Literal alias: the type checker's only

SCAN_SCHEMA_VERSION = 2  # 2: `agentId` (was `agent`); `scan --all-agents --json` an object


def _limit(limit: Limit) -> dict[str, Any]:
    return {
        "value": limit.value,
        "source": limit.source,
        "configured": jsonable(limit.configured),
        "note": limit.note,
    }


_STATUS_TEXT = {status: (status.value, status.description) for status in Status}  # enum lookups cost


def file_record(row: FileRow, tz: tzinfo) -> dict[str, Any]:
    """One entry of `files[]`. `path`, `detail` (which quotes paths) are escaped by textsafe's policy."""
    path = row.relative_path
    status, status_text = _STATUS_TEXT[row.status]
    return {
        "stamp": row.stamp or None,
        "clock": row.clock,
        "path": escape_text(path),
        "label": sanitize_label(path),
        "kind": row.kind,
        "status": status,
        "statusText": status_text,
        "detail": None if row.detail is None else escape_text(row.detail),
        "candidate": row.candidate,
        "bytes": row.size,
        "mtime": local_time(row.mtime_ms, tz),
        "chars": {
            "read": row.chars_read,
            "trimmed": row.chars_trimmed,
            "capped": row.chars_capped,
            "block": row.block_chars,
        },
        "block": row.block,
    }


def file_record_json(row: FileRow, tz: tzinfo) -> str:
    """file_record(row, tz) as one line of JSON, as json.dumps writes it with `", "` and `": "`.

    Written out by hand: the stdlib's C encoder costs about 4 us per record, this about 1 us, and
    `scan --all` writes 100k of them. tests/startup/test_scan_record.py holds the two to the same data.
    Only `path`, `detail` and `block` can hold characters JSON escapes: the rest is memwarm's vocabulary,
    dates, numbers and the sanitised label (`[A-Za-z0-9_./\\- ]` only).
    """
    size, detail, block, mtime_ms = row.size, row.detail, row.block, row.mtime_ms
    if (
        size is None
        and mtime_ms is None
        and detail is None
        and block is None
        and row.chars_read is None
        and _PLAIN_NAME.match(row.name)
    ):
        # A row with nothing but a plain name (every `--all` extra): path and label are the name itself.
        return (
            f'{{"stamp": {_quoted(row.stamp or None)}, "clock": {_quoted(row.clock)}, '
            f'"path": "memory/{row.name}", "label": "memory/{row.name}", '
            + _BARE_TAILS[row.kind, row.status, row.candidate]
        )
    path = row.relative_path
    mtime = local_time(mtime_ms, tz)
    return (
        f'{{"stamp": {_quoted(row.stamp or None)}, "clock": {_quoted(row.clock)}, '
        f'"path": {json_string(escape_text(path))}, "label": "{sanitize_label(path)}", '
        f'"kind": {_quoted(row.kind)}, {_STATUS_JSON[row.status]}, '
        f'"detail": {"null" if detail is None else json_string(escape_text(detail))}, '
        f'"candidate": {"true" if row.candidate else "false"}, '
        f'"bytes": {"null" if size is None else size}, "mtime": {_quoted(mtime)}, '
        f'"chars": {{"read": {_number(row.chars_read)}, "trimmed": {_number(row.chars_trimmed)}, '
        f'"capped": {_number(row.chars_capped)}, "block": {_number(row.block_chars)}}}, '
        f'"block": {"null" if block is None else json_string(block)}}}'
    )


def file_record_indented(row: FileRow, tz: tzinfo, indent: str) -> str:
    """file_record(row, tz) as json.dumps(..., indent=2) writes it as an item of a list whose items stand
    at `indent` (the object's lines after the first start with it): `context --json`'s `scan.files`.

    Written out by hand for the reason file_record_json is: the stdlib indents only in pure Python, about
    20 us per record, more than a third of `context --json` on 100k notes (bench/bench_startup.py).
    tests/startup/test_scan_record.py holds it to the stdlib's text.
    """
    path = row.relative_path
    detail, block, size = row.detail, row.block, row.size
    status, status_text = _STATUS_STRINGS[row.status]
    if _PLAIN_NAME.match(row.name):  # JSON, escape_text and sanitize_label all leave it as it is
        quoted_path, label = f'"{path}"', path
    else:
        quoted_path, label = json_string(escape_text(path)), sanitize_label(path)
    i = f",\n{indent}  "  # between the object's members
    j = f",\n{indent}    "  # between `chars`' members
    return (
        f'{{\n{indent}  "stamp": {_quoted(row.stamp or None)}{i}"clock": {_quoted(row.clock)}'
        f'{i}"path": {quoted_path}{i}"label": "{label}"'
        f'{i}"kind": {_quoted(row.kind)}{i}"status": "{status}"{i}"statusText": {status_text}'
        f'{i}"detail": {"null" if detail is None else json_string(escape_text(detail))}'
        f'{i}"candidate": {"true" if row.candidate else "false"}'
        f'{i}"bytes": {"null" if size is None else size}'
        f'{i}"mtime": {_quoted(local_time(row.mtime_ms, tz))}{i}"chars": {{\n{indent}    "read": '
        f'{_number(row.chars_read)}{j}"trimmed": {_number(row.chars_trimmed)}{j}"capped": '
        f'{_number(row.chars_capped)}{j}"block": {_number(row.block_chars)}\n{indent}  }}'
        f'{i}"block": {"null" if block is None else json_string(block)}\n{indent}}}'
    )


class FileRowText:
    """A `scan.files` row as json.dumps(file_record(row, tz), indent=2) writes it as an item of a list
    whose items stand at `indent` (file_record_indented), for `context --json`.

    A window of 14 days on a big workspace is thousands of rows past the slug cap: a plain name, a
    mtime and nothing else. Those are written from one template per (stamp, clock, kind, status,
    candidate) with their mtime remembered by the second (clock.local_times): about a third of
    file_record_indented's cost, which writes every other row. tests/cli/commands/test_context_json.py
    holds both to the stdlib's text.
    """

    def __init__(self, tz: tzinfo) -> None:
        self.tz = tz
        self.mtime = local_times(tz)
        self.templates: dict[tuple[object, ...], tuple[str, str, str, str]] = {}

    def __call__(self, row: FileRow, indent: str) -> str:
        if (
            row.size is None
            and row.detail is None
            and row.block is None
            and row.chars_read is None
            and row.chars_trimmed is None
            and row.chars_capped is None
            and row.block_chars is None
            and _PLAIN_NAME.match(row.name)
        ):
            key = (row.stamp, row.clock, row.kind, row.status, row.candidate, indent)
            template = self.templates.get(key)
            if template is None:
                template = self.templates[key] = _bare_template(row, indent)
            head, label, middle, tail = template
            mtime = self.mtime(row.mtime_ms)  # ISO 8601: nothing in it JSON escapes
            shown = "null" if mtime is None else f'"{mtime}"'
            return f"{head}{row.name}{label}{row.name}{middle}{shown}{tail}"
        return file_record_indented(row, self.tz, indent)


def _bare_template(row: FileRow, indent: str) -> tuple[str, str, str, str]:
    """The text of a row with a plain name and nothing but a mtime, in four pieces around its name
    (twice: path and label) and its mtime."""

    def text(value: str | None) -> str:
        return "null" if value is None else json_string(value)

    i = f",\n{indent}  "  # between the object's members
    j = f",\n{indent}    "  # between `chars`' members
    head = f'{{\n{indent}  "stamp": {text(row.stamp or None)}{i}"clock": {text(row.clock)}{i}"path": "memory/'
    middle = (
        f'"{i}"kind": {text(row.kind)}{i}"status": {text(row.status.value)}'
        f'{i}"statusText": {text(row.status.description)}{i}"detail": null'
        f'{i}"candidate": {"true" if row.candidate else "false"}{i}"bytes": null{i}"mtime": '
    )
    tail = (
        f'{i}"chars": {{\n{indent}    "read": null{j}"trimmed": null{j}"capped": null{j}"block": null'
        f'\n{indent}  }}{i}"block": null\n{indent}}}'
    )
    return head, f'"{i}"label": "memory/', middle, tail


_STATUS_STRINGS = {s: (s.value, json_string(s.description)) for s in Status}  # as JSON writes them
_STATUS_JSON = {s: f'"status": "{s.value}", "statusText": {json_string(s.description)}' for s in Status}
# Names that JSON, escape_text and sanitize_label all leave as they are (no space: the label trims it).
_PLAIN_NAME = re.compile(r"[A-Za-z0-9_.\-]+\Z")


def _quoted(value: str | None) -> str:
    """A string JSON writes as is (no quote, backslash or control character in it), or null."""
    return "null" if value is None else f'"{value}"'


def _number(value: int | None) -> str:
    return "null" if value is None else str(value)


# Everything after `label` in a row with no stat, no read and no detail, per (kind, status, candidate).
_BARE_TAILS = {
    (kind, status, candidate): (
        f'"kind": {_quoted(kind)}, {_STATUS_JSON[status]}, "detail": null, '
        f'"candidate": {"true" if candidate else "false"}, "bytes": null, "mtime": null, '
        '"chars": {"read": null, "trimmed": null, "capped": null, "block": null}, "block": null}'
    )
    for kind in ("daily", "slugged", None)
    for status in Status
    for candidate in (True, False)
}


def listed_json_lines(run: ListedRun, tz: tzinfo) -> list[str]:
    """file_record_json of each row of an `--all` run, from one template when every name is plain (the
    usual case: one f-string per row, no row object); a test holds the two to the same text."""
    if not _PLAIN_NAME.match("".join(run.names)):  # every name plain: their concatenation is
        return [file_record_json(row, tz) for row in run.rows()]
    head = f'{{"stamp": {_quoted(run.stamp or None)}, "clock": null, "path": "memory/'
    tail = _BARE_TAILS[run.kind, run.status, False]
    return [f'{head}{name}", "label": "memory/{name}", {tail}' for name in run.names]


def file_records(plan: StartupPlan, tz: tzinfo) -> list[dict[str, Any]]:
    """`files[]` as data: file_record of every row."""
    return [file_record(row, tz) for row in plan.rows]


def iter_file_records(plan: StartupPlan, tz: tzinfo) -> Iterator[dict[str, Any]]:
    """file_records, one row at a time: `--all`'s rows are made a run at a time, never all at once."""
    for row in plan.window_rows:
        yield file_record(row, tz)
    for run in plan.listed:
        for row in run.rows():
            yield file_record(row, tz)


def file_record_lines(plan: StartupPlan, tz: tzinfo) -> Iterator[str]:
    """`files[]` as JSON lines, one per row in the same order, made as they are asked for: the window's
    rows by file_record_json, `--all`'s runs by listed_json_lines (100k rows are not built twice, nor
    built at all, nor held)."""
    for row in plan.window_rows:
        yield file_record_json(row, tz)
    for run in plan.listed:
        yield from listed_json_lines(run, tz)


def status_counts(plan: StartupPlan) -> dict[str, int]:
    counts = Counter(row.status for row in plan.window_rows)  # by member: `.value` is a property call
    for run in plan.listed:
        counts[run.status] += len(run.names)
    return {status.value: counts[status] for status in Status if counts[status]}


def scan_record(
    result: AgentPlan,
    cfg: Any,
    files: Callable[[StartupPlan, tzinfo], Iterable[Any]] = file_records,
    *,
    gates: Mapping[Action, GateDecision] | None = None,
) -> dict[str, Any]:
    """The scan of one agent. `files` makes `files[]`: dicts (file_records) or JSON lines (then an
    iterator, for a writer that streams it). `gates`: the prelude gate of each action when the caller
    decided them already (memwarm_cli/session_context.py), else decided here."""
    plan = result.plan
    settings = plan.settings
    zone = settings.timezone
    prelude = plan.prelude
    max_total = settings.max_total_chars.value
    if gates is None:
        gates = {action: should_apply_startup_context(cfg, action) for action in ACTIONS}
    return {
        "schema": SCAN_SCHEMA_VERSION,
        "agentId": result.agent_id,
        "workspace": str(result.workspace),
        "workspaceExists": result.workspace_exists,
        "at": iso_utc(plan.at_ms),
        "window": {
            "local": plan.local_date,
            "utc": plan.utc_date,
            "days": [{"stamp": day.stamp, "clock": day.clock} for day in plan.window],
        },
        "timezone": {
            "configured": jsonable(zone.configured),
            "used": zone.used,
            "fellBack": zone.fell_back,
            "reason": zone.reason,
        },
        "limits": {limit.name: _limit(limit) for limit in settings.limits},
        "budget": {"used": plan.budget_used, "max": max_total, "remaining": max_total - plan.budget_used},
        "gate": {action: {"applied": g.applied, "reason": g.reason} for action, g in gates.items()},
        "prelude": {
            "loaded": prelude is not None,
            "length": None if prelude is None else js_length(prelude),
            "markerEmitted": plan.marker_emitted,
        },
        "listingError": None if plan.listing_error is None else escape_text(plan.listing_error),
        "counts": status_counts(plan),
        "files": files(plan, zone.tz),
    }
