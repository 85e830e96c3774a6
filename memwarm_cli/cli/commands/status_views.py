"""`status`'s views: a table on a terminal, tab-separated lines in a pipe, JSON, and Prometheus's text
(cli/commands/status_prometheus.py).

Outside text (agent ids, reasons quoting qmd's output and paths) is escaped by textsafe's one policy;
the rest is memwarm's vocabulary, numbers and ISO times. The table breaks agent ids only after `-` and
the reasons at spaces; from WIDE_TABLE columns on it has the search mode and the last run's outcome,
narrower only its time, and a reason that would not fit its column in a few lines goes below the table
as a footnote, so a terminal of 60 or 80 columns shows every reason whole.

On a release without the qmd backend the views show RetiredStatus instead (RETIRED_STATUS_VIEWS, by the
same names): every agent `retired` with its one reason, the plain view in the same columns.

The app's build (`--help`, completion, `config`, `search`) imports this module for STATUS_VIEWS' format
names, so backends.agent_status (the qmd and freshness checks: ~14 ms, 42 modules by -X importtime) is
imported by the functions that read a report, and cli/terminal/table.py (with Rich, ~25 ms) by the
table views alone: status in a pipe loads neither table nor Rich (test_imports).
"""

from __future__ import annotations

from collections.abc import Iterator

from memwarm_cli.cli.commands.status_prometheus import RetiredPrometheus, StatusPrometheus
from memwarm_cli.cli.terminal.output import guarded_lines, make_console
from memwarm_cli.cli.terminal.view_format import JsonView, View, Views
from memwarm_cli.frozen_records import record
from memwarm_cli.startup.clock import iso_utc
from memwarm_cli.textsafe import escape_text, escape_unsafe

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memwarm_cli.backends.agent_status import AgentStatus, StatusReport
    from memwarm_cli.backends.retired import RetiredAgent, RetiredBackends
    from memwarm_cli.cli.commands.status import StatusResult
    from memwarm_cli.cli.terminal.table import Styles
    from memwarm_cli.profiles.choice import OpenClawChoice

PLAIN_COLUMNS = (
    "agent",
    "status",
    "mode",
    "documents",
    "pending_embeddings",
    "stale_files",
    "last_run",
    "last_run_finished",
    "last_success",
    "duration_ms",
    "probe_ms",
    "embed_backoff_until",
    "why",
)
STATUS_STYLES = {
    "warm": "green",
    "stale": "yellow",
    "degraded": "yellow",
    "failed": "red",
    "running": "cyan",
    "retired": "magenta",
}


