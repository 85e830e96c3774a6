"""The Typer application: global options and command registration.

Command modules keep their heavy imports inside the command bodies, so `memwarm prelude` never pays for
Rich tables or the qmd backend.
"""

from __future__ import annotations

from typing import Annotated

import typer

from memwarm_cli import __version__
from memwarm_cli.cli.global_options import GlobalOptions

app = typer.Typer(
    name="memwarm",
    help="Inspect OpenClaw session startup preludes and pre-warm agents' qmd memory indexes.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["--help", "-h"]},  # subcommands inherit it
)


def _version(value: bool) -> None:
    if value:
        from memwarm_cli.cli.output import write_stdout

        write_stdout(f"memwarm {__version__}\n")
        raise typer.Exit()


@app.callback()
def root(
    ctx: typer.Context,
    config: Annotated[
        str | None,
        typer.Option(
            "--config",
            "-c",
            metavar="PATH",
            help="Config file to use (default: OPENCLAW_CONFIG_PATH, then the state dir's openclaw.json).",
        ),
    ] = None,
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    ctx.obj = GlobalOptions(config_path=config)


def _register() -> None:
    from memwarm_cli.cli import prelude, scan

    app.command("prelude")(prelude.prelude_command)
    app.command("scan")(scan.scan_command)
    from memwarm_cli.cli.context_cmd import context_command

    app.command("context")(context_command)
    from memwarm_cli.cli.config_cmd import config_app

    app.add_typer(config_app, name="config")
    from memwarm_cli.cli.init_backends import init_backends_command

    app.command("init-backends")(init_backends_command)
    from memwarm_cli.cli.status_cmd import status_command

    app.command("status")(status_command)
    from memwarm_cli.cli.search_cmd import search_command

    app.command("search")(search_command)


_register()
