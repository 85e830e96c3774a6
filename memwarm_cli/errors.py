"""Typed exceptions raised by the core; the CLI layer maps them to one-line errors and exit codes."""

from __future__ import annotations

from memwarm_cli.exitcodes import ExitCode


class MemwarmError(Exception):
    """Base class: a user-facing failure with a message and an exit code.

    The message holds outside text (paths, arguments, config values) raw: the CLI escapes it when it
    prints the one line (cli/output.error), and JSON keeps it as it is.
    """

    exit_code: ExitCode = ExitCode.FINDINGS

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(MemwarmError):
    exit_code = ExitCode.USAGE


class InstantError(UsageError):
    """The instant a run is computed for cannot be read or used. Worded in words ("the instant ..."):
    the CLI, which took it from --at, names the option."""


class WorkspaceError(UsageError):
    """The workspace given in place of the agent's is not a directory (the CLI names its --workspace)."""


class UnknownAgentError(UsageError):
    def __init__(self, requested: str, known: list[str]) -> None:
        self.requested = requested
        self.known = known
        super().__init__(f'unknown agent "{requested}" (known agents: {", ".join(known)})')


class OutputError(MemwarmError):
    """stdout could not be written: closed, disk full or an I/O error (not a reader that went away)."""

    exit_code = ExitCode.OUTPUT


class ConfigError(MemwarmError):
    """The config file cannot be found, read or parsed. Printed as `<file>:<line>:<col>: <message>`."""

    exit_code = ExitCode.CONFIG

    def __init__(self, file: str, message: str, line: int | None = None, column: int | None = None) -> None:
        self.file = file
        self.line = line
        self.column = column
        self.detail = message
        location = f"{file}:{line}:{column if column is not None else 1}" if line is not None else file
        super().__init__(f"{location}: {message}")
