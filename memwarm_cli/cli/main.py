"""Console entry point: runs a command and turns typed core errors into one line and an exit code."""

from __future__ import annotations

import contextlib
import gc
import os
import sys
from typing import TYPE_CHECKING

from memwarm_cli.errors import MemwarmError, OutputError
from memwarm_cli.exitcodes import ExitCode

if TYPE_CHECKING:
    from collections.abc import Sequence

    from typer._click.core import Command


def main() -> None:
    # The cyclic collector re-walks every live object as a big config's values pile up; this process
    # is short-lived and makes little cyclic garbage, so collect rarely (it doubled a 10,000-agent
    # `config show`). mypy tunes its collector the same way.
    gc.set_threshold(100_000, 50, 100)
    from memwarm_cli.cli.fastpath import CONTEXT, parse_fast_argv
    from memwarm_cli.cli.output import ReaderGone, error

    fast = parse_fast_argv(sys.argv[1:])
    try:
        if fast is None:
            _run_app()
        elif fast[0] is CONTEXT:
            from memwarm_cli.cli.context_run import run_context

            run_context(**fast[1])
        else:
            from memwarm_cli.cli.prelude_run import run_prelude

            run_prelude(**fast[1])
    except MemwarmError as exc:
        if isinstance(exc, OutputError):
            _discard_stdout()
        with contextlib.suppress(OSError):  # stderr unwritable too: the exit code still tells
            error(exc.message)
        sys.exit(int(exc.exit_code))
    except KeyboardInterrupt:
        sys.exit(int(ExitCode.INTERRUPTED))
    except (BrokenPipeError, ReaderGone):
        # The reader went away (`memwarm scan | head`): not an error worth a traceback.
        _discard_stdout()
        sys.exit(int(ExitCode.OK))


def _discard_stdout() -> None:
    """Point fd 1 at /dev/null so the bytes still buffered in sys.stdout cannot fail again.

    Python flushes sys.stdout at exit; on a full disk that flush would print "Exception ignored ...
    OSError" after our one line and turn the exit code into 120.
    """
    if sys.stdout is None:  # closed at startup: nothing buffered, nothing flushed at exit
        return
    with contextlib.suppress(OSError, ValueError):  # no usable fd behind sys.stdout: nothing to protect
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _run_app() -> None:
    """Run the Typer app, turning click's usage errors into our one line and exit code 2.

    In standalone mode click prints a three-line usage block (and Rich a panel); scripts reading
    stderr get the same `memwarm: error: ...` line as for every other bad input instead.
    """
    # typer vendors click as typer._click (pinned <0.29 in pyproject); its exception classes live there.
    from typer import Abort, _click
    from typer.main import get_command

    from memwarm_cli.cli.app import app
    from memwarm_cli.cli.output import error

    try:
        returned = app(prog_name="memwarm", standalone_mode=False)
    except _click.exceptions.NoArgsIsHelpError as exc:
        # A group called with no subcommand (`memwarm config`): its help, as click prints it.
        exc.show()
        sys.exit(int(ExitCode.USAGE))
    except _click.exceptions.UsageError as exc:
        path = exc.ctx.command_path if exc.ctx is not None else command_path(get_command(app), sys.argv[1:])
        error(usage_error_line(path, exc.format_message()), escaped=True)  # click repr()s what it quotes
        sys.exit(int(ExitCode.USAGE))
    except _click.exceptions.ClickException as exc:  # not a usage error: click's own code (1)
        error(_collapse_whitespace(exc.format_message()), escaped=True)
        sys.exit(exc.exit_code)
    except Abort:  # click's own abort (no memwarm command prompts today): exit 1, as click gives
        error("aborted")
        sys.exit(int(ExitCode.FINDINGS))
    # Non-standalone click returns the code of `typer.Exit(code)` (and of --help's exit) instead of exiting.
    if isinstance(returned, int) and not isinstance(returned, bool):
        sys.exit(returned)


def command_path(root: Command, args: Sequence[str]) -> str:
    """`memwarm config check`: the (sub)command that `args` name, as far as they can be followed.

    Click's parser raises some errors (`Option '--at' requires an argument.`) before a context exists;
    the line must still name the subcommand. Group options that take a value skip that value.
    """
    names = ["memwarm"]
    command = root
    remaining = list(args)
    while remaining and isinstance(getattr(command, "commands", None), dict):
        arg = remaining.pop(0)
        if arg == "--":
            break
        if arg.startswith("-"):
            option = next((p for p in command.params if arg in getattr(p, "opts", ())), None)
            if option is not None and not getattr(option, "is_flag", False) and remaining:
                remaining.pop(0)
            continue
        sub = command.commands.get(arg)  # type: ignore[attr-defined]
        if sub is None:
            break
        names.append(arg)
        command = sub
    return " ".join(names)


def _collapse_whitespace(message: str) -> str:
    # Joins click's own lines; click quotes arguments with repr(), the stderr guard catches the rest.
    return " ".join(message.split())


def usage_error_line(path: str, message: str) -> str:
    """`<subcommand>: <click's message> (see '<command path> --help')`, on one line."""
    subcommand = path.partition(" ")[2]
    prefix = f"{subcommand}: " if subcommand else ""
    return f"{prefix}{_collapse_whitespace(message)} (see '{path} --help')"
