"""`memwarm context`: the whole startup context a new session sees, bootstrap files and prelude.

The work is in cli/commands/context.py (Typer-free, so cli/fastpath.py can run it too); option values are
checked there, so both routes report a bad value with the same line.
"""

from __future__ import annotations

from typing import Annotated

import typer

from memwarm_cli.cli.commands.context_views import CONTEXT_VIEWS
from memwarm_cli.cli.options import (
    AgentOption,
    AtOption,
    JsonAliasOption,
    QuietOption,
    RawOption,
    WorkspaceOption,
    format_option,
    global_options,
)
from memwarm_cli.exitcodes import ExitCode  # the return annotation: Typer evaluates it


def context_command(
    ctx: typer.Context,
    agent: AgentOption = None,
    workspace: WorkspaceOption = None,
    session_key: Annotated[
        str | None,
        typer.Option(
            "--session-key",
            "-k",
            metavar="KEY",
            help="Session key, e.g. agent:main:subagent:<id> or agent:main:cron:<job> "
            "(default: the agent's main session, agent:<id>:main).",
        ),
    ] = None,
    at: AtOption = None,
    action: Annotated[
        str,
        typer.Option("--action", metavar="new|reset", help="Session action the prelude gate is checked for."),
    ] = "new",
    only: Annotated[
        str | None,
        typer.Option(
            "--only",
            metavar="bootstrap|prelude",
            help="Show only the bootstrap files or the prelude (not for JSON).",
        ),
    ] = None,
    json_output: JsonAliasOption = False,
    output_format: Annotated[
        str | None,
        format_option(
            CONTEXT_VIEWS.names,
            "text (default in a pipe: the exact bytes), table (default on a terminal), plain or json.",
        ),
    ] = None,
    quiet: QuietOption = False,
    raw: RawOption = False,
) -> ExitCode:
    """Show the Project Context block(s) and the startup prelude a new session would see, and why."""
    # the command's module: building the Typer app (--help, other commands) does not load it
    from memwarm_cli.cli.commands.context import run_context

    options = global_options(ctx)
    return run_context(
        config_path=options.config_path,
        openclaw=options.openclaw,
        agent=agent,
        workspace=workspace,
        session_key=session_key,
        at=at,
        action=action,
        only=only,
        json_output=json_output,
        output_format=output_format,
        quiet=quiet,
        raw=raw,
    )
