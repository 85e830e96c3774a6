"""Option declarations shared by several commands, so their names and help read the same everywhere."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

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


def format_option(formats: Sequence[str], help_text: str) -> Any:
    """The `--format`/`-f` option of a command whose views are `formats` (its metavar lists them), for
    `Annotated[str | None, format_option(...)]`."""
    return typer.Option("--format", "-f", metavar="|".join(formats), help=help_text)


def examples(*command_lines: str) -> str:
    """A help page's epilog: `Examples:` and the command lines, kept as written (click's `\\b` marker
    stops it rewrapping them). tests/cli/test_conventions.py parses every one of them."""
    return "\b\nExamples:\n" + "\n".join(f"  {line}" for line in command_lines)
