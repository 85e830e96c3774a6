"""`memwarm context`'s views over the two plans: the exact text, a table and plain rows (and JSON, in
cli/commands/context_json.py).

Rows are built once (`context_rows`) from the bootstrap plan and the startup plan, so the table and the
plain view cannot disagree; the JSON view gives the same facts. The table is drawn by
cli/terminal/table.py: names break only after `/` and `-`, details at spaces, and a detail too long for
its column at 60 or 80 columns goes below the table as a footnote. The table module (with Rich, ~25 ms by
-X importtime) and context_json are imported by the views that use them: context's text and plain views
load neither (test_imports).
"""

from __future__ import annotations

from collections.abc import Iterator

from memwarm_cli.cli.terminal.output import (
    data_for_stdout,
    guarded_lines,
    make_console,
    note_line,
    stdout_is_terminal,
)
from memwarm_cli.cli.terminal.view_format import JsonView, View, Views
from memwarm_cli.session_context import CHARS_PER_TOKEN
from memwarm_cli.textsafe import escape_text, escape_unsafe

# typing.TYPE_CHECKING without importing typing: ~2.5 ms of `context`'s start (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NamedTuple

    from memwarm_cli.bootstrap.context_plan import BootstrapPlan, BootstrapRow
    from memwarm_cli.cli.commands.context import ContextResult
    from memwarm_cli.session_context import SessionContext
else:
    from memwarm_cli.named_tuples import NamedTuple

NARROW_TABLE = 80  # below this, the table leaves out the raw characters and the limit
TERMINAL_SEPARATOR = "---- memwarm: the startup prelude follows (this line is shown on a terminal only) ----"
PLAIN_COLUMNS = (
    "part",
    "file",
    "status",
    "detail",
    "raw_chars",
    "injected_chars",
    "limit",
    "limit_source",
    "share",
)


# ---- the facts every view shares ------------------------------------------------------------------


def bootstrap_text(plan: BootstrapPlan) -> str | None:
    blocks = [plan.blocks.project_context, plan.blocks.dynamic_project_context]
    present = [block for block in blocks if block is not None]
    return "\n\n".join(present) if present else None


class ContextRow(NamedTuple):
    part: str  # bootstrap | prelude
    file: str  # escaped for one cell
    status: str
    status_text: str
    detail: str | None
    raw_chars: int | None
    injected_chars: int | None
    limit: int | None
    limit_source: str | None


def _cut_detail(row: BootstrapRow) -> str | None:
    trimmed = row.trimmed
    if trimmed is None or not trimmed.cut:
        return row.detail
    kept = f"kept head {trimmed.head} + tail {trimmed.tail} of {trimmed.raw_chars}"
    if trimmed.style == "digest":
        kept += f", policy digest {trimmed.digest_chars}"
        if trimmed.digest_omitted:
            kept += f" ({trimmed.digest_omitted} policy lines omitted)"
    else:
        kept += f", {trimmed.style} marker"
    if row.placement is not None and row.placement.limit_cause == "total budget":
        kept += "; cut to the budget left"
    return kept


def bootstrap_rows(plan: BootstrapPlan) -> list[ContextRow]:
    rows = []
    for row in plan.rows:
        placement = row.placement
        limit = placement.limit if placement is not None else None
        source = None
        if placement is not None and placement.limit_cause is not None:
            source = plan.max_chars.origin if placement.limit_cause == "per-file" else placement.limit_cause
        detail = _cut_detail(row)
        rows.append(
            ContextRow(
                "bootstrap",
                escape_text(row.file.name),
                row.status.value,
                row.status_text,
                None if detail is None else escape_text(detail),
                None if row.file.missing else row.raw_chars,
                row.injected_chars if row.block else None,
                limit,
                source,
            )
        )
    return rows


def prelude_rows(context: SessionContext) -> list[ContextRow]:
    limit = context.startup.plan.settings.max_file_chars
    rows = []
    for row in context.startup.plan.rows:
        read = row.chars_read is not None
        rows.append(
            ContextRow(
                "prelude",
                escape_text(row.relative_path),
                row.status.value,
                row.status.description,
                None if row.detail is None else escape_text(row.detail),
                row.chars_read,
                row.block_chars if context.gate.applied else None,
                limit.value if read else None,
                limit.source if read else None,
            )
        )
    return rows


def context_rows(context: SessionContext, only: str | None) -> list[ContextRow]:
    rows = [] if only == "prelude" else bootstrap_rows(context.bootstrap)
    return rows + ([] if only == "bootstrap" else prelude_rows(context))


