"""`memwarm completion bash|zsh|fish`: print the shell's completion script (cli/completion.py)."""

from __future__ import annotations

from typing import Annotated

import typer


def completion_command(
    shell: Annotated[str, typer.Argument(metavar="bash|zsh|fish", help="The shell to complete in.")],
) -> None:
    """Print the script that makes the shell complete memwarm's commands, options and values."""
    from memwarm_cli.cli.completion import SHELLS, completion_script
    from memwarm_cli.cli.terminal.output import write_stdout
    from memwarm_cli.errors import UsageError

    if shell not in SHELLS:
        raise UsageError(f"completion: the shell must be one of {', '.join(SHELLS)}, not {shell!r}")
    write_stdout(completion_script(shell))
