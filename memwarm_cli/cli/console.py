"""The `memwarm` console script's module (and `python -m memwarm_cli`'s): quiet interrupts from its first
statement.

Python turns SIGINT into KeyboardInterrupt wherever it lands, so an interrupt while Typer and Rich were
still being imported printed a traceback. From here on SIGINT exits 130 without a word (SIGTERM keeps
its default: the process ends by the signal, 143 to a shell, silently); cli/main.py's `main` turns
SIGINT back into KeyboardInterrupt inside the try that catches it. Only what runs before this module
(the interpreter's own start-up, and the `import re` of the script pip generates) is out of reach.
Nothing else is imported before the handler is in place.
"""

import signal
from types import FrameType


def _exit_interrupted(signum: int, _frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # unwinds without a traceback, wherever it lands (even mid-import)


signal.signal(signal.SIGINT, _exit_interrupted)


def main() -> None:
    from memwarm_cli.cli.main import main as run_console_script

    run_console_script()
