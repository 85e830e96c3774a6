"""Option declarations shared by several commands, so their names and help read the same everywhere.

The global `--config`/`-c` and `--openclaw` are accepted before the subcommand and after it
(`memwarm -c X prelude`, `memwarm prelude -c X`, `memwarm config -c X check`), as users type them:
every command and group of the tree gets its own (cli/app.py `build_command`), each records its value
in the context's `meta`, which a context shares with its parents, so the one given last on the command
line wins; the command passes both on to its run function by name (`global_options`). cli/fastpath.py
accepts the same spellings.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from memwarm_cli.frozen_records import record

AgentOption = Annotated[
    str | None, typer.Option("--agent", "-a", metavar="ID", help="Agent id (default: the default agent).")
]
AgentsOption = Annotated[
    list[str] | None,
    typer.Option("--agent", "-a", metavar="ID", help="Only this agent (repeatable; default: all)."),
]
WorkspaceOption = Annotated[
    Path | None,
    typer.Option(
        "--workspace", "-w", metavar="DIR", help="Use this workspace; limits still come from the config."
    ),
]
AtOption = Annotated[
    str | None,
    typer.Option(
        "--at", metavar="TIME", help="ISO 8601 with offset or Z, or epoch milliseconds (default: now)."
    ),
]
JsonAliasOption = Annotated[bool, typer.Option("--json", help="Same as --format json.")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of the text.")]
QuietOption = Annotated[
    bool, typer.Option("--quiet", "-q", help="Only errors on stderr: no warnings, notes or summary.")
]
RawOption = Annotated[
    bool,
    typer.Option(
        "--raw", help="The exact bytes on a terminal too (there, control characters are shown as escapes)."
    ),
]


def format_option(formats: Sequence[str], help_text: str) -> Any:
    """The `--format`/`-f` option of a command whose views are `formats` (its metavar lists them), for
    `Annotated[str | None, format_option(...)]`."""
    return typer.Option("--format", "-f", metavar="|".join(formats), help=help_text)


def examples(*command_lines: str) -> str:
    """A help page's epilog: `Examples:` and the command lines, kept as written (click's `\\b` marker
    stops it rewrapping them). tests/cli/test_conventions.py parses every one of them."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in command_lines)


if TYPE_CHECKING:
    import typer

CONFIG_META_KEY = "memwarm.config_path"
CONFIG_HELP = "Config file to use (default: OPENCLAW_CONFIG_PATH, then the state dir's openclaw.json)."
OPENCLAW_META_KEY = "memwarm.openclaw"
OPENCLAW_HELP = (
    "OpenClaw release to reproduce, e.g. 2026.9.6 (default: MEMWARM_OPENCLAW, then the installed "
    "openclaw, then the config's shape, then 2026.6.35)."
)


@record
class GlobalOptions:
    config_path: str | None  # --config
    openclaw: str | None  # --openclaw: the release to reproduce (memwarm_cli/profiles/choice.py)


def remember_config(ctx: Any, _param: Any, value: str | None) -> None:
    """The `--config` callback of every command: the latest value given wins."""
    if value is not None:
        ctx.meta[CONFIG_META_KEY] = value


def remember_openclaw(ctx: Any, _param: Any, value: str | None) -> None:
    """The `--openclaw` callback of every command: the latest value given wins (completion of `--agent`
    reads it too: the release decides the roster)."""
    if value is not None:
        ctx.meta[OPENCLAW_META_KEY] = value


def global_options(ctx: typer.Context) -> GlobalOptions:
    return GlobalOptions(config_path=ctx.meta.get(CONFIG_META_KEY), openclaw=ctx.meta.get(OPENCLAW_META_KEY))