def _iso(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    return iso_utc(round(seconds * 1000))


def _text(value: object) -> str:
    return "-" if value is None else str(value)


def _why(agent: AgentStatus) -> str:
    return "; ".join(escape_text(reason) for reason in agent.why) or "-"


def _cells(agent: AgentStatus) -> list[str]:
    qmd = agent.settings.qmd
    index = agent.index
    run = agent.last_run
    backoff = agent.embed_backoff
    return [
        escape_text(agent.agent_id),
        agent.verdict,
        qmd.search_mode if qmd else "-",
        _text(index.documents if index and index.stats else None),
        _text(index.pending if index else None),
        _text(agent.freshness.stale_files if agent.freshness else None),
        run.status if run else "-",
        _iso(run.finished_at if run else None),
        _iso(agent.last_success_at),
        _text(run.duration_ms if run else None),
        _text(run.probe_latency_ms if run else None),
        _iso(backoff.until if backoff else None),
        _why(agent),
    ]


def summary_line(report: StatusReport, openclaw: OpenClawChoice) -> str:
    counts = report.counts()
    parts = [f"{count} {verdict}" for verdict, count in counts.items() if count]
    total = len(report.agents)
    noun = "agent" if total == 1 else "agents"
    tail = "" if report.running_known else "; running runs cannot be seen here (no /proc/locks)"
    return f"status: {total} {noun}: {', '.join(parts) or 'none'}{tail}; {openclaw.summary}"


class StatusPlain(View["StatusResult"]):
    """PLAIN_COLUMNS, one line per agent; the summary on stderr as a `# ` line unless `-q`."""

    name = "plain"

    def render(self, result: StatusResult) -> Iterator[str]:
        from memwarm_cli.backends.agent_status import selected_agents  # lazy: see module docstring

        lines = ["\t".join(PLAIN_COLUMNS)]
        lines += ["\t".join(_cells(agent)) for agent in selected_agents(result.report, result.quiet)]
        return guarded_lines(lines, tsv=True)

    def summary(self, result: StatusResult) -> Iterator[str]:
        if not result.quiet:
            yield f"# {summary_line(result.report, result.openclaw)}"


class StatusTable(View["StatusResult"]):
    name = "table"
    needs_terminal = True

    def render(self, result: StatusResult) -> Iterator[str]:
        from memwarm_cli.cli.terminal.table import Styles, wrap_words  # table views only (module docstring)

        console = make_console()
        for line in table_lines(console.width, Styles(console), result.report, result.quiet):
            yield line + "\n"
        if not result.quiet:
            for line in wrap_words(
                escape_unsafe(summary_line(result.report, result.openclaw)), console.width
            ):
                yield line + "\n"


def table_lines(width: int, styles: Styles, report: StatusReport, quiet: bool) -> Iterator[str]:
    """The table for a terminal `width` columns wide, its footnotes under it."""
    from memwarm_cli.backends.agent_status import selected_agents  # lazy: see module docstring
    from memwarm_cli.cli.terminal.table import WIDE_TABLE, Column, draw_table  # table views only (docstring)

    wide = width >= WIDE_TABLE
    columns = [
        Column("agent", wrap="words", min_width=8),
        Column("status", styled=True),
        *([Column("mode")] if wide else []),
        Column("docs", right=True),
        Column("stale", right=True),
        Column("last run (UTC)"),  # times in UTC, as the JSON and the record keep them
        Column("why", wrap="words", min_width=16, footnotes=True),
    ]
    colour = styles.colour

    def rows() -> Iterator[tuple[list[str], str]]:
        for agent in selected_agents(report, quiet):
            cells = _cells(agent)
            run = agent.last_run
            finished = _iso(run.finished_at)[:16].replace("T", " ") if run else ""
            # Narrow: the time alone (the outcome is the status's, or its reason's).
            last = "-" if run is None else f"{run.status} {finished}" if wide else finished[5:]
            mode = [cells[2]] if wide else []
            row = [cells[0], cells[1], *mode, cells[3], cells[5], last, cells[12]]
            yield row, STATUS_STYLES.get(agent.verdict, "") if colour else ""

    yield from draw_table(width, "memwarm status", columns, rows(), styles)


def _json(result: StatusResult) -> dict[str, Any]:
    return result.report.to_json()


STATUS_VIEWS: Views[StatusResult] = Views(
    StatusTable(), StatusPlain(), JsonView(_json), StatusPrometheus(), pipe="plain"
)


# ---- a release without the qmd backend (backends/retired.py): every agent `retired`, nothing judged


@record
class RetiredStatus:
    """What `status`'s views show when the release has no qmd backend."""

    retired: RetiredBackends
    quiet: bool  # no summary (every agent is listed: none is warm)
    generated_at: float
    max_age_seconds: float | None
    openclaw: OpenClawChoice  # the release without the qmd backend


def _retired_cells(agent: RetiredAgent) -> list[str]:
    """PLAIN_COLUMNS' cells: the status and why; no index, run or freshness to show."""
    cells = ["-"] * len(PLAIN_COLUMNS)
    cells[0], cells[1], cells[-1] = escape_text(agent.agent_id), "retired", escape_text(agent.reason)
    return cells


def retired_summary_line(retired: RetiredBackends, openclaw: OpenClawChoice) -> str:
    total = len(retired.agents)
    noun = "agent" if total == 1 else "agents"
    return f"status: {total} {noun}: {total} retired (no qmd backend); {openclaw.summary}"


class RetiredPlain(View[RetiredStatus]):
    name = "plain"

    def render(self, result: RetiredStatus) -> Iterator[str]:
        lines = ["\t".join(PLAIN_COLUMNS), *("\t".join(_retired_cells(a)) for a in result.retired.agents)]
        return guarded_lines(lines, tsv=True)

    def summary(self, result: RetiredStatus) -> Iterator[str]:
        if not result.quiet:
            yield f"# {retired_summary_line(result.retired, result.openclaw)}"


class RetiredTable(View[RetiredStatus]):
    name = "table"
    needs_terminal = True

    def render(self, result: RetiredStatus) -> Iterator[str]:
        # table views only (module docstring)
        from memwarm_cli.cli.terminal.table import Column, Styles, draw_table, wrap_words

        console = make_console()
        styles = Styles(console)
        columns = [
            Column("agent", wrap="words", min_width=8),
            Column("status", styled=True),
            Column("why", wrap="words", min_width=16, footnotes=True),
        ]
        style = STATUS_STYLES["retired"] if styles.colour else ""
        agents = result.retired.agents
        rows = (([escape_text(a.agent_id), "retired", escape_text(a.reason)], style) for a in agents)
        for line in draw_table(console.width, "memwarm status", columns, rows, styles):
            yield line + "\n"
        if not result.quiet:
            for line in wrap_words(
                escape_unsafe(retired_summary_line(result.retired, result.openclaw)), console.width
            ):
                yield line + "\n"


def _retired_json(result: RetiredStatus) -> dict[str, Any]:
    """The shape of StatusReport.to_json, every agent `retired` (its one reason in `why`)."""
    from memwarm_cli.backends.agent_status import STATUS_SCHEMA, VERDICTS  # lazy: see module docstring

    retired = result.retired
    return {
        "schema": STATUS_SCHEMA,
        "command": "status",
        "configPath": retired.config_path,
        "stateDir": retired.state_dir,
        "generatedAt": result.generated_at,
        "maxAgeSeconds": result.max_age_seconds,
        "runningKnown": None,  # not looked for: no run of the qmd backend can be running
        "exitCode": int(retired.exit_code),
        "summary": {**dict.fromkeys(VERDICTS, 0), "retired": len(retired.agents)},
        "retired": retired.why_json(),
        "agents": [
            {
                "agentId": agent.agent_id,
                "status": "retired",
                "why": [agent.reason],
                "workspace": str(agent.workspace),
                "qmdDir": str(agent.qmd_dir),
                "qmdDirExists": agent.qmd_dir_exists,
                "index": {"indexPath": str(agent.index_path), "exists": agent.index_exists},
            }
            for agent in retired.agents
        ],
    }


RETIRED_STATUS_VIEWS: Views[RetiredStatus] = Views(
    RetiredTable(), RetiredPlain(), JsonView(_retired_json), RetiredPrometheus(), pipe="plain"
)
