"""`memwarm status`: is each agent's qmd index warm? Read-only (backends/agent_status.py).

Views (cli/commands/status_views.py): a table on a terminal, tab-separated lines in a pipe, versioned
JSON, and the node_exporter textfile format (`--format prometheus`; `--textfile PATH` writes it
atomically, status_prometheus.py). With `--textfile` and no `--format`/`--json`, stdout stays empty: a
cron line prints nothing unless something fails to run. On a release without the qmd backend every agent
is `retired` (backends/retired.py; exit 6) and nothing of qmd is read or run. Typer-free, so
cli/fastpath.py can run it too; the Typer command is cli/commands/status_cmd.py.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from memwarm_cli.backends.agent_status import StatusOptions, collect_status
from memwarm_cli.backends.retired import release_label, retired_backends
from memwarm_cli.cancel import Cancelled, CancelToken
from memwarm_cli.cli.commands.status_prometheus import (
    prometheus_text,
    retired_prometheus_text,
    status_failed_text,
    write_textfile,
)
from memwarm_cli.cli.commands.status_views import RETIRED_STATUS_VIEWS, STATUS_VIEWS, RetiredStatus
from memwarm_cli.cli.terminal.command_config import load_for_command
from memwarm_cli.cli.terminal.interrupts import signals_cancel
from memwarm_cli.cli.terminal.output import warn
from memwarm_cli.configview.release_checks import refuse_rejected_config
from memwarm_cli.durations import parse_duration_ms
from memwarm_cli.errors import MemwarmError, UsageError
from memwarm_cli.exitcodes import signal_exit
from memwarm_cli.frozen_records import record

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from memwarm_cli.backends.agent_status import StatusReport
    from memwarm_cli.backends.builtin.builtin_status import BuiltinStatusReport
    from memwarm_cli.backends.retired import RetiredBackends
    from memwarm_cli.cli.terminal.view_format import View
    from memwarm_cli.config.run import ConfigRun
    from memwarm_cli.exitcodes import ExitCode
    from memwarm_cli.profiles.choice import OpenClawChoice


@record
class StatusResult:
    """What `status`'s views show."""

    report: StatusReport
    quiet: bool  # the table and plain views list only the agents that are not warm
    openclaw: OpenClawChoice  # the release the indexes were judged for


def run_status(
    *,
    config_path: str | None,
    openclaw: str | None,
    agent: Sequence[str] | None = None,
    all_agents: bool = False,
    json_output: bool = False,
    output_format: str | None = None,
    textfile: str | None = None,
    max_age: str | None = None,
    quiet: bool = False,
) -> ExitCode:
    """Show whether each agent's qmd index is warm, and why not; returns the exit code."""
    try:
        max_age_seconds, view = _options(all_agents, agent, max_age, json_output, output_format, textfile)
        with signals_cancel(CancelToken()) as token:
            try:
                run = load_for_command(config_path, openclaw=openclaw, quiet=quiet)
                loaded, choice = run.loaded, run.openclaw
                # Before the config checks, as init-backends: a qmd config on a release without qmd is
                # `retired` (exit 6); any other config there has the builtin index (backends/builtin/).
                retired = retired_backends(loaded, choice, tuple(agent or ()))
                report = None
                builtin = None
                if retired is not None and not retired.refused_keys:
                    retired = None
                    refuse_rejected_config(
                        loaded, profile=choice.profile, version=choice.version, origin=choice.origin
                    )
                    builtin = _builtin_status(run, tuple(agent or ()), max_age_seconds, quiet)
                elif retired is None:
                    # No index is "warm" for a config the release refuses.
                    refuse_rejected_config(
                        loaded, profile=choice.profile, version=choice.version, origin=choice.origin
                    )
                    report = collect_status(
                        loaded,
                        StatusOptions(agents=tuple(agent or ()), max_age_seconds=max_age_seconds),
                        profile=choice.profile,
                        warn=None if quiet else warn,
                        token=token,
                    )
            except Cancelled as stop:
                return signal_exit(stop.signum)
    except MemwarmError:
        # Any run that judged nothing (a bad option, a config error, an unknown agent) says so to
        # node_exporter, rather than leave the last good file to be reported on.
        if textfile is not None:  # (a textfile that names no file is refused in there, suppressed)
            try:  # noqa: SIM105 - not contextlib.suppress: contextlib costs every status ~1 ms CPU
                write_textfile(textfile, status_failed_text())
            except MemwarmError:
                pass
        raise
    if token.signum is not None:  # also a signal during the walks, which do not stop for it
        return signal_exit(token.signum)
    if retired is not None:
        return _show_retired(run, retired, view, textfile, max_age_seconds, quiet)
    if builtin is not None:
        return _show_builtin(run, builtin, view, textfile, quiet)
    assert report is not None
    if textfile is not None:
        write_textfile(textfile, prometheus_text(report))
    if view is not None:
        view.show(StatusResult(report, quiet, run.openclaw))
    return report.exit_code


