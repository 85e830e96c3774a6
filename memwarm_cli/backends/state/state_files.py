"""memwarm's own files under the state dir: created, written, read and removed without following symlinks.

Every operation walks from the state dir down through directory descriptors: the state dir itself is
followed (the user may have made it a symlink), but each component below it is opened with
O_DIRECTORY|O_NOFOLLOW and the file itself with O_NOFOLLOW. A symlink planted anywhere below the state
dir is refused (ELOOP, "it is a symbolic link"), never followed, so memwarm creates and writes nothing
outside the state dir. The one exception is `write_atomically`'s rename, which replaces a symlink at the
target name (the link, never what it points to) as rename always does.

Writes and reads of the files themselves are safe_files' (one atomic writer, one bounded reader, for
every file memwarm writes or reads): a temp file renamed over the target, removed on any failure, stale
ones swept. There is no fsync here: a file torn by a crash is caught by the validation on read and
discarded.

Reads return the file's JSON or why it cannot be used (`StateRead`): a symlink, not a regular file,
larger than the caller's cap, not UTF-8, not JSON (NaN and Infinity are not JSON either), nested too
deeply. state_records.py checks a record's schema on top.

The same rule holds for the files qmd itself writes below the state dir (`refused_qmd_file`): they must be
absent or plain regular files with one link, checked before any qmd command, and an OSError about any of
these paths is worded once (`describe_os_error`) for reasons and log lines: those refusals are this
module's no-link rule applied to qmd's files, so they share its constants and wording.
"""

from __future__ import annotations

import errno
import json
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from memwarm_cli import safe_files
from memwarm_cli.frozen_records import record
from memwarm_cli.safe_files import (
    FileChangedError,
    FileTooLargeError,
    HardLinkedError,
    NotRegularFileError,
    not_replaced,
    read_bounded,
)

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
_NEW_FILE_MODE = 0o666  # minus the umask, as a plain open() would create it
SYMLINK_REFUSED = "it is a symbolic link (memwarm does not follow symlinks below the state dir)"


@record
class StatePath:
    """A path below the state dir, as the components memwarm walks one by one."""

    state_dir: Path
    parts: tuple[str, ...]  # below the state dir; the last one is the entry itself

    @classmethod
    def of(cls, state_dir: str | os.PathLike[str], path: Path) -> StatePath:
        """`path`, which must lie below `state_dir` (compared as written, without resolving)."""
        state_dir = Path(state_dir)
        try:
            parts = path.relative_to(state_dir).parts
        except ValueError:
            raise OSError(errno.EINVAL, "not below the state dir", str(path)) from None
        for name in parts:
            if name in ("", ".", "..") or "\0" in name:
                raise OSError(errno.EINVAL, "not a plain path below the state dir", str(path))
        if not parts:
            raise OSError(errno.EINVAL, "is the state dir itself, not a path below it", str(path))
        return cls(state_dir, tuple(parts))

    @property
    def path(self) -> Path:
        return self.state_dir.joinpath(*self.parts)

    @property
    def name(self) -> str:
        return self.parts[-1]

    def __str__(self) -> str:
        return str(self.path)


class _DirFd:
    """An open directory below (or at) the state dir; closed on exit."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __enter__(self) -> int:
        return self.fd

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)


def _open_dir(state_dir: Path, parts: Sequence[str], *, create: bool) -> _DirFd:
    """The directory `<state_dir>/<parts…>`, walked without following a symlink below the state dir.

    With `create`, missing directories are made (`mkdir -p`, the state dir included). Without it a
    missing one raises FileNotFoundError.
    """
    if create:
        os.makedirs(state_dir, exist_ok=True)
    fd = os.open(state_dir, _DIR_FLAGS)
    try:
        for depth, name in enumerate(parts, start=1):
            if create:
                try:
                    os.mkdir(name, dir_fd=fd)
                except FileExistsError:
                    pass  # a directory, or something open() below refuses
                except OSError as exc:
                    raise _located(exc, state_dir, parts[:depth]) from None
            try:
                child = os.open(name, _DIR_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                raise _explained(exc, fd, name, state_dir, parts[:depth]) from None
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return _DirFd(fd)


def _located(exc: OSError, state_dir: Path, parts: Sequence[str]) -> OSError:
    """The same error, naming the full path rather than the component."""
    return OSError(exc.errno, exc.strerror, str(state_dir.joinpath(*parts)))


def _is_symlink_at(dir_fd: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _explained(exc: OSError, dir_fd: int, name: str, state_dir: Path, parts: Sequence[str]) -> OSError:
    """ELOOP (or Linux's ENOTDIR for O_DIRECTORY|O_NOFOLLOW) on a symlink says so in words."""
    if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK) and _is_symlink_at(dir_fd, name):
        return OSError(errno.ELOOP, SYMLINK_REFUSED, str(state_dir.joinpath(*parts)))
    return _located(exc, state_dir, parts)


def make_dirs(target: StatePath) -> None:
    """`mkdir -p` below the state dir; a symlink on the way is refused."""
    with _open_dir(target.state_dir, target.parts, create=True):
        pass


def make_symlink(link: StatePath, points_to: Path, *, replace_empty_dir: bool = False) -> None:
    """Create the symlink `link` -> `points_to` (its directory is created). FileExistsError if
    anything is at `link` already; with `replace_empty_dir`, an empty directory there is removed first
    (one with anything in it stays, and counts as existing)."""
    parent = link.parts[:-1]
    with _open_dir(link.state_dir, parent, create=True) as dir_fd:
        if replace_empty_dir:
            _remove_empty_dir(dir_fd, link)
        try:
            os.symlink(str(points_to), link.name, target_is_directory=True, dir_fd=dir_fd)
        except FileExistsError:
            raise
        except OSError as exc:
            raise _located(exc, link.state_dir, link.parts) from None


