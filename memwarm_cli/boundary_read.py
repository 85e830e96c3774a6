"""Reading one workspace file under the workspace boundary (OpenClaw's `openBoundaryFile`).

Symlinks are followed only while they stay inside the workspace (OpenClaw up to 2026.7.x), or refused
wherever they stand below the workspace root (`reject_symlinks`, 2026.8.1 and later: the root itself
and its ancestors may still be links); the final file must be a regular file with a single link and at
most `max_bytes` bytes, and it is read with one `read` of `max_bytes`. Every failure is an outcome,
never an exception: the caller skips the file and can show why.

In the base layer because two siblings read by these rules: the startup prelude (daily notes in
memory/, capped at maxFileBytes) and the bootstrap context (AGENTS.md and the rest, capped at 2 MiB).
"""

from __future__ import annotations

import errno
import os
import stat
from enum import StrEnum

from memwarm_cli.frozen_records import record
from memwarm_cli.os_paths import absolute_path
from memwarm_cli.safe_files import (
    FileChangedError,
    FileTooLargeError,
    HardLinkedError,
    NotRegularFileError,
    not_regular_kind,
    open_regular,
)


class ReadFailure(StrEnum):
    MISSING = "missing"
    SYMLINK_ESCAPE = "symlink-escape"
    SYMLINK_REFUSED = "symlink-refused"  # any link on the path, with reject_symlinks
    NOT_REGULAR = "not-regular"
    HARDLINK = "hardlink"
    OVERSIZE = "oversize"
    UNREADABLE = "unreadable"


@record
class ReadOutcome:
    content: str | None  # decoded text (U+FFFD for invalid UTF-8), None when the file was skipped
    failure: ReadFailure | None
    detail: str | None  # the OS error or the escaping target, for `scan`
    size: int | None
    mtime_ms: float | None


_PATH_ERRNOS = frozenset({errno.ENOENT, errno.ENOTDIR})


def _skip(failure: ReadFailure, detail: str | None = None, st: os.stat_result | None = None) -> ReadOutcome:
    size = st.st_size if st is not None else None
    mtime = st.st_mtime_ns / 1e6 if st is not None else None
    return ReadOutcome(None, failure, detail, size, mtime)


def _os_error_outcome(exc: OSError) -> ReadOutcome:
    if exc.errno in _PATH_ERRNOS:
        return _skip(ReadFailure.MISSING)
    if exc.errno == errno.ELOOP:
        return _skip(ReadFailure.UNREADABLE, "too many levels of symbolic links")
    return _skip(ReadFailure.UNREADABLE, exc.strerror or str(exc))


def _is_inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


SYMLINK_REFUSED_DETAIL = "symlink path component not allowed"  # fs-safe's words (2026.8.1+)


def _refused_link(candidate: str, root_canonical: str, last: bool) -> ReadOutcome:
    """A link with reject_symlinks: the last segment is refused before its target is looked at; a
    directory link is resolved first, as fs-safe does, which only changes what the refusal says."""
    if last:
        return _skip(ReadFailure.SYMLINK_REFUSED, SYMLINK_REFUSED_DETAIL)
    try:
        target = os.path.realpath(candidate, strict=True)
    except OSError:
        return _skip(ReadFailure.SYMLINK_REFUSED, "symlink path could not be resolved")
    if not _is_inside(target, root_canonical):
        return _skip(ReadFailure.SYMLINK_ESCAPE, f"points to {target}")
    return _skip(ReadFailure.SYMLINK_REFUSED, SYMLINK_REFUSED_DETAIL)


def _resolve_inside(
    root_canonical: str, relative_path: str, reject_symlinks: bool
) -> tuple[str | None, ReadOutcome | None]:
    """Walk `relative_path` segment by segment, following symlinks only while they stay inside (or
    refusing every one)."""
    cursor = root_canonical
    segments = relative_path.split("/")
    for index, segment in enumerate(segments):
        candidate = os.path.join(cursor, segment)
        try:
            st = os.lstat(candidate)
        except OSError as exc:
            return None, _os_error_outcome(exc)
        if stat.S_ISLNK(st.st_mode):
            if reject_symlinks:
                return None, _refused_link(candidate, root_canonical, index == len(segments) - 1)
            target = os.path.realpath(candidate)
            if not _is_inside(target, root_canonical):
                return None, _skip(ReadFailure.SYMLINK_ESCAPE, f"points to {target}")
            cursor = target
        else:
            cursor = candidate
    return cursor, None


def read_workspace_file(
    workspace_dir: str, relative_path: str, max_bytes: int, *, reject_symlinks: bool = False
) -> ReadOutcome:
    root_canonical = os.path.realpath(absolute_path(workspace_dir))
    resolved, failed = _resolve_inside(root_canonical, relative_path, reject_symlinks)
    if failed is not None:
        return failed
    assert resolved is not None
    try:
        before = os.lstat(resolved)
    except OSError as exc:
        return _os_error_outcome(exc)
    if not_regular_kind(before) is not None:
        return _skip(ReadFailure.NOT_REGULAR, None, before)
    if before.st_nlink > 1:
        return _skip(ReadFailure.HARDLINK, f"{before.st_nlink} links", before)
    if before.st_size > max_bytes:
        return _skip(ReadFailure.OVERSIZE, f"{before.st_size} > {max_bytes} bytes", before)
    try:
        # The file lstat saw, or nothing: a swap for a FIFO, a link or another file meanwhile is refused.
        fd, after = open_regular(
            resolved, follow_symlinks=False, max_bytes=max_bytes, single_link=True, expect=before
        )
    except (NotRegularFileError, FileTooLargeError, HardLinkedError, FileChangedError):
        return _skip(ReadFailure.UNREADABLE, "file changed while it was opened", before)
    except OSError as exc:
        return _os_error_outcome(exc)
    try:
        data = os.read(fd, max_bytes)  # one read of the cap, as openBoundaryFile reads
    except OSError as exc:
        return _os_error_outcome(exc)
    finally:
        os.close(fd)
    return ReadOutcome(data.decode("utf-8", "replace"), None, None, after.st_size, after.st_mtime_ns / 1e6)
