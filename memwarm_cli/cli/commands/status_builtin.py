"""`status`'s views on a release with the builtin index only (2026.8.1+): the builtin report
(backends/builtin/builtin_status.py) in the same four views as qmd's (status_views.py): a table on a
terminal, the plain view's columns (PLAIN_COLUMNS: `mode` holds the embedding provider, `documents` the
indexed memory files; the qmd-only columns are `-`), versioned JSON, and Prometheus's text format.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from memwarm_cli.backends.builtin.builtin_status import BUILTIN_VERDICTS
from memwarm_cli.cli.commands.status_prometheus import _STATUS_OK_HELP, _metric
from memwarm_cli.cli.commands.status_views import PLAIN_COLUMNS, STATUS_STYLES
from memwarm_cli.cli.terminal.output import guarded_lines, make_console
from memwarm_cli.cli.terminal.view_format import JsonView, View, Views
from memwarm_cli.textsafe import escape_text, escape_unsafe

if TYPE_CHECKING:
    from memwarm_cli.backends.builtin.builtin_status import BuiltinAgentStatus, BuiltinStatusReport
    from memwarm_cli.profiles.choice import OpenClawChoice

BUILTIN_STYLES = {**STATUS_STYLES, "cold": "red", "invalid": "red", "skipped": "dim"}


class BuiltinStatus(NamedTuple):
    report: BuiltinStatusReport
    quiet: bool  # the table and plain views list only the agents that are not warm
    openclaw: OpenClawChoice  # the run's release (the summary line and --json name it)


def _selected(result: BuiltinStatus) -> list[BuiltinAgentStatus]:
    return [a for a in result.report.agents if not result.quiet or a.verdict not in ("warm", "skipped")]


def _cells(agent: BuiltinAgentStatus) -> list[str]:
    cells = ["-"] * len(PLAIN_COLUMNS)
    judged = agent.judgement
    cells[0], cells[1] = escape_text(agent.agent_id), agent.verdict
    cells[2] = escape_text(agent.search.provider) if agent.search else "-"
    cells[3] = str(judged.indexed_files) if judged and judged.db_exists else "-"
    cells[5] = str(judged.stale_files) if judged and agent.verdict in ("stale", "invalid") else "-"
    if agent.verdict == "warm":
        cells[5] = "0"
    cells[-1] = "; ".join(escape_text(reason) for reason in agent.why) or "-"
    return cells


def builtin_summary_line(result: BuiltinStatus) -> str:
    counts = result.report.counts()
    parts = [f"{count} {verdict}" for verdict, count in counts.items() if count]
    total = len(result.report.agents)
    noun = "agent" if total == 1 else "agents"
    release = result.openclaw.summary
    return f"status: {total} {noun}: {', '.join(parts) or 'none'} (builtin memory index); {release}"


class BuiltinPlain(View[BuiltinStatus]):
    name = "plain"

    def render(self, result: BuiltinStatus) -> Iterator[str]:
        lines = ["\t".join(PLAIN_COLUMNS), *("\t".join(_cells(a)) for a in _selected(result))]
        return guarded_lines(lines, tsv=True)

    def summary(self, result: BuiltinStatus) -> Iterator[str]:
        if not result.quiet:
            yield f"# {builtin_summary_line(result)}"


class BuiltinTable(View[BuiltinStatus]):
    name = "table"
    needs_terminal = True

    def render(self, result: BuiltinStatus) -> Iterator[str]:
        # table and the Rich it imports (~25 ms): only this view draws one, not status in a pipe
        from memwarm_cli.cli.terminal.table import Column, Styles, draw_table, wrap_words

        console = make_console()
        styles = Styles(console)
        columns = [
            Column("agent", wrap="words", min_width=8),
            Column("status", styled=True),
            Column("provider"),
            Column("files", right=True),
            Column("stale", right=True),
            Column("why", wrap="words", min_width=16, footnotes=True),
        ]

        def rows() -> Iterator[tuple[list[str], str]]:
            for agent in _selected(result):
                cells = _cells(agent)
                style = BUILTIN_STYLES.get(agent.verdict, "") if styles.colour else ""
                yield [cells[0], cells[1], cells[2], cells[3], cells[5], cells[-1]], style

        for line in draw_table(console.width, "memwarm status", columns, rows(), styles):
            yield line + "\n"
        if not result.quiet:
            for line in wrap_words(escape_unsafe(builtin_summary_line(result)), console.width):
                yield line + "\n"


def builtin_prometheus_text(report: BuiltinStatusReport) -> str:
    """The same metric families as qmd's (status_prometheus.py) where they mean the same; the builtin
    index has files, not per-collection documents, and no memwarm run record."""
    agents = [a for a in report.agents if a.eligible]
    statuses = [v for v in BUILTIN_VERDICTS if v != "skipped"]
    lines: list[str] = []
    lines += _metric("memwarm_status_ok", _STATUS_OK_HELP, [({}, 1.0)])
    lines += _metric(
        "memwarm_agent_warm",
        "1 when the agent's memory index is warm (its next search needs no build or catch-up), else 0.",
        (({"agent": a.agent_id}, 1.0 if a.verdict == "warm" else 0.0) for a in agents),
    )
    lines += _metric(
        "memwarm_agent_status",
        "The agent's status: 1 for the one it is in, 0 for the others (builtin index: cold, stale, invalid, "
        "warm, failed).",
        (
            ({"agent": a.agent_id, "status": status}, 1.0 if a.verdict == status else 0.0)
            for a in agents
            for status in statuses
        ),
    )
    lines += _metric(
        "memwarm_index_files",
        "Memory files in the agent's builtin index (memory_index_sources rows of source memory).",
        (({"agent": a.agent_id}, float(a.judgement.indexed_files)) for a in agents if a.judgement),
    )
    lines += _metric(
        "memwarm_stale_files",
        "Memory files new, changed or deleted since the agent's builtin index was last updated.",
        (
            ({"agent": a.agent_id}, float(a.judgement.stale_files))
            for a in agents
            if a.judgement and a.verdict in ("warm", "stale", "invalid")
        ),
    )
    return "\n".join(lines) + "\n"


class BuiltinPrometheus(View[BuiltinStatus]):
    name = "prometheus"

    def render(self, result: BuiltinStatus) -> Iterator[str]:
        yield builtin_prometheus_text(result.report)


def _json(result: BuiltinStatus) -> dict[str, Any]:
    return result.report.to_json()


BUILTIN_STATUS_VIEWS: Views[BuiltinStatus] = Views(
    BuiltinTable(), BuiltinPlain(), JsonView(_json), BuiltinPrometheus(), pipe="plain"
)
