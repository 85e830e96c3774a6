"""Relative paths against the current directory, which may have been deleted under a running shell.

`os.path.abspath` asks `os.getcwd()`, which raises FileNotFoundError in a deleted directory: every
command ended in that traceback. Node's `path.resolve` fails there too, but only for a relative path
(an absolute one never asks for the cwd), and so does this.
"""

from __future__ import annotations

import os

from memwarm_cli.errors import MemwarmError
from memwarm_cli.exitcodes import ExitCode


class WorkingDirectoryGone(MemwarmError):
    """A relative path met a current directory that no longer exists."""

    exit_code = ExitCode.CONFIG

    def __init__(self, path: str) -> None:
        super().__init__(
            f"cannot resolve the relative path {path}: the current directory no longer exists "
            "(cd to an existing directory, or give absolute paths)"
        )


def current_directory(for_path: str = ".") -> str:
    try:
        return os.getcwd()
    except FileNotFoundError:
        raise WorkingDirectoryGone(for_path) from None


def absolute_path(path: str) -> str:
    """`os.path.abspath(path)`, or WorkingDirectoryGone for a relative path in a deleted directory."""
    if os.path.isabs(path):
        return os.path.normpath(path)
    return os.path.normpath(os.path.join(current_directory(path), path))
