"""Entry points: `run` (one memwarm invocation, in this process) and `main` (the console script's).

`run(argv, env=..., stdout=..., stderr=...)` behaves as a `memwarm` process given the same arguments,
environment, streams and working directory would: typed core errors become one `memwarm: error:` line
and an exit code, usage errors exit 2, an unwritable stdout exits 5, a reader that went away exits 0.
It returns the exit code and never exits. It changes process-wide state while it runs (the working
directory, SIGINT/SIGTERM handlers that init-backends installs) and restores it afterwards, so runs must
not overlap. `main` calls it with the real process state, then exits.
"""

from __future__ import annotations

# The C module under `signal`, loaded by the interpreter already: `signal` would build its enums on
# every start (the prelude fast path counts milliseconds).
import _signal  # type: ignore[import-not-found]
import functools
import os
import sys
from collections.abc import Mapping, Sequence

from memwarm_cli.cli.terminal.invocation import Invocation, active, current, process_invocation, terminal_size
from memwarm_cli.cli.terminal.output import ReaderGone, error, write_stderr_text, write_stdout
from memwarm_cli.errors import InstantError, MemwarmError, WorkspaceError
from memwarm_cli.exitcodes import ExitCode

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, NoReturn, TextIO

    from memwarm_cli.cli.typer_private import Command, Context, Parameter

# Signals whose handlers a command may replace (init-backends): restored after every run.
_RESTORED_SIGNALS = (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP)


def run(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    stdout: TextIO | None,
    stderr: TextIO | None,
    stdin: TextIO | None = None,
    cwd: str | Path | None = None,
) -> int:
    """Run `memwarm ARGV...` with these streams (None: closed) and environment; returns the exit code.

    `stdout` must be a text stream with a binary `.buffer` (memwarm writes exact bytes), as sys.stdout
    and `io.TextIOWrapper(io.BytesIO())` are. `cwd`, when given, is the working directory meanwhile.
    """
    invocation = Invocation(stdout=stdout, stderr=stderr, env=env, stdin=stdin)
    return run_invocation(argv, invocation, cwd=cwd)


def run_invocation(
    argv: Sequence[str],
    invocation: Invocation,
    *,
    cwd: str | Path | None = None,
    restore_signals: bool = True,
) -> int:
    """`run`, for a caller that wants the invocation back (which of its streams failed). A process that
    exits next (`main`) keeps the handlers a command left: an interrupted init-backends leaves ones that
    drop a second signal, which the default action would turn into that signal's exit code."""
    # try/finally, not contextlib's managers: contextlib cost every start ~0.5 ms (the prelude's too)
    with active(invocation):
        previous = None
        if cwd is not None:
            previous = os.getcwd()
            os.chdir(cwd)
        saved = _signal_handlers() if restore_signals else None
        try:
            return int(_dispatch(list(argv), invocation))  # a plain int, as a process's exit status is
        finally:
            if saved is not None:
                _restore_signal_handlers(saved)
            if previous is not None:
                os.chdir(previous)


def main() -> NoReturn:
    """The console script: `run` on the process's own argv, environment and streams, then exit.

    SIGINT is cli/console.py's business (an immediate, silent exit 130); run() still turns a
    KeyboardInterrupt into 130 for a process that kept Python's default handler.
    """
    invocation = process_invocation()
    code = run_invocation(sys.argv[1:], invocation, restore_signals=False)
    if invocation.stdout_failed:
        _discard(sys.stdout)
    if invocation.stderr_failed:
        _discard(sys.stderr)
    sys.exit(code)


def _discard(stream: TextIO | None) -> None:
    """Point the stream's fd at /dev/null so the bytes still buffered in it cannot fail again.

    Python flushes sys.stdout and sys.stderr at exit; on a full disk or a closed pipe that flush would
    print "Exception ignored ... OSError" and turn the exit code into 120.
    """
    if stream is None:  # closed at startup: nothing buffered, nothing flushed at exit
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, stream.fileno())
        os.close(devnull)
    except (OSError, ValueError):  # no usable fd behind it: nothing to protect
        pass


def _signal_handlers() -> dict[int, object]:
    return {signum: _signal.getsignal(signum) for signum in _RESTORED_SIGNALS}


def _restore_signal_handlers(saved: dict[int, object]) -> None:
    for signum, handler in saved.items():
        # None: installed outside Python, cannot be put back; ValueError: not the main thread,
        # where no command could have changed them either.
        if handler is not None:
            try:  # noqa: SIM105 - not contextlib.suppress: contextlib costs every start ~0.5 ms
                _signal.signal(signum, handler)
            except ValueError:
                pass


# The shell asks for completions by running memwarm with this variable set (cli/completion.py, whose
# COMPLETE_VAR it equals; not imported here, where every start would pay for it).
_COMPLETE_VAR = "_MEMWARM_COMPLETE"


