"""`memwarm config path | check | show`'s work, free of Typer; the views are cli/commands/config_views.py.

Everything is computed before the first byte is written: an error exit leaves stdout empty (the error
line on stderr names the file and why it was chosen).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from memwarm_cli.cancel import Cancelled, CancelToken
from memwarm_cli.cli.commands.config_views import CHECK_VIEWS, PATH_VIEWS, SHOW_VIEWS
from memwarm_cli.cli.terminal.command_config import choose_release, load_for_command, with_openclaw
from memwarm_cli.cli.terminal.interrupts import signals_cancel
from memwarm_cli.cli.terminal.invocation import current
from memwarm_cli.configview.path_view import path_data
from memwarm_cli.configview.show_view import show_data
from memwarm_cli.exitcodes import ExitCode, signal_exit

if TYPE_CHECKING:
    from memwarm_cli.configview.check import CheckReport
    from memwarm_cli.profiles.choice import OpenClawChoice


class PathResult(NamedTuple):
    data: dict[str, Any]
    openclaw: OpenClawChoice  # the release whose rules placed the workspaces


class CheckResult(NamedTuple):
    report: CheckReport
    strict: bool
    quiet: bool
    openclaw: OpenClawChoice  # the release the config was judged for


class ShowResult(NamedTuple):
    data: dict[str, Any]
    config_file: str  # named when the data cannot be written (nested too deeply)


def run_config_path(
    *, config_path: str | None, openclaw: str | None, json_output: bool, quiet: bool
) -> ExitCode:
    """Which config file is used and why, the state dir, each agent's workspace and qmd index path."""
    view = PATH_VIEWS.choose(json_output, None)
    run = load_for_command(config_path, openclaw=openclaw, quiet=quiet)
    view.show(PathResult(path_data(run.loaded, profile=run.profile), run.openclaw))
    return ExitCode.OK


def run_config_check(
    *, config_path: str | None, openclaw: str | None, strict: bool, json_output: bool, quiet: bool
) -> ExitCode:
    """Every error and warning of the config; exit 1 with errors (with `strict`, warnings too), 3 when
    the file could not be read or parsed."""
    # Here, not with the module: the checks are ~40 modules (the schemas, qmd's diagnosis; ~26 ms by
    # -X importtime) that `config path` and `config show` never use.
    from memwarm_cli.configview.check import check_config

    def release_for(cfg: Mapping[str, Any] | None) -> OpenClawChoice:
        """The run's release (flag, environment, installed package, then the config's shape)."""
        return choose_release(openclaw, cfg, quiet=quiet)

    view = CHECK_VIEWS.choose(json_output, None)
    with signals_cancel(CancelToken()) as token:  # `node --version` may run: stopped before we end
        try:
            report = check_config(
                config_path, current().env, dotenv=True, token=token, choose_release=release_for
            )
        except Cancelled as stop:
            return signal_exit(stop.signum)
    view.show(CheckResult(report, strict, quiet, report.openclaw))
    if report.unreadable:  # the file could not be read or parsed: its error is the one finding
        return ExitCode.CONFIG
    return ExitCode.FINDINGS if report.failed(strict) else ExitCode.OK


def run_config_show(
    *,
    config_path: str | None,
    openclaw: str | None,
    agent: str | None,
    output_format: str | None,
    json_output: bool,
    quiet: bool,
) -> ExitCode:
    """The effective, resolved settings per agent, as YAML (the default), JSON or TOML."""
    view = SHOW_VIEWS.asked(json_output, output_format) or SHOW_VIEWS.by_name["yaml"]
    run = load_for_command(config_path, openclaw=openclaw, quiet=quiet)
    loaded = run.loaded
    # Every format of the record says which OpenClaw release it is read for.
    data = show_data(loaded, agent_id=agent, profile=run.profile)
    view.show(ShowResult(with_openclaw(data, run.openclaw), loaded.source.path))
    return ExitCode.OK
