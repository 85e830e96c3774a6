"""`memwarm prelude`: print exactly the startup prelude OpenClaw would put in front of a new session."""

from __future__ import annotations

from typing import Annotated

import typer

from memwarm_cli.cli.options import (
    AgentOption,
    AtOption,
    JsonOption,
    QuietOption,
    RawOption,
    WorkspaceOption,
    global_options,
)
from memwarm_cli.exitcodes import ExitCode  # the return annotation: Typer evaluates it


def prelude_command(
    ctx: typer.Context,
    agent: AgentOption = None,
    workspace: WorkspaceOption = None,
    at: AtOption = None,
    action: Annotated[
        str, typer.Option("--action", metavar="new|reset", help="Session action the gate is checked for.")
    ] = "new",
    json_output: JsonOption = False,
    quiet: QuietOption = False,
    raw: RawOption = False,
) -> ExitCode:
    """Print the startup prelude a new or reset session would see."""
    # the command's module: building the Typer app (--help, other commands) does not load it
    from memwarm_cli.cli.commands.prelude import run_prelude

    options = global_options(ctx)
    return run_prelude(
        config_path=options.config_path,
        openclaw=options.openclaw,
        agent=agent,
        workspace=workspace,
        at=at,
        action=action,
        json_output=json_output,
        quiet=quiet,
        raw=raw,
    )