def share(chars: int | None, total: int) -> str | None:
    if not chars or not total:
        return None
    return f"{100 * chars / total:.1f}%"


def summary_lines(context: SessionContext, only: str | None = None) -> list[str]:
    plan = context.bootstrap
    startup = context.startup.plan
    boot_chars, prelude_chars = context.total_chars
    session = plan.session
    lines = [
        f"agent {escape_text(context.agent_id)}, session {escape_text(context.session_key)} "
        f"({session.session_class}); "
        f"workspace {escape_text(str(context.startup.workspace))}",
    ]
    if only != "prelude":
        total = plan.total_max_chars
        lines.append(
            f"bootstrap: {plan.budget_used} of {total.value} chars of the total budget "
            f"(bootstrapTotalMaxChars, {total.origin}); per file {plan.max_chars.value} "
            f"({plan.max_chars.origin}); blocks {boot_chars} chars; bootstrap mode {plan.bootstrap_mode}"
        )
        if plan.context_injection == "never":
            lines.append("bootstrap: not injected, contextInjection is never")
        if plan.truncation_notice is not None:
            lines.append(f"bootstrap: the truncation notice is shown (warning mode {plan.warning_mode})")
        for limit in (plan.max_chars, plan.total_max_chars):
            if limit.note:  # quotes the configured value
                lines.append(f"bootstrap: {escape_text(limit.note)}")
    if only != "bootstrap":
        max_total = startup.settings.max_total_chars
        if not context.gate.applied:
            prelude_text = f"not applied for /{context.action} ({escape_text(context.gate.reason or '')})"
        elif startup.prelude is None:
            prelude_text = "none (no daily memory in the window)"
        else:
            prelude_text = f"{prelude_chars} chars rendered"
        per_note = startup.settings.max_file_chars
        lines.append(
            f"prelude: {startup.budget_used} of {max_total.value} chars (maxTotalChars, {max_total.source}); "
            f"per note {per_note.value} (maxFileChars, {per_note.source}); {prelude_text}"
        )
        if context.prelude_suppressed and context.gate.applied and startup.prelude is not None:
            lines.append(
                "prelude: BOOTSTRAP.md is pending, and while it is, OpenClaw does not prepend the prelude "
                "on /new or /reset"
            )
    grand = (0 if only == "prelude" else boot_chars) + (0 if only == "bootstrap" else prelude_chars)
    lines.append(f"total: {grand} chars, about {grand // CHARS_PER_TOKEN} tokens (estimate: chars/4)")
    return lines


# ---- text ---------------------------------------------------------------------------------------


class ContextText(View["ContextResult"]):
    """The exact blocks, then the exact prelude; on a terminal a separator line between them, a final
    newline, and control characters shown as escapes unless `--raw`."""

    name = "text"

    def notes(self, result: ContextResult) -> Iterator[str]:
        if not result.quiet:
            yield from map(note_line, _text_notes(result.context, result.only))

    def render(self, result: ContextResult) -> Iterator[str]:
        context, only = result.context, result.only
        boot = None if only == "prelude" else bootstrap_text(context.bootstrap)
        prelude = None if only == "bootstrap" else context.prelude
        if boot is None and prelude is None:
            return
        if boot is not None and prelude is not None:
            separator = f"\n{TERMINAL_SEPARATOR}\n" if stdout_is_terminal() else "\n\n"
            text = f"{boot}{separator}{prelude}"
        else:
            text = boot if boot is not None else prelude or ""
        yield data_for_stdout(text, raw=result.raw)


def _text_notes(context: SessionContext, only: str | None) -> list[str]:
    plan = context.bootstrap
    notes = []
    if only != "prelude":
        if plan.context_injection == "never":
            notes.append("no Project Context: contextInjection is never")
        if plan.truncation_notice is not None:
            notes.append(
                "some bootstrap files were truncated; OpenClaw adds its truncation notice to the prompt"
            )
    if only != "bootstrap":
        if not context.gate.applied:
            notes.append(f"startup context not applied for /{context.action}: {context.gate.reason}")
        elif context.startup.plan.prelude is None:
            notes.append("no daily memory in the window: no startup prelude")
        elif context.prelude_suppressed:
            notes.append(
                "BOOTSTRAP.md is pending: OpenClaw does not prepend the prelude on /new or /reset yet, "
                "so none is shown (memwarm prelude shows what it will be)"
            )
    return notes


# ---- plain and table ------------------------------------------------------------------------------


def _cell(value: Any) -> str:
    return "-" if value is None else str(value)  # file and detail come escaped: no tab, no line break


