"""Option declarations shared by several commands, so their names and help read the same everywhere."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

AgentOption = Annotated[
    str | None, typer.Option("--agent", "-a", metavar="ID", help="Agent id (default: the default agent).")
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
