"""Console entry point: runs a command and turns typed core errors into one line and an exit code."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from memwarm_cli.errors import MemwarmError
from memwarm_cli.exitcodes import ExitCode

if TYPE_CHECKING:
    from typer._click.exceptions import ClickException


def main() -> None:
    from memwarm_cli.cli.fastpath import parse_prelude_argv
    from memwarm_cli.cli.output import error

    fast = parse_prelude_argv(sys.argv[1:])
    try:
        if fast is not None:
            from memwarm_cli.cli.prelude_run import run_prelude

            run_prelude(**fast)
        else:
            _run_app()
    except MemwarmError as exc:
        error(exc.message)
        sys.exit(int(exc.exit_code))
    except KeyboardInterrupt:
        sys.exit(int(ExitCode.INTERRUPTED))
    except BrokenPipeError:
        # The reader went away (`memwarm scan | head`): not an error worth a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        sys.exit(int(ExitCode.OK))


def _run_app() -> None:
    """Run the Typer app, turning click's usage errors into our one line and exit code 2.

    In standalone mode click prints a three-line usage block (and Rich a panel); scripts reading
    stderr get the same `memwarm: error: ...` line as for every other bad input instead.
    """
    # typer vendors click as typer._click (pinned <0.29 in pyproject); its exception classes live there.
    from typer import Abort, _click

    from memwarm_cli.cli.app import app
    from memwarm_cli.cli.output import error

    try:
        returned = app(prog_name="memwarm", standalone_mode=False)
    except _click.exceptions.NoArgsIsHelpError as exc:
        # A group called with no subcommand (`memwarm config`): its help, as click prints it.
        exc.show()
        sys.exit(int(ExitCode.USAGE))
    except _click.exceptions.ClickException as exc:
        error(usage_error_line(exc))
        sys.exit(int(ExitCode.USAGE))
    except Abort:
        sys.exit(int(ExitCode.INTERRUPTED))
    # Non-standalone click returns the code of `typer.Exit(code)` (and of --help's exit) instead of exiting.
    if isinstance(returned, int) and not isinstance(returned, bool):
        sys.exit(returned)


def usage_error_line(exc: ClickException) -> str:
    """`<subcommand>: <click's message> (see '<command path> --help')`, on one line."""
    message = " ".join(exc.format_message().split())
    ctx = getattr(exc, "ctx", None)  # UsageError has one; other ClickExceptions do not
    path = ctx.command_path if ctx is not None else "memwarm"
    subcommand = path.partition(" ")[2]
    prefix = f"{subcommand}: " if subcommand else ""
    return f"{prefix}{message} (see '{path} --help')"