class ContextPlain(View["ContextResult"]):
    """Tab-separated rows (PLAIN_COLUMNS), the summary on stderr as `# ` lines unless `-q`."""

    name = "plain"

    def render(self, result: ContextResult) -> Iterator[str]:
        grand = _grand_total(result.context, result.only)
        lines = ["\t".join(PLAIN_COLUMNS)]
        for row in context_rows(result.context, result.only):
            cells = [
                row.part,
                row.file,
                row.status,
                row.detail,
                row.raw_chars,
                row.injected_chars,
                row.limit,
                row.limit_source,
                share(row.injected_chars, grand),
            ]
            lines.append("\t".join(_cell(cell) for cell in cells))
        return guarded_lines(lines, tsv=True)

    def summary(self, result: ContextResult) -> Iterator[str]:
        if not result.quiet:
            for line in summary_lines(result.context, result.only):
                yield f"# {line}"


def _grand_total(context: SessionContext, only: str | None) -> int:
    boot, prelude = context.total_chars
    return (0 if only == "prelude" else boot) + (0 if only == "bootstrap" else prelude)


_STATUS_STYLE = {
    "included": "green",
    "truncated": "yellow",
    "shrunk": "yellow",
    "budget-exhausted": "red",
    "hidden": "dim",
    "session-filter": "dim",
    "missing": "dim",
}


class ContextTable(View["ContextResult"]):
    """One row per file; the bootstrap files, then (after a rule) the prelude's notes under memory/;
    the summary under it."""

    name = "table"
    needs_terminal = True

    def render(self, result: ContextResult) -> Iterator[str]:
        from memwarm_cli.cli.terminal.table import Styles, wrap_words  # the table view only (docstring)

        console = make_console()
        for line in table_lines(console.width, Styles(console), result.context, result.only):
            yield line + "\n"
        for line in summary_lines(result.context, result.only):  # wrapped at spaces to the terminal
            for part in wrap_words(escape_unsafe(line), console.width):
                yield part + "\n"


def table_lines(width: int, styles: Any, context: SessionContext, only: str | None) -> Iterator[str]:
    """The table's lines for a terminal `width` columns wide (its footnotes under it)."""
    from memwarm_cli.cli.terminal.table import SECTION, WIDE_TABLE, Column, draw_table  # table view only

    # Narrower than NARROW_TABLE: no raw characters and no limit (the summary gives the limits; the
    # plain view and JSON every column), so names and statuses keep room to wrap between their words.
    narrow = width < NARROW_TABLE
    wide = width >= WIDE_TABLE
    columns = [
        Column("file", wrap="words", min_width=14),
        Column("status", wrap="words", min_width=16, styled=True, footnotes=True),
        *([] if narrow else [Column("raw", right=True)]),
        Column("injected", right=True),
        *([] if narrow else [Column("limit", wrap="words", min_width=5)]),
        Column("share", right=True),
    ]
    grand = _grand_total(context, only)
    colour = styles.colour

    def rows() -> Iterator[tuple[list[str], str] | None]:
        part = None
        for row in context_rows(context, only):
            if part is not None and row.part != part:
                yield SECTION
            part = row.part
            status = _status_cell(row)
            # The limit's source (defaults, config, built-in) only where it fits on the row's line: the
            # summary under the table names each limit with its source.
            limit = (
                "-" if row.limit is None else f"{row.limit} {row.limit_source}" if wide else str(row.limit)
            )
            cells = [
                row.file,
                escape_unsafe(status),
                *([] if narrow else [_cell(row.raw_chars)]),
                _cell(row.injected_chars),
                *([] if narrow else [limit]),
                _cell(share(row.injected_chars, grand)),
            ]
            yield cells, _STATUS_STYLE.get(row.status, "") if colour else ""

    yield from draw_table(width, "memwarm context", columns, rows(), styles)


def _status_cell(row: ContextRow) -> str:
    """The status as the table shows it: the file's own failure first where a hidden file has one
    (`missing, hidden from the prompt ...`, not `hidden ..., budget still spent (missing)`)."""
    if row.status == "hidden" and row.detail:
        hidden = "hidden from the prompt (bootstrap mode none), yet its marker counts against the budget"
        return f"{row.detail}; {hidden}"
    return row.status_text + (f" ({row.detail})" if row.detail else "")


def _json_record(result: ContextResult) -> dict[str, Any]:
    from memwarm_cli.cli.commands.context_json import context_record  # --json only (docstring)

    return context_record(result.context)


CONTEXT_VIEWS: Views[ContextResult] = Views(
    ContextText(), ContextTable(), ContextPlain(), JsonView(_json_record, walk=True), pipe="text"
)