def _dispatch(argv: list[str], invocation: Invocation) -> int:
    try:
        instruction = invocation.env.get(_COMPLETE_VAR)
        if instruction:
            return _complete(instruction)
        # fastpath: not needed by a shell's completion request above
        from memwarm_cli.cli.fastpath import parse_fast_argv, run_fast

        fast = parse_fast_argv(argv)
        if fast is None:
            return _run_app(argv)
        return run_fast(*fast)
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    except MemwarmError as exc:
        error(with_option(exc))
        return int(exc.exit_code)
    except (BrokenPipeError, ReaderGone):
        # The reader went away (`memwarm scan | head`): not an error worth a line.
        invocation.stdout_failed = True
        return ExitCode.OK


# The core words an error about a value it was given; the option that gave it is the CLI's to name.
OPTION_OF_ERROR: dict[type[MemwarmError], str] = {InstantError: "--at", WorkspaceError: "--workspace"}


def with_option(exc: MemwarmError) -> str:
    """The error's line, after the name of the option whose value it is about (`--at: the instant ...`)."""
    option = next((name for kind, name in OPTION_OF_ERROR.items() if isinstance(exc, kind)), None)
    return f"{option}: {exc.message}" if option else exc.message


def _run_app(argv: list[str]) -> int:
    """Run the Typer app, turning click's usage errors into our one line and exit code 2.

    In standalone mode click prints a three-line usage block (and Rich a panel); scripts reading
    stderr get the same `memwarm: error: ...` line as for every other bad input instead. The click
    command is called directly rather than through `app()`, which would set sys.excepthook for the
    whole process.
    """
    # typer and the app: only commands the fast path does not take load them (test_imports)
    from typer import Abort

    # typer_private: click's errors, from typer's vendored click (as typer above)
    from memwarm_cli.cli.typer_private import ClickException, NoArgsIsHelpError, UsageError

    root = _command_tree()
    # Help is wrapped to this invocation's terminal (click would ask the process's), at most 80 columns.
    help_width = max(min(terminal_size(current())[0], 80) - 2, 50)
    try:
        returned = root.main(args=argv, prog_name="memwarm", standalone_mode=False, terminal_width=help_width)
    except NoArgsIsHelpError as exc:
        # A group called with no subcommand (`memwarm config`): its help, on stderr as click prints it.
        write_stderr_text(exc.format_message() + "\n")
        return ExitCode.USAGE
    except UsageError as exc:
        path = exc.ctx.command_path if exc.ctx is not None else command_path(root, argv)
        error(usage_error_line(path, exc.format_message()), escaped=True)  # click repr()s what it quotes
        return ExitCode.USAGE
    except ClickException as exc:  # not a usage error: click's own code (1)
        error(_collapse_whitespace(exc.format_message()), escaped=True)
        return exc.exit_code
    except Abort:  # click's own abort (no memwarm command prompts today): exit 1, as click gives
        error("aborted")
        return ExitCode.FINDINGS
    # Every command returns its ExitCode, and non-standalone click hands it back (and the code of
    # --help's and --version's exit) instead of exiting: the one way a command's code reaches here.
    if isinstance(returned, int) and not isinstance(returned, bool):
        return returned
    return ExitCode.OK


@functools.cache
def _command_tree() -> Command:
    """The app's click tree with --help routed through the writer, built once per process: Typer reads
    every command's signature to build it (13.7 ms of CPU), which a caller running several invocations in
    one process (run_invocation; the test suite runs thousands) paid on every run. The tree holds no
    run's values: those live in each run's click context and Invocation."""
    # the app: every command's Typer module, which the fast commands never load
    from memwarm_cli.cli.app import build_command

    root = build_command()
    _route_help_through_the_writer(root)
    return root


def _complete(instruction: str) -> int:
    """A shell's completion request: the candidates (or the script) on stdout."""
    # the app and completion: only a completion request loads them, not a fast command (test_imports)
    from memwarm_cli.cli.app import build_command

    # completion: typer's shell-completion code, as the app above
    from memwarm_cli.cli.completion import complete

    text, code = complete(build_command(), instruction, current().env)
    write_stdout(text)
    return code


def _route_help_through_the_writer(command: Command) -> None:
    """`--help`/`-h` write through write_stdout, like every other output: exit 5 when stdout cannot be
    written, 0 when its reader went away. click's own callback echoes to sys.stdout, which gave a
    traceback, a silent 0 or exit 1."""
    original = command.get_help_option

    def get_help_option(ctx: Context) -> Any:
        option = original(ctx)
        if option is not None:
            option.callback = _show_help
        return option

    command.get_help_option = get_help_option  # type: ignore[method-assign]
    for sub in getattr(command, "commands", {}).values():
        _route_help_through_the_writer(sub)


def _show_help(ctx: Context, _param: Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        write_stdout(ctx.get_help() + "\n")
        ctx.exit()


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
