"""The one exit-code table, shared by every command (mirrored in the README)."""

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1  # the command's findings or failures (config errors found, an agent failed)
    USAGE = 2  # bad arguments, unknown agent
    CONFIG = 3  # config missing, unreadable or unparsable
    DEGRADED = 4  # init-backends: nothing failed but some agent is degraded
    OUTPUT = 5  # stdout could not be written (closed, disk full, I/O error)
    # init-backends/status/search on a release without the qmd backend (2026.8.1 and later): nothing to
    # prepare or judge, which a cron job must tell from success (0) and from failure (1). A run where
    # some agent failed (1) or is stale/degraded (4) returns that code instead: they outrank this one.
    RETIRED = 6
    # init-backends: no agent could be warmed and none failed (no config file anywhere, every agent
    # skipped): a cron job that prepares nothing must not look like one that succeeded.
    NOTHING_WARMED = 7
    HANGUP = 129  # SIGHUP (the terminal or SSH session went away) while qmd ran
    INTERRUPTED = 130  # SIGINT
    TERMINATED = 143  # SIGTERM


def signal_exit(signum: int) -> ExitCode:
    """The exit code of a run that a signal ended and that stopped its children first (128 + signum)."""
    return {1: ExitCode.HANGUP, 2: ExitCode.INTERRUPTED}.get(signum, ExitCode.TERMINATED)
