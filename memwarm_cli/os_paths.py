"""Paths as plain strings: joined as pathlib joins them, made absolute against a current directory that
may have been deleted under a running shell.

Config, agent and start-up records keep their paths as `str`: they are built on every start, and
`pathlib` alone pulls `urllib.parse` and `ipaddress` (about 4 ms CPU of a 30 ms `prelude` on 10 notes,
bench/bench_startup.py). Code off the start-up path may wrap them in `Path` where that reads better.

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


def pure_path(text: str) -> str:
    """`str(PurePosixPath(text))`: empty and "." parts dropped, exactly two leading slashes kept, no
    trailing slash, "." for nothing; ".." is kept, as pathlib keeps it."""
    root = "/" if text.startswith("/") else ""
    if text.startswith("//") and not text.startswith("///"):
        root = "//"
    return root + "/".join(part for part in text.split("/") if part and part != ".") or "."


def join_path(base: str, *parts: str) -> str:
    """`str(PurePosixPath(base, *parts))`: an absolute part starts over, as with `/`."""
    return pure_path(os.path.join(base, *parts))
