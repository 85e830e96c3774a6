"""`memwarm status`'s Typer command. The work is in cli/commands/status.py (Typer-free, so cli/fastpath.py can
run it too); option values are checked there, so both routes report a bad value with the same line."""

from __future__ import annotations

from typing import Annotated

import typer

from memwarm_cli.cli.commands.status_views import STATUS_VIEWS
from memwarm_cli.cli.options import AgentsOption, JsonAliasOption, format_option, global_options
from memwarm_cli.exitcodes import ExitCode  # the return annotation: Typer evaluates it


def status_command(
    ctx: typer.Context,
    agent: AgentsOption = None,
    all_agents: Annotated[
        bool, typer.Option("--all-agents", help="Every configured agent (the default).")
    ] = False,
    json_output: JsonAliasOption = False,
    output_format: Annotated[
        str | None,
        format_option(
            STATUS_VIEWS.names,
            "table (default on a terminal), plain (default in a pipe), json or prometheus.",
        ),
    ] = None,
    textfile: Annotated[
        str | None,
        typer.Option(
            "--textfile",
            metavar="PATH",
            help="Write the Prometheus text format to PATH atomically (node_exporter's textfile collector).",
        ),
    ] = None,
    max_age: Annotated[
        str | None,
        typer.Option(
            "--max-age",
            metavar="DURATION",
            help="Stale when the last successful run is older (90m, 2h, 1d; a bare number is minutes).",
        ),
    ] = None,
    quiet: Annotated[
        bool,
        typer.Option(
            "--quiet", "-q", help="Only errors on stderr, and only the agents that are not warm in the table."
        ),
    ] = False,
) -> ExitCode:
    """Show whether each agent's qmd index is warm, and why not (read-only)."""
    # the command's module: building the Typer app (--help, other commands) does not load it
    from memwarm_cli.cli.commands.status import run_status

    options = global_options(ctx)
    return run_status(
        config_path=options.config_path,
        openclaw=options.openclaw,
        agent=agent,
        all_agents=all_agents,
        json_output=json_output,
        output_format=output_format,
        textfile=textfile,
        max_age=max_age,
        quiet=quiet,
    )
