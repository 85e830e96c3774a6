"""`memwarm search`'s Typer command; the work is cli/commands/search.py, the views search_views.py."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from memwarm_cli.cli.options import AgentOption, JsonOption, QuietOption, global_options
from memwarm_cli.exitcodes import ExitCode  # the return annotation: Typer evaluates it


class SearchMode(StrEnum):
    search = "search"
    vsearch = "vsearch"
    query = "query"


def search_command(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What to search the agent's memory for.")],
    agent: AgentOption = None,
    mode: Annotated[
        SearchMode | None,
        typer.Option("--mode", help="qmd search mode (default: the agent's memory.qmd.searchMode)."),
    ] = None,
    max_results: Annotated[
        int | None,
        typer.Option(
            "-n", "--max-results", metavar="N", min=1, help="At most N results (never more than maxResults)."
        ),
    ] = None,
    min_score: Annotated[
        float,
        typer.Option("--min-score", metavar="X", help="Drop hits scoring below X (default 0), as OpenClaw."),
    ] = 0.0,
    json_output: JsonOption = False,
    quiet: QuietOption = False,
) -> ExitCode:
    """Search an agent's memory the way its memory_search tool would, with the real qmd."""
    # the command's module: building the Typer app (--help, other commands) does not load it
    from memwarm_cli.cli.commands.search import run_search

    options = global_options(ctx)
    return run_search(
        config_path=options.config_path,
        openclaw=options.openclaw,
        query=query,
        agent=agent,
        mode=mode.value if mode is not None else None,
        max_results=max_results,
        min_score=min_score,
        json_output=json_output,
        quiet=quiet,
    )
