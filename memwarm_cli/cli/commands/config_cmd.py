"""`memwarm config path | check | show`: what OpenClaw will do with this config, before it does it.

The Typer declarations; the work is cli/commands/config.py, the views config_views.py.
"""

from __future__ import annotations

from typing import Annotated

import typer

from memwarm_cli.cli.commands.config_views import SHOW_VIEWS
from memwarm_cli.cli.options import (
    JsonAliasOption,
    JsonOption,
    QuietOption,
    examples,
    format_option,
    global_options,
)
from memwarm_cli.exitcodes import ExitCode  # the return annotation: Typer evaluates it

config_app = typer.Typer(
    name="config",
    help="Find, check and show the OpenClaw config.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)


@config_app.command(
    "path",
    short_help="Which config file is used and why; workspaces, qmd indexes.",
    epilog=examples("memwarm config path", "memwarm --config ./openclaw.json5 config path --json"),
)
def path_command(ctx: typer.Context, json_output: JsonOption = False, quiet: QuietOption = False) -> ExitCode:
    """Which config file is used and why, the state dir, each agent's workspace and qmd index path."""
    # the command's module: building the Typer app (--help, other commands) does not load it
    from memwarm_cli.cli.commands.config import run_config_path

    options = global_options(ctx)
    return run_config_path(
        config_path=options.config_path, openclaw=options.openclaw, json_output=json_output, quiet=quiet
    )


@config_app.command(
    "check",
    short_help="Report every error and warning, at its file, line and column.",
    epilog=examples("memwarm config check --strict", "memwarm config check --json"),
)
def check_command(
    ctx: typer.Context,
    strict: Annotated[
        bool, typer.Option("--strict", help="Warnings count as errors for the exit code.")
    ] = False,
    json_output: JsonOption = False,
    quiet: QuietOption = False,
) -> ExitCode:
    """Report every error and warning as <file>:<line>:<col>: <severity>: <path>: <message>.

    Exit 0 without errors (warnings allowed), 1 with errors (with --strict, warnings too), 3 when the
    file cannot be read or parsed.
    """
    # the command's module: building the Typer app (--help, other commands) does not load it
    from memwarm_cli.cli.commands.config import run_config_check

    options = global_options(ctx)
    return run_config_check(
        config_path=options.config_path,
        openclaw=options.openclaw,
        strict=strict,
        json_output=json_output,
        quiet=quiet,
    )


@config_app.command(
    "show",
    short_help="The effective settings per agent, as YAML, JSON or TOML.",
    epilog=examples("memwarm config show --agent main", "memwarm config show --format toml"),
)
def show_command(
    ctx: typer.Context,
    agent: Annotated[
        str | None, typer.Option("--agent", "-a", metavar="ID", help="Only this agent (default: all agents).")
    ] = None,
    output_format: Annotated[
        str | None, format_option(SHOW_VIEWS.names, "yaml (the default), json or toml.")
    ] = None,
    json_output: JsonAliasOption = False,
    quiet: QuietOption = False,
) -> ExitCode:
    """The effective, resolved settings per agent: workspace, time zone, startup limits, memory, qmd."""
    # the command's module: building the Typer app (--help, other commands) does not load it
    from memwarm_cli.cli.commands.config import run_config_show

    options = global_options(ctx)
    return run_config_show(
        config_path=options.config_path,
        openclaw=options.openclaw,
        agent=agent,
        output_format=output_format,
        json_output=json_output,
        quiet=quiet,
    )
