"""`memwarm scan`'s Typer command. The work is in cli/commands/scan.py (Typer-free, so cli/fastpath.py can
run it too), its views in scan_views.py; option values are checked there, so both routes report a bad
value with the same line."""

from __future__ import annotations

from typing import Annotated

import typer

from memwarm_cli.cli.commands.scan_views import SCAN_VIEWS
from memwarm_cli.cli.options import (
    AgentOption,
    AtOption,
    JsonAliasOption,
    QuietOption,
    WorkspaceOption,
    format_option,
    global_options,
)
from memwarm_cli.exitcodes import ExitCode  # the return annotation: Typer evaluates it


def scan_command(
    ctx: typer.Context,
    agent: AgentOption = None,
    all_agents: Annotated[
        bool, typer.Option("--all-agents", help="One section per configured agent.")
    ] = False,
    workspace: WorkspaceOption = None,
    at: AtOption = None,
    show_all: Annotated[
        bool,
        typer.Option("--all", help="Also list every other *.md in memory/ (outside the window, misnamed)."),
    ] = False,
    json_output: JsonAliasOption = False,
    output_format: Annotated[
        str | None,
        format_option(SCAN_VIEWS.names, "table (default on a terminal), plain (default in a pipe) or json."),
    ] = None,
    quiet: QuietOption = False,
) -> ExitCode:
    """Explain every candidate memory file and where the character budget went."""
    # the command's module: building the Typer app (--help, other commands) does not load it
    from memwarm_cli.cli.commands.scan import run_scan

    options = global_options(ctx)
    return run_scan(
        config_path=options.config_path,
        openclaw=options.openclaw,
        agent=agent,
        all_agents=all_agents,
        workspace=workspace,
        at=at,
        show_all=show_all,
        json_output=json_output,
        output_format=output_format,
        quiet=quiet,
    )
