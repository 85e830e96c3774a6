"""What an init-backends run refuses at the files qmd itself writes below the state dir, and how an
OSError about a path is said in a reason (split from state_files.py, which holds memwarm's own files).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from memwarm_cli.backends.state.state_files import SYMLINK_REFUSED

HARD_LINK_REFUSED = "it has other hard links (qmd would write through to them)"


def describe_os_error(exc: OSError) -> str:
    """`cannot prepare <path>: Not a directory`, not Python's `NotADirectoryError: [Errno 20] ...`."""
    if exc.strerror is None:
        return str(exc)
    paths = " -> ".join(str(p) for p in (exc.filename, exc.filename2) if p is not None)
    return f"cannot prepare {paths}: {exc.strerror}" if paths else exc.strerror


def refused_qmd_file(paths: Iterable[Path]) -> OSError | None:
    """The first of `paths` (files qmd writes in place) that refuse_link refuses, read-only: what
    `--dry-run` and `status` report of a run that would fail on it."""
    for path in paths:
        try:
            refuse_link(path)
        except OSError as exc:
            return exc
    return None


def refuse_link(path: Path) -> None:
    """OSError unless `path` (in a directory make_dirs checked), a file another program (qmd) writes in
    place, is absent or a regular file of one link: through a symlink, another hard link, a device or a
    FIFO, its writes land outside or block."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(info.st_mode):
        raise OSError(errno.ELOOP, SYMLINK_REFUSED, str(path))
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, "it is not a regular file (qmd would write into it)", str(path))
    if info.st_nlink > 1:
        raise OSError(errno.EMLINK, HARD_LINK_REFUSED, str(path))