def _builtin_status(
    run: ConfigRun, agents: tuple[str, ...], max_age_seconds: float | None, quiet: bool
) -> BuiltinStatusReport:
    """Every agent's builtin index on a 2026.8.1+ release, judged read-only (backends/builtin/)."""
    # backends.builtin: only a 2026.8.1+ release reads it; status on qmd imports none (test_imports)
    from memwarm_cli.backends.builtin.builtin_status import collect_builtin_status

    choice = run.openclaw
    if max_age_seconds is not None and not quiet:
        warn("--max-age is not used on the builtin index: memwarm keeps no run record of OpenClaw's builds")
    return collect_builtin_status(
        run.loaded, agents, choice=choice, release=release_label(choice), max_age_seconds=max_age_seconds
    )


def _show_builtin(
    run: ConfigRun,
    report: BuiltinStatusReport,
    view: View[StatusResult] | None,
    textfile: str | None,
    quiet: bool,
) -> ExitCode:
    # status_builtin: the builtin index's views, not on status's qmd path (test_imports)
    from memwarm_cli.cli.commands.status_builtin import (
        BUILTIN_STATUS_VIEWS,
        BuiltinStatus,
        builtin_prometheus_text,
    )

    if textfile is not None:
        write_textfile(textfile, builtin_prometheus_text(report))
    if view is not None:
        BUILTIN_STATUS_VIEWS.by_name[view.name].show(BuiltinStatus(report, quiet, run.openclaw))
    return report.exit_code


def _show_retired(
    run: ConfigRun,
    retired: RetiredBackends,
    view: View[StatusResult] | None,
    textfile: str | None,
    max_age_seconds: float | None,
    quiet: bool,
) -> ExitCode:
    """Every agent `retired` (backends/retired.py), in the view asked for and the textfile; no qmd."""
    if textfile is not None:
        write_textfile(textfile, retired_prometheus_text(retired))
    if view is not None:
        shown = RetiredStatus(retired, quiet, time.time(), max_age_seconds, run.openclaw)
        RETIRED_STATUS_VIEWS.by_name[view.name].show(shown)
    return retired.exit_code


def _options(
    all_agents: bool,
    agent: Sequence[str] | None,
    max_age: str | None,
    json_output: bool,
    output_format: str | None,
    textfile: str | None,
) -> tuple[float | None, View[StatusResult] | None]:
    """--max-age in seconds and the view (None: `--textfile` alone); UsageError for what cannot be."""
    if all_agents and agent:
        raise UsageError("--agent and --all-agents exclude each other")
    max_age_seconds: float | None = None
    if max_age is not None:
        try:
            max_age_seconds = parse_duration_ms(max_age, "m") / 1000
        except ValueError as exc:
            forms = "a number with a unit, ms, s, m, h or d (30m, 1.5h, 2d), or a bare number of minutes"
            raise UsageError(f"--max-age: {exc}; use {forms}") from None
    if textfile is not None:
        return max_age_seconds, STATUS_VIEWS.asked(json_output, output_format)
    return max_age_seconds, STATUS_VIEWS.choose(json_output, output_format)
