"""`status`'s human views (a table on a terminal, tab-separated lines in a pipe) and `--textfile`.

Outside text (agent ids, reasons quoting qmd's output and paths) is escaped by textsafe's one policy;
the rest is memwarm's vocabulary, numbers and ISO times.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from memwarm_cli.backends.agent_status import AgentStatus, StatusReport, selected_agents
from memwarm_cli.textsafe import escape_text

if TYPE_CHECKING:
    from rich.console import Console

    from memwarm_cli.cli.terminal.table import Styles

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
STATUS_STYLES = {"warm": "green", "stale": "yellow", "degraded": "yellow", "failed": "red", "running": "cyan"}


def _iso(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    from memwarm_cli.startup.clock import iso_utc

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


def summary_line(report: StatusReport) -> str:
    counts = report.counts()
    parts = [f"{count} {verdict}" for verdict, count in counts.items() if count]
    total = len(report.agents)
    noun = "agent" if total == 1 else "agents"
    tail = "" if report.running_known else "; running runs cannot be seen here (no /proc/locks)"
    return f"status: {total} {noun}: {', '.join(parts) or 'none'}{tail}"


def write_plain(report: StatusReport, *, quiet: bool) -> None:
    from memwarm_cli.cli.terminal.output import write_lines, write_stderr

    lines = ["\t".join(PLAIN_COLUMNS)]
    lines += ["\t".join(_cells(agent)) for agent in selected_agents(report, quiet)]
    write_lines(lines, tsv=True)
    if not quiet:
        write_stderr(f"# {summary_line(report)}")


def write_table(report: StatusReport, *, quiet: bool) -> None:
    from memwarm_cli.cli.terminal.output import make_console, write_stdout
    from memwarm_cli.cli.terminal.table import Styles, wrap_words
    from memwarm_cli.textsafe import escape_unsafe

    console = make_console()
    lines = list(_table_lines(console, Styles(console), report, quiet))
    if not quiet:
        lines.extend(wrap_words(escape_unsafe(summary_line(report)), console.width))
    write_stdout("".join(line + "\n" for line in lines))


def _table_lines(console: Console, styles: Styles, report: StatusReport, quiet: bool) -> Iterator[str]:
    from memwarm_cli.cli.terminal.table import Column, draw_table

    columns = [
        Column("agent", wrap="fold", min_width=8),
        Column("status", styled=True),
        Column("mode"),
        Column("docs", right=True),
        Column("stale", right=True),
        Column("last run"),
        Column("why", wrap="words", min_width=20),
    ]
    colour = not console.no_color

    def rows() -> Iterator[tuple[list[str], str]]:
        for agent in selected_agents(report, quiet):
            cells = _cells(agent)
            run = agent.last_run
            last = f"{run.status} {_iso(run.finished_at)[:16].replace('T', ' ')}" if run else "-"
            row = [cells[0], cells[1], cells[2], cells[3], cells[5], last, cells[12]]
            yield row, STATUS_STYLES.get(agent.verdict, "") if colour else ""

    yield from draw_table(console, "memwarm status", columns, rows(), styles)


def write_textfile(path: str, text: str) -> None:
    """`text` to `path` as node_exporter's textfile collector needs it: a temp file in the same
    directory, renamed over `path`, so the collector never reads half a file. The directory must exist;
    the temp file never survives a failure. Raises OutputError (exit 5)."""
    from memwarm_cli.errors import OutputError, UsageError

    # Path() drops a trailing `/` and `/.`: `x.prom/` and `prom/.` wrote a file x.prom or prom.
    if not path or path.endswith("/") or os.path.basename(path) in (".", ".."):
        raise UsageError(f"--textfile: {path!r} names no file (give the path of the .prom file to write)")
    target = Path(path)
    directory = target.parent
    try:
        directory_ok = stat.S_ISDIR(os.stat(directory).st_mode)
    except FileNotFoundError:
        directory_ok = False
    except OSError as exc:  # a name too long, a loop of links, ...
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    if not directory_ok:
        raise OutputError(f"cannot write {path}: the directory {directory} does not exist")
    _refuse_unless_regular_or_absent(path)
    # The name's first 200 bytes only: a legal 245-byte target name made the temp name too long.
    stem = os.fsencode(target.name)[:200].decode("utf-8", "ignore")
    temp = directory / f".{stem}.{os.urandom(8).hex()}.tmp"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(temp, flags, 0o644)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        try:
            view = memoryview(text.encode("utf-8"))
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        _refuse_unless_regular_or_absent(path)  # again: what stood there may have been swapped meanwhile
        os.rename(temp, target)
    except BaseException as failure:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(failure, OSError):
            raise OutputError(f"cannot write {path}: {failure.strerror or failure}") from None
        raise


def _refuse_unless_regular_or_absent(path: str) -> None:
    """The rename replaces whatever has the target's name: only a regular file of ours may be there. A
    device, FIFO or socket (`--textfile /dev/null`) or a symlink is the user's, never replaced."""
    from memwarm_cli.config.regularfile import not_regular_kind
    from memwarm_cli.errors import OutputError

    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else not_regular_kind(info)
    if kind is not None:
        raise OutputError(
            f"cannot write {path}: it is {kind}, and memwarm replaces only a regular file there"
        )
