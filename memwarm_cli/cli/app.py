"""The Typer application: global options, command registration, and the click command tree memwarm runs.

Command modules keep their heavy imports inside the command bodies, so building the tree (`--help`,
completion) never pays for Rich tables or the qmd backend; the fast commands never build it.
`build_command` is the one way to get the tree: Typer's, plus what every command shares (`--config`
after the subcommand too, value completion, help written by memwarm).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer
from typer.core import TyperOption
from typer.main import get_command

from memwarm_cli import __version__
from memwarm_cli.cli.commands import prelude_cmd, scan_cmd
from memwarm_cli.cli.commands.config_cmd import config_app
from memwarm_cli.cli.commands.context_cmd import context_command
from memwarm_cli.cli.commands.init_backends_cmd import init_backends_command
from memwarm_cli.cli.commands.search_cmd import search_command
from memwarm_cli.cli.commands.status_cmd import status_command
from memwarm_cli.cli.completion import completion_command, value_completer
from memwarm_cli.cli.options import (
    CONFIG_HELP,
    OPENCLAW_HELP,
    examples,
    remember_config,
    remember_openclaw,
)
from memwarm_cli.cli.terminal.output import write_stdout
from memwarm_cli.cli.typer_private import custom_completer, set_custom_completer
from memwarm_cli.profiles.releases import PROFILES, REFERENCE

if TYPE_CHECKING:
    from memwarm_cli.cli.typer_private import Command

app = typer.Typer(
    name="memwarm",
    help="Inspect OpenClaw session startup preludes and pre-warm agents' qmd memory indexes.",
    epilog=examples("memwarm prelude --agent main", "memwarm --config ./openclaw.json5 config check"),
    add_completion=False,  # `memwarm completion SHELL` instead (cli/completion.py)
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["--help", "-h"]},  # subcommands inherit it
)


def _version(ctx: typer.Context, value: bool) -> None:
    if value and not ctx.resilient_parsing:  # not while the shell asks for completions
        # qmd_diagnosis (backends.qmd, ~0.4 ms): only --version prints the qmd version; --help,
        # completion, config path and config show never load the qmd backend
        from memwarm_cli.backends.qmd.qmd_diagnosis import TARGET_QMD_VERSION

        # The first line stays `memwarm VERSION` (scripts read it); then what this memwarm reproduces.
        lines = [f"memwarm {__version__}", "reproduces these OpenClaw releases, by behaviour profile:"]
        lines += [f"  {profile.name}  {', '.join(profile.releases)}" for profile in PROFILES]
        lines += [
            "a run describes one: --openclaw VERSION, else MEMWARM_OPENCLAW, else the",
            f"openclaw on PATH, else the config's shape, else {REFERENCE.reference} (docs/releases.md)",
            f"qmd {TARGET_QMD_VERSION} for init-backends, status and search",
        ]
        write_stdout("\n".join(lines) + "\n")
        ctx.exit()  # an eager option ends the run here, as --help does (its code: 0)


@app.callback()
def root(
    config: Annotated[
        str | None,
        typer.Option("--config", "-c", metavar="PATH", callback=remember_config, help=CONFIG_HELP),
    ] = None,
    openclaw: Annotated[
        str | None,
        typer.Option("--openclaw", metavar="VERSION", callback=remember_openclaw, help=OPENCLAW_HELP),
    ] = None,
    version: Annotated[
        bool,
        typer.Option("--version", "-V", callback=_version, is_eager=True, help="Show the version and exit."),
    ] = False,
) -> None:
    # The options act in their callbacks: both land in the context's meta (options.py).
    pass


def _register() -> None:
    app.command(
        "prelude",
        short_help="Print the startup prelude a new session would see.",
        epilog=examples(
            "memwarm prelude --at 2026-04-11T18:00:00Z",
            "memwarm prelude --agent ops --action reset --json",
        ),
    )(prelude_cmd.prelude_command)
    app.command(
        "scan",
        short_help="Explain each memory note: in or out of the prelude, and why.",
        epilog=examples("memwarm scan --all", "memwarm scan --all-agents --format plain | grep truncated"),
    )(scan_cmd.scan_command)

    app.command(
        "context",
        short_help="Show the bootstrap files and the prelude of a new session.",
        epilog=examples(
            "memwarm context --only bootstrap --format text",
            "memwarm context --session-key agent:main:cron:nightly --format plain",
        ),
    )(context_command)

    app.add_typer(
        config_app,
        name="config",
        short_help="Find, check and show the OpenClaw config.",
        epilog=examples("memwarm config check --strict", "memwarm config show --agent main --format json"),
    )

    app.command(
        "init-backends",
        short_help="Pre-warm each agent's qmd index, as the gateway does at boot.",
        epilog=examples("memwarm init-backends --dry-run", "memwarm init-backends --agent main --probe -q"),
    )(init_backends_command)

    app.command(
        "status",
        short_help="Is each agent's qmd index warm? If not, why (read-only).",
        epilog=examples(
            "memwarm status --max-age 2h",
            "memwarm status --textfile /var/lib/node_exporter/memwarm.prom",
        ),
    )(status_command)

    app.command(
        "search",
        short_help="Search an agent's memory as its memory_search tool would.",
        epilog=examples(
            'memwarm search "deploy checklist"',
            "memwarm search --agent ops --mode search -n 3 invoice",
        ),
    )(search_command)

    app.command(
        "completion",
        short_help="Print the shell completion script for bash, zsh or fish.",
        epilog=examples(
            'eval "$(memwarm completion bash)"  # in ~/.bashrc',
            "memwarm completion fish > ~/.config/fish/completions/memwarm.fish",
        ),
    )(completion_command)


_register()


def build_command() -> Command:
    """The click command tree of `app`, with what every command shares added to each command and group."""
    root_command = get_command(app)
    _share_options(root_command, is_root=True)
    return root_command


def _share_options(command: Command, *, is_root: bool = False) -> None:
    """`--config` and `--openclaw` on every command (the root has its own), and value completion for
    every option."""
    if not is_root:
        config = TyperOption(
            param_decls=["--config", "-c", "config"],
            metavar="PATH",
            expose_value=False,
            callback=remember_config,
            help=CONFIG_HELP,
        )
        command.params.append(config)
        openclaw = TyperOption(
            param_decls=["--openclaw", "openclaw"],
            metavar="VERSION",
            expose_value=False,
            callback=remember_openclaw,
            help=OPENCLAW_HELP,
        )
        command.params.append(openclaw)
    for param in command.params:
        if custom_completer(param) is None:
            completer = value_completer(param)
            if completer is not None:
                set_custom_completer(param, completer)
    for sub in getattr(command, "commands", {}).values():
        _share_options(sub)
