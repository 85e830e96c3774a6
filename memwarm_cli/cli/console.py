"""The module of the `memwarm` command (bin/memwarm) and of `python -m memwarm_cli`: SIGINT ends the
process with 130 at once and without a word, from the first statement on.

Python turns SIGINT into KeyboardInterrupt wherever it lands: while Typer and Rich were being imported
that printed a traceback, in a weakref callback of the import system it was printed as "Exception
ignored" and lost (the command ran on), and in a class's __set_name__ it became a RuntimeError. So no
exception is raised at all: the handler calls os._exit. Nothing is lost by it: stdout and stderr are
flushed at every write (cli/terminal/output.py), and the one command that holds locks and children,
init-backends, installs its own SIGINT/SIGTERM handlers for its run and winds down through them.
SIGTERM keeps its default (the process ends by the signal, 143 to a shell, silently). A SIGINT ignored
from the start (a shell script's background job) stays ignored. A signal before the script's first
statement, during the interpreter's own start-up (`site`, its check of argv[0]), still gets Python's
default: no Python code runs there.
"""

from __future__ import annotations

import _signal  # type: ignore[import-not-found]  # the C module: `signal` would import enum first
import gc
import os


def _exit_interrupted(signum: int, _frame: object) -> None:
    os._exit(128 + signum)


if _signal.getsignal(_signal.SIGINT) is not _signal.SIG_IGN:
    _signal.signal(_signal.SIGINT, _exit_interrupted)


def main() -> None:
    # The cyclic collector re-walks every live object as a big config's values pile up; this process
    # is short-lived and makes little cyclic garbage, so collect rarely (it doubled a 10,000-agent
    # `config show`; mypy tunes its collector the same way), from before the imports on: at the default
    # threshold they alone made five collections, ~1 ms CPU of a status or a prelude.
    gc.set_threshold(100_000, 50, 100)
    try:
        # here, not at the top: the SIGINT handler above is in place before any of memwarm's imports run
        from memwarm_cli.cli.main import main as run_console_script

        run_console_script()
    finally:
        # The interpreter's shutdown runs one last full collection over every object the run made; they
        # all die with the process anyway, so that walk is wasted (~4-5 ms of a 10-note prelude or a
        # status). Frozen objects are still freed by reference counting as the modules are torn down.
        gc.freeze()
