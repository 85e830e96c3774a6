"""The one exit-code table, shared by every command (mirrored in the README)."""

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1  # the command's findings or failures (config errors found, an agent failed)
    USAGE = 2  # bad arguments, unknown agent
    CONFIG = 3  # config missing, unreadable or unparsable
    DEGRADED = 4  # init-backends: nothing failed but some agent is degraded
    OUTPUT = 5  # stdout could not be written (closed, disk full, I/O error)
    HANGUP = 129  # SIGHUP (the terminal or SSH session went away) while qmd ran
    INTERRUPTED = 130  # SIGINT
    TERMINATED = 143  # SIGTERM


def signal_exit(signum: int) -> ExitCode:
    """The exit code of a run that a signal ended and that stopped its children first (128 + signum)."""
    return {1: ExitCode.HANGUP, 2: ExitCode.INTERRUPTED}.get(signum, ExitCode.TERMINATED)