def _remove_empty_dir(dir_fd: int, entry: StatePath) -> None:
    try:
        info = os.stat(entry.name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(info.st_mode):
        try:
            os.rmdir(entry.name, dir_fd=dir_fd)  # only when empty: anything in it stays
        except OSError:
            raise FileExistsError(errno.EEXIST, "a directory that is not empty", str(entry)) from None


def open_lock_file(target: StatePath) -> int:
    """A descriptor (read-write) of the regular file `target`, created if missing, never through a
    symlink: a symlink, FIFO, socket or device at that name is refused."""
    with _open_dir(target.state_dir, target.parts[:-1], create=True) as dir_fd:
        flags = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        try:
            fd = os.open(target.name, flags, _NEW_FILE_MODE, dir_fd=dir_fd)
        except OSError as exc:
            raise _explained(exc, dir_fd, target.name, target.state_dir, target.parts) from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "it is not a regular file", str(target))
    except BaseException:
        os.close(fd)
        raise
    return fd


def refused_below(target: StatePath, *, is_file: bool) -> OSError | None:
    """What make_dirs (`is_file` False) or open_lock_file (True) would refuse at `target`, found without
    creating or opening anything for writing: what status and `--dry-run` say a run would fail on."""
    try:
        handle = _open_dir(target.state_dir, target.parts[:-1] if is_file else target.parts, create=False)
    except FileNotFoundError:
        return None  # the run creates what is missing
    except OSError as exc:
        return exc
    with handle as dir_fd:
        if not is_file:
            return None
        try:
            info = os.stat(target.name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return None
        except OSError as exc:
            return _located(exc, target.state_dir, target.parts)
    if stat.S_ISLNK(info.st_mode):
        return OSError(errno.ELOOP, SYMLINK_REFUSED, str(target))
    if not stat.S_ISREG(info.st_mode):
        return OSError(errno.EINVAL, "it is not a regular file", str(target))
    return None


def remove_file(target: StatePath) -> None:
    """Remove memwarm's own file `target` if it is there (a symlink there is removed, never what it
    points to). A directory in its place is left alone; a missing parent is fine."""
    try:
        handle = _open_dir(target.state_dir, target.parts[:-1], create=False)
    except FileNotFoundError:
        return
    with handle as dir_fd:
        try:
            info = os.stat(target.name, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return
        if stat.S_ISDIR(info.st_mode):
            return
        try:
            os.unlink(target.name, dir_fd=dir_fd)
        except FileNotFoundError:
            return
        except OSError as exc:
            raise _located(exc, target.state_dir, target.parts) from None


def write_atomically(target: StatePath, data: bytes) -> None:
    """Write `data` to `target` through a temp file renamed over it (safe_files.write_atomically: a
    symlink at the name is replaced, never written through); the temp file never survives a failure.
    Errors name `target` (not the temp file)."""
    with _open_dir(target.state_dir, target.parts[:-1], create=True) as dir_fd:
        try:
            safe_files.write_atomically(
                target.name, data, durable=False, dir_fd=dir_fd, mode=_NEW_FILE_MODE, replace_any_file=True
            )
        except NotRegularFileError as exc:
            raise not_replaced(exc, str(target)) from None
        except OSError as exc:
            raise _located(exc, target.state_dir, target.parts) from None


@record
class StateRead:
    """A state file as read: absent, usable JSON (`data`), or unusable (`problem` says why)."""

    found: bool
    data: Any = None
    problem: str | None = None


def read_json(target: StatePath, *, max_bytes: int) -> StateRead:
    """The JSON in `target`, or why it cannot be used. Never follows a symlink, never blocks on a FIFO,
    never reads more than `max_bytes` + 1 bytes."""
    try:
        handle = _open_dir(target.state_dir, target.parts[:-1], create=False)
    except FileNotFoundError:
        return StateRead(found=False)
    except OSError as exc:
        return StateRead(found=True, problem=_why(exc, target))
    with handle as dir_fd:
        try:
            raw, _ = read_bounded(target.name, max_bytes, dir_fd=dir_fd, follow_symlinks=False)
        except FileNotFoundError:
            return StateRead(found=False)
        except FileTooLargeError:
            return StateRead(found=True, problem=f"it is larger than {max_bytes} bytes")
        except NotRegularFileError as exc:
            if exc.kind == "a symbolic link":
                return StateRead(found=True, problem=SYMLINK_REFUSED)
            return StateRead(found=True, problem="it is not a regular file")
        except (HardLinkedError, FileChangedError) as exc:
            return StateRead(found=True, problem=exc.strerror)
        except OSError as exc:
            explained = _explained(exc, dir_fd, target.name, target.state_dir, target.parts)
            return StateRead(found=True, problem=_why(explained, target))
    return _parse(raw)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _parse(raw: bytes) -> StateRead:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return StateRead(found=True, problem="it is not UTF-8")
    try:
        return StateRead(found=True, data=json.loads(text, parse_constant=_reject_constant))
    except RecursionError:
        return StateRead(found=True, problem="it is not valid JSON: nested too deeply")
    except ValueError as exc:
        return StateRead(found=True, problem=f"it is not valid JSON: {exc}")


def _why(exc: OSError, target: StatePath) -> str:
    """Why a read failed, naming the directory on the way when it is that one that failed."""
    reason = exc.strerror or str(exc)
    if exc.filename is not None and str(exc.filename) != str(target):
        return f"{exc.filename}: {reason}"
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EIO):
        return f"it cannot be read ({reason})"
    return reason


def discarded_warning(target: StatePath, problem: str) -> str:
    """The one warning for a state file that is unusable: the run goes on as if it were absent."""
    return f"ignoring {target}: {problem}; continuing as if it were absent"


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
