"""`memwarm init-backends`' Typer command. The work is in cli/commands/init_backends.py (Typer-free, so
cli/fastpath.py can run it too); option values Typer does not check are checked there, so both routes
report a bad value with the same line."""

from __future__ import annotations

from typing import Annotated

import typer

from memwarm_cli.cli.options import AgentsOption, AtOption, JsonOption, global_options
from memwarm_cli.exitcodes import ExitCode  # the return annotation: Typer evaluates it


def init_backends_command(
    ctx: typer.Context,
    agent: AgentsOption = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the commands, env and cwd per agent; touch nothing.")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Run qmd update even when nothing changed since the last run.")
    ] = False,
    include_stale: Annotated[
        bool,
        typer.Option(
            "--include-stale",
            help="2026.8.1+: also index agents whose builtin index is stale or built for other settings "
            "(default: only cold ones; OpenClaw catches up stale ones itself).",
        ),
    ] = False,
    embed: Annotated[
        bool | None,
        typer.Option(
            "--embed/--no-embed", help="Run qmd embed (default: when memory.qmd.searchMode is not search)."
        ),
    ] = None,
    probe: Annotated[
        bool,
        typer.Option(
            "--probe", help="Run the agent's own search (its searchMode) once: answered? how fast? hits?"
        ),
    ] = False,
    probe_query: Annotated[
        str | None,
        typer.Option(
            "--probe-query",
            metavar="TEXT",
            help="The probe's query (implies --probe; default: a word from the agent's newest note).",
        ),
    ] = None,
    probe_timeout: Annotated[
        float | None,
        typer.Option(
            "--probe-timeout",
            metavar="SECONDS",
            min=0.001,
            help="The probe's timeout (implies --probe; default: --timeout, else 120: models may load).",
        ),
    ] = None,
    concurrency: Annotated[
        int | None,
        typer.Option(
            "--concurrency",
            metavar="N",
            min=1,
            help="Agents prepared at once (default: the CPUs memwarm may run on).",
        ),
    ] = None,
    timeout: Annotated[
        float | None,
        typer.Option(
            "--timeout",
            metavar="SECONDS",
            min=0.001,
            help="Timeout for every qmd command (default: memory.qmd.update.*TimeoutMs; at most 2**31-1 ms); "
            "2026.8.1+: for each agent's openclaw memory index (default 1800).",
        ),
    ] = None,
    at: AtOption = None,
    json_output: JsonOption = False,
    quiet: Annotated[
        bool,
        typer.Option("--quiet", "-q", help="Only failures and errors on stderr: no progress or summary."),
    ] = False,
) -> ExitCode:
    """Prepare each agent's qmd index where the gateway looks for it (collections, update, embed)."""
    # the command's module: building the Typer app (--help, other commands) does not load it
    from memwarm_cli.cli.commands.init_backends import run_init_backends_command

    options = global_options(ctx)
    return run_init_backends_command(
        config_path=options.config_path,
        openclaw=options.openclaw,
        agent=agent,
        dry_run=dry_run,
        force=force,
        embed=embed,
        probe=probe,
        probe_query=probe_query,
        probe_timeout=probe_timeout,
        concurrency=concurrency,
        timeout=timeout,
        at=at,
        json_output=json_output,
        quiet=quiet,
        include_stale=include_stale,
    )
