"""`status --format prometheus` and `--textfile`: node_exporter's textfile collector format.

Only agents that memwarm prepares (memory search on, backend qmd) get samples. Every metric has its HELP
and TYPE lines; label values are escaped as the text format requires (backslash, double quote, line
feed); a sample whose value is unknown (no run recorded yet) is left out rather than made up. On a
release without the qmd backend (backends/retired.py) every agent is `retired`: it has only its
`memwarm_agent_status` samples (`status="retired"` 1), since it has no index to be warm or to count.
`--textfile PATH` writes the same text to PATH atomically (`write_textfile`).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from memwarm_cli.cli.terminal.view_format import View
from memwarm_cli.errors import OutputError, UsageError
from memwarm_cli.safe_files import NotRegularFileError, write_atomically

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from memwarm_cli.backends.agent_status import AgentStatus, StatusReport
    from memwarm_cli.backends.retired import RetiredBackends
    from memwarm_cli.cli.commands.status import StatusResult
    from memwarm_cli.cli.commands.status_views import RetiredStatus

Sample = tuple[dict[str, str], float]


def escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _format_value(value: float) -> str:
    if value == int(value) and abs(value) < 2**53:
        return str(int(value))
    return repr(float(value))


def _metric(name: str, help_text: str, samples: Iterable[Sample]) -> list[str]:
    lines = [f"# HELP {name} {help_text}", f"# TYPE {name} gauge"]
    for labels, value in samples:
        text = ",".join(f'{key}="{escape_label(item)}"' for key, item in labels.items())
        lines.append(f"{name}{{{text}}} {_format_value(value)}" if text else f"{name} {_format_value(value)}")
    return lines


_STATUS_OK_HELP = "1 when memwarm status read the config and judged the agents; 0 when it could not."


def status_failed_text() -> str:
    """The textfile of a status run that judged nothing (a config error, an unknown agent): it replaces
    the last good one, whose `memwarm_agent_warm 1` node_exporter would otherwise go on reporting."""
    return "\n".join(_metric("memwarm_status_ok", _STATUS_OK_HELP, [({}, 0.0)])) + "\n"


class StatusPrometheus(View["StatusResult"]):
    name = "prometheus"

    def render(self, result: StatusResult) -> Iterator[str]:
        yield prometheus_text(result.report)


class RetiredPrometheus(View["RetiredStatus"]):
    name = "prometheus"

    def render(self, result: RetiredStatus) -> Iterator[str]:
        yield retired_prometheus_text(result.retired)


RETIRED = "retired"
_AGENT_STATUS_HELP = (
    "The agent's status: 1 for the one it is in, 0 for the others; retired: the selected OpenClaw "
    "release has no qmd backend (2026.8.1 and later), so nothing is prepared or judged."
)


def _statuses() -> tuple[str, ...]:
    """The values of memwarm_agent_status's `status` label: the same set on every release, so a series
    exists (at 0) before an upgrade makes it 1."""
    # agent_status (the qmd and freshness checks, ~14 ms): the app's build (--help, config, search)
    # imports this module with status_views, and loads no status
    from memwarm_cli.backends.agent_status import ELIGIBLE_VERDICTS

    return (*ELIGIBLE_VERDICTS, RETIRED)


def retired_prometheus_text(retired: RetiredBackends) -> str:
    """The textfile of a run on a release without the qmd backend: every agent `retired`."""
    return _families([], [agent.agent_id for agent in retired.agents])


def prometheus_text(report: StatusReport) -> str:
    return _families([agent for agent in report.agents if agent.eligible], [])


def _families(agents: list[AgentStatus], retired: list[str]) -> str:
    """Every metric: `agents` judged, `retired` the ids of agents on a release without qmd."""
    statuses = _statuses()
    lines: list[str] = []
    lines += _metric("memwarm_status_ok", _STATUS_OK_HELP, [({}, 1.0)])
    lines += _metric(
        "memwarm_agent_warm",
        "1 when the agent's qmd index is warm (a run now would be fresh, the last run succeeded), else 0.",
        (({"agent": a.agent_id}, 1.0 if a.verdict == "warm" else 0.0) for a in agents),
    )
    lines += _metric(
        "memwarm_agent_status",
        _AGENT_STATUS_HELP,
        [
            *(
                ({"agent": a.agent_id, "status": status}, 1.0 if a.verdict == status else 0.0)
                for a in agents
                for status in statuses
            ),
            *(
                ({"agent": agent_id, "status": status}, 1.0 if status == RETIRED else 0.0)
                for agent_id in retired
                for status in statuses
            ),
        ],
    )
    lines += _metric(
        "memwarm_index_documents",
        "Active documents per managed collection in the agent's qmd index.",
        _documents(agents),
    )
    lines += _metric(
        "memwarm_index_pending_embeddings",
        "Documents per managed collection still waiting for embeddings (vsearch and query modes only).",
        _pending(agents),
    )
    lines += _metric(
        "memwarm_stale_files",
        "Files added, changed or removed since the last successful run (what a run now would index).",
        (({"agent": a.agent_id}, float(a.freshness.stale_files)) for a in agents if a.freshness),
    )
    lines += _metric(
        "memwarm_last_run_timestamp_seconds",
        "When the agent's last init-backends run finished (Unix time).",
        (({"agent": a.agent_id}, a.last_run.finished_at) for a in agents if a.last_run),
    )
    lines += _metric(
        "memwarm_last_success_timestamp_seconds",
        "When the agent's last armed or fresh init-backends run finished (Unix time).",
        (({"agent": a.agent_id}, a.last_success_at) for a in agents if a.last_success_at is not None),
    )
    lines += _metric(
        "memwarm_last_run_duration_seconds",
        "How long the agent's last init-backends run took.",
        (({"agent": a.agent_id}, a.last_run.duration_ms / 1000) for a in agents if a.last_run),
    )
    lines += _metric(
        "memwarm_embed_backoff_until_seconds",
        "Until when the next qmd embed waits after failures (Unix time; 0 when it does not wait).",
        (({"agent": a.agent_id}, _backoff_until(a)) for a in agents),
    )
    return "\n".join(lines) + "\n"


def _documents(agents: list[AgentStatus]) -> Iterable[Sample]:
    for agent in agents:
        index = agent.index
        if index is None or index.stats is None:
            continue
        for name in index.managed:
            yield {"agent": agent.agent_id, "collection": name}, float(index.stats.documents.get(name, 0))


def _pending(agents: list[AgentStatus]) -> Iterable[Sample]:
    for agent in agents:
        index = agent.index
        if index is None or index.stats is None or not index.needs_vectors:
            continue
        for name in index.managed:
            value = float(index.stats.pending_embeddings.get(name, 0))
            yield {"agent": agent.agent_id, "collection": name}, value


def _backoff_until(agent: AgentStatus) -> float:
    backoff = agent.embed_backoff
    return backoff.until if backoff is not None and backoff.until is not None else 0.0


def write_textfile(path: str, text: str) -> None:
    """`text` to `path` as node_exporter's textfile collector needs it: written atomically (the collector
    never reads half a file) and durably, mode 0644 for the collector's user. The directory must exist.
    A device, FIFO, socket or symlink at `path` (`--textfile /dev/null`) is the user's and is never
    replaced. Raises UsageError for a path that names no file, OutputError (exit 5) for the rest."""
    # Path() drops a trailing `/` and `/.`: `x.prom/` and `prom/.` wrote a file x.prom or prom.
    if not path or path.endswith("/") or os.path.basename(path) in (".", ".."):
        raise UsageError(f"--textfile: {path!r} names no file (give the path of the .prom file to write)")
    directory = Path(path).parent
    try:
        directory_ok = stat.S_ISDIR(os.stat(directory).st_mode)
    except FileNotFoundError:
        directory_ok = False
    except OSError as exc:  # a name too long, a loop of links, ...
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
    if not directory_ok:
        raise OutputError(f"cannot write {path}: the directory {directory} does not exist")
    try:
        write_atomically(path, text.encode("utf-8"), durable=True, mode=0o644)
    except NotRegularFileError as refused:
        raise OutputError(
            f"cannot write {path}: it is {refused.kind}, and memwarm replaces only a regular file there"
        ) from None
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
