"""The module of the `memwarm` command (bin/memwarm) and of `python -m memwarm_cli`: SIGINT is quiet from
its first statement.

Python turns SIGINT into KeyboardInterrupt wherever it lands, so an interrupt while Typer and Rich were
still being imported printed a traceback. bin/memwarm makes SIGINT exit 130 without a word before it
imports anything, and this module does the same for `python -m memwarm_cli` (SIGTERM keeps its default:
the process ends by the signal, 143 to a shell, silently). cli/main.py's `main` turns SIGINT back into
KeyboardInterrupt only inside the try that catches it. An interrupt raised where Python cannot propagate
it (a weakref callback of the import system prints "Exception ignored" and carries on) ends the process
with 130 at once. A signal before the script's first statement, during the interpreter's own start-up
(`site`, its check of argv[0]), still gets Python's default: no Python code runs there.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # the C module: `signal` would import enum first


def _exit_interrupted(signum: int, _frame: object) -> None:
    raise SystemExit(128 + signum)  # unwinds without a traceback, wherever it lands (even mid-import)


_signal.signal(_signal.SIGINT, _exit_interrupted)

import os  # noqa: E402  (loaded by the interpreter already)
import sys  # noqa: E402

_previous_unraisablehook = sys.unraisablehook


def _end_as_interrupted(info: sys.UnraisableHookArgs) -> None:
    if isinstance(info.exc_value, KeyboardInterrupt):
        os._exit(130)
    if isinstance(info.exc_value, SystemExit):
        os._exit(info.exc_value.code if isinstance(info.exc_value.code, int) else 1)
    _previous_unraisablehook(info)


sys.unraisablehook = _end_as_interrupted


def main() -> None:
    from memwarm_cli.cli.main import main as run_console_script

    run_console_script()
