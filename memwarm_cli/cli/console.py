"""The module of the `memwarm` command (bin/memwarm) and of `python -m memwarm_cli`: SIGINT is quiet from
its first statement.

Python turns SIGINT into KeyboardInterrupt wherever it lands, so an interrupt while Typer and Rich were
still being imported printed a traceback. bin/memwarm makes SIGINT exit 130 without a word before it
imports anything, and this module does the same for `python -m memwarm_cli` (SIGTERM keeps its default:
the process ends by the signal, 143 to a shell, silently). cli/main.py's `main` turns SIGINT back into
KeyboardInterrupt only inside the try that catches it. A signal before the script's first statement,
during the interpreter's own start-up (`site`), still gets Python's default: no Python code runs there.
"""

import signal
from types import FrameType


def _exit_interrupted(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds without a traceback, wherever it lands (even mid-import)


signal.signal(signal.SIGINT, _exit_interrupted)


def main() -> None:
    from memwarm_cli.cli.main import main as run_console_script

    run_console_script()
