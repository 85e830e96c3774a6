"""Console entry point: runs a command and turns typed core errors into one line and an exit code."""

from __future__ import annotations

import os
import sys

from memwarm_cli.errors import MemwarmError
from memwarm_cli.exitcodes import ExitCode


def main() -> None:
    from memwarm_cli.cli.fastpath import parse_prelude_argv
    from memwarm_cli.cli.output import error

    fast = parse_prelude_argv(sys.argv[1:])
    try:
        if fast is not None:
            from memwarm_cli.cli.prelude_run import run_prelude

            run_prelude(**fast)
        else:
            from memwarm_cli.cli.app import app

            app(prog_name="memwarm")
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
