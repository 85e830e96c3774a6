"""`memwarm init-backends`: pre-warm every agent's qmd index, as the gateway's start-up would.

Log lines go to stderr with OpenClaw's wording, then one summary line; `--json` prints the report on
stdout; `--dry-run` prints the plan on stdout (cli/commands/init_backends_views.py). The log's order and
the progress display, shown only when stderr is a terminal, are cli/commands/init_backends_progress.py's.
SIGINT/SIGTERM stop the children, release the locks and exit 130/143. Typer-free, so cli/fastpath.py can
run it too; the Typer command is cli/commands/init_backends_cmd.py.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from memwarm_cli.backends.builtin.builtin_init import BuiltinInitOptions
from memwarm_cli.backends.init.init_report import InitOptions
from memwarm_cli.backends.init.init_run import run_init_backends
from memwarm_cli.backends.qmd.process import timeout_ms_from_seconds
from memwarm_cli.backends.retired import RetiredBackends, retired_backends
from memwarm_cli.cancel import CancelToken
from memwarm_cli.cli.commands.init_backends_builtin import run_builtin_init_command
from memwarm_cli.cli.commands.init_backends_cron import qmd_silence_line, retired_silence_line
from memwarm_cli.cli.commands.init_backends_progress import InitRenderer
from memwarm_cli.cli.commands.init_backends_views import (
    INIT_VIEWS,
    RETIRED_INIT_VIEWS,
    InitRun,
    RetiredRun,
    retired_summary,
)
from memwarm_cli.cli.terminal.command_config import load_for_command
from memwarm_cli.cli.terminal.interrupts import signals_cancel
from memwarm_cli.cli.terminal.output import write_stderr
from memwarm_cli.configview.release_checks import refuse_rejected_config
from memwarm_cli.errors import UsageError
from memwarm_cli.jsstring import js_trim
from memwarm_cli.startup.clock import parse_instant
from memwarm_cli.textsafe import escape_text

if TYPE_CHECKING:
    from memwarm_cli.config.run import ConfigRun
    from memwarm_cli.exitcodes import ExitCode
    from memwarm_cli.profiles.choice import OpenClawChoice


def run_init_backends_command(
    *,
    config_path: str | None,
    openclaw: str | None,
    agent: Sequence[str] | None = None,
    dry_run: bool = False,
    force: bool = False,
    embed: bool | None = None,
    probe: bool = False,
    probe_query: str | None = None,
    probe_timeout: float | None = None,
    concurrency: int | None = None,
    timeout: float | None = None,
    at: str | None = None,
    json_output: bool = False,
    quiet: bool = False,
    include_stale: bool = False,
) -> ExitCode:
    """Prepare each agent's qmd index where the gateway looks for it; returns the exit code."""
    for flag, seconds in (("--timeout", timeout), ("--probe-timeout", probe_timeout)):
        if seconds is not None and not math.isfinite(seconds):
            raise UsageError(f"{flag}: {seconds} is not a finite number of seconds")
    if probe_query is not None and not js_trim(probe_query):
        raise UsageError("--probe-query: the query is empty")
    view = INIT_VIEWS.choose(json_output, None)
    at_ms = parse_instant(at)
    run = load_for_command(config_path, openclaw=openclaw, quiet=quiet)
    loaded, choice = run.loaded, run.openclaw
    # Before the release's config checks: a release without the qmd backend refuses a qmd config, and
    # what to say then is that there is nothing to prepare (exit 6), with that refusal in the line.
    retired = retired_backends(loaded, choice, tuple(agent or ()))
    if retired is not None and retired.refused_keys:
        return _show_retired(retired, choice, dry_run=dry_run, json_output=json_output, quiet=quiet)
    # the gateway would not start on it (exit 3)
    refuse_rejected_config(loaded, profile=choice.profile, version=choice.version, origin=choice.origin)
    if retired is not None:  # no qmd config on a release without qmd: its builtin index
        return _builtin(run, agent, dry_run, force, include_stale, timeout, json_output, quiet)

    options = InitOptions(
        agents=tuple(agent or ()),
        dry_run=dry_run,
        force=force,
        embed=embed,
        probe=probe or probe_query is not None or probe_timeout is not None,
        concurrency=concurrency,
        timeout_ms=timeout_ms_from_seconds(timeout) if timeout is not None else None,
        probe_query=probe_query,
        probe_timeout_ms=timeout_ms_from_seconds(probe_timeout) if probe_timeout is not None else None,
        at_ms=at_ms,
    )
    token = CancelToken()
    renderer = InitRenderer(quiet=quiet, dry_run=dry_run)
    with signals_cancel(token), renderer.live():
        report = run_init_backends(
            loaded, options, profile=choice.profile, token=token, on_event=renderer.handle
        )

    renderer.finish(report)  # the summary line first: it still reaches stderr if stdout cannot be written
    silence = qmd_silence_line(report, loaded.source) if quiet else None
    if silence is not None:  # -q, and nothing warmed nor failed: a cron job must still hear of it
        write_stderr(silence)
    view.show(InitRun(report, choice))
    return report.exit_code


def _builtin(
    run: ConfigRun,
    agent: Sequence[str] | None,
    dry_run: bool,
    force: bool,
    include_stale: bool,
    timeout: float | None,
    json_output: bool,
    quiet: bool,
) -> ExitCode:
    """2026.8.1+: build the cold agents' builtin index with the release's own CLI (backends/builtin/)."""

    options = BuiltinInitOptions(
        agents=tuple(agent or ()),
        dry_run=dry_run,
        force=force,
        include_stale=include_stale,
        timeout_ms=timeout_ms_from_seconds(timeout) if timeout is not None else None,
    )
    return run_builtin_init_command(
        run.loaded, options, openclaw=run.openclaw, json_output=json_output, quiet=quiet
    )


def _show_retired(
    retired: RetiredBackends, openclaw: OpenClawChoice, *, dry_run: bool, json_output: bool, quiet: bool
) -> ExitCode:
    """Every agent `retired`: its line on stderr (a dry run's plan on stdout), then the summary; no qmd."""
    view = RETIRED_INIT_VIEWS.choose(json_output, None)
    if not quiet:
        if not dry_run:  # a dry run has them on stdout, as its plan
            for agent in retired.agents:
                write_stderr(escape_text(f'agent "{agent.agent_id}": retired: {agent.reason}'))
        write_stderr(escape_text(retired_summary(retired, dry_run)))
    elif not dry_run:  # -q: nothing was warmed, which a cron job must still hear of (one line)
        write_stderr(retired_silence_line(retired))
    view.show(RetiredRun(retired, dry_run, openclaw))
    return retired.exit_code
