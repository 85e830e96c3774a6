"""The careful file work of the session export: the transcripts read, the exports written and deleted.

Transcripts: the sessions dir is opened without following a symlink (a symlinked sessions dir is not
read at all), each transcript by name relative to that descriptor without following a symlink
(safe_files.open_regular), and it must still be
the regular file with one link that was listed (a symlink, a hard link to a file elsewhere, or a file
swapped in meanwhile is not read): memwarm never reads a file from outside the agent's sessions dir.

Exports: every change goes through a descriptor of the export dir opened with O_NOFOLLOW, and names are
single path components, so nothing is written or deleted outside that one directory, even if it is
swapped for a symlink after planning; each write is safe_files.write_atomically's.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import BinaryIO

from memwarm_cli.backends.sessions.export_cache import CachedExport, FileIdentity
from memwarm_cli.errors import MemwarmError
from memwarm_cli.frozen_records import record
from memwarm_cli.safe_files import (
    FileWriter,
    NotRegularFileError,
    not_replaced,
    open_regular,
    read_available,
    write_atomically,
)

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE_MODE = 0o600  # upstream's mode for new exports; an existing export keeps its own
_READ_BUFFER = 1 << 20


class SessionExportError(MemwarmError):
    """The export pass did not (fully) happen; the message is one line."""


class SessionExportRefused(SessionExportError):
    """memwarm will not export into this dir (or under this name): nothing was touched."""


@record
class SessionExportResult:
    export_dir: Path
    created_export_dir: bool
    written: tuple[str, ...]  # export names written, in order
    deleted: tuple[str, ...]  # stale export names removed, in order
    cache: Mapping[str, CachedExport] | None = None  # what the next pass may reuse, by transcript name


class SessionExportFailed(SessionExportError):
    """The pass failed part-way: `code` is Node's error code (`INVALID_CONFIG`, `EISDIR`, `EACCES`, ...),
    `partial` what was written and deleted before the failure."""

    def __init__(self, code: str, message: str, partial: SessionExportResult) -> None:
        super().__init__(message)
        self.code = code
        self.partial = partial


def check_entry_name(name: str) -> None:
    """Refuse anything but one plain path component (no `/`, NUL, `.` or `..`)."""
    if not name or name in (".", "..") or "/" in name or "\0" in name:
        raise SessionExportRefused(f"refusing export name {name!r}: not a plain file name in the export dir")


def read_regular_file(path: Path, *, max_bytes: int) -> bytes:
    """At most `max_bytes` of a regular file (enough to tell a longer file from an equal one), never
    read through a symlink; OSError otherwise."""
    try:
        fd, _ = open_regular(path, follow_symlinks=False)
    except NotRegularFileError as refused:
        raise OSError(errno.EINVAL, f"it is {refused.kind}, not a regular file", str(path)) from None
    try:
        return read_available(fd, max_bytes)[:max_bytes]
    finally:
        os.close(fd)


def error_code(error: OSError) -> str:
    """Node's `err.code` for an OSError: the errno name, e.g. `EACCES`."""
    return errno.errorcode.get(error.errno or 0, "EIO")


# --------------------------------------------------------------------------------------------------------
# Transcripts


@record
class Listed:
    """A directory entry of the sessions dir, as listed (lstat)."""

    name: str
    info: os.stat_result


class SessionsDir:
    """An agent's sessions dir, open without following a symlink. `open` returns None for one that does
    not exist, is no directory or cannot be opened (the release lists those as empty)."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path = path
        self.fd = fd

    @classmethod
    def open(cls, path: Path) -> SessionsDir | None:
        """Raises SessionExportRefused for a symlink at the sessions dir's own name."""
        try:
            info = os.lstat(path)
        except OSError:
            return None
        if stat.S_ISLNK(info.st_mode):
            raise SessionExportRefused(
                f"the sessions dir {path} is a symbolic link: memwarm reads transcripts only in the agent's "
                "own sessions dir, not through a link"
            )
        try:
            return cls(path, os.open(path, _DIR_FLAGS))
        except OSError:
            return None

    def __enter__(self) -> SessionsDir:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)

    def regular_files(self) -> list[Listed]:
        """Every regular file (not a symlink) directly inside, by name; [] when it cannot be listed."""
        try:
            with os.scandir(self.fd) as entries:
                found = [
                    Listed(entry.name, entry.stat(follow_symlinks=False))
                    for entry in entries
                    if entry.is_file(follow_symlinks=False)
                ]
        except OSError:
            return []
        return sorted(found, key=lambda listed: listed.name)

    def open_transcript(self, listed: Listed) -> BinaryIO:
        """The listed transcript for reading: OSError if it is no longer that regular file with one link."""
        try:
            fd, _ = open_regular(
                listed.name, dir_fd=self.fd, follow_symlinks=False, single_link=True, expect=listed.info
            )
        except NotRegularFileError as refused:
            raise OSError(errno.EINVAL, f"it is {refused.kind}, not a regular file", listed.name) from None
        try:
            os.set_blocking(fd, True)
            return os.fdopen(fd, "rb", buffering=_READ_BUFFER)
        except BaseException:
            os.close(fd)
            raise


# --------------------------------------------------------------------------------------------------------
# Exports


class ExportDir:
    """An open export dir: every write, rename and unlink is relative to its descriptor."""

    def __init__(self, path: Path, fd: int, created: bool) -> None:
        self.path = path
        self.fd = fd
        self.created = created

    @classmethod
    def open(cls, path: Path) -> ExportDir:
        """`mkdir -p` the dir, then open it; a symlink in its place is refused (ELOOP)."""
        created = not os.path.lexists(path)
        if created:
            os.makedirs(path, exist_ok=True)
        try:
            fd = os.open(path, _DIR_FLAGS)
        except OSError as error:
            if os.path.islink(path):  # Linux says ENOTDIR here, which would hide the reason
                raise OSError(
                    errno.ELOOP, "it is a symbolic link (memwarm does not write through it)"
                ) from error
            raise
        return cls(path, fd, created)

    def __enter__(self) -> ExportDir:
        return self

    def __exit__(self, *exc: object) -> None:
        os.close(self.fd)

    def lstat(self, name: str) -> os.stat_result | None:
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def write_atomically(self, name: str, data: bytes) -> None:
        self.write_streaming(name, lambda target: target.write(data))

    def write_streaming(self, name: str, produce: Callable[[FileWriter], None]) -> None:
        """Write `name` through a temp file renamed over it, fsynced first (others read exports): readers
        never see half a file, and a symlink or hard link at `name` is replaced, never written through;
        a directory, FIFO, socket or device there is refused (OSError). `produce` writes the content (and
        may start over); the temp file is removed on every failure path, an exception from `produce` (a
        cancellation) included. A new export gets mode 0600, as upstream's; an existing one keeps its own."""
        check_entry_name(name)
        try:
            write_atomically(
                name,
                produce,
                durable=True,
                dir_fd=self.fd,
                mode=_NEW_FILE_MODE,
                keep_mode=True,
                replace_any_file=True,
            )
        except NotRegularFileError as refused:
            raise not_replaced(refused, name) from None

    def remove_stale(self, name: str, expect: FileIdentity | None = None) -> bool:
        """The release's `remove_path` without `recursive`: an empty directory is removed, anything else
        that is no directory is unlinked (a symlink itself, never what it points to); a failure (a
        non-empty directory, a vanished entry, a permission) is ignored. True when removed. With
        `expect`, only that very file is removed (one changed since planning stays)."""
        check_entry_name(name)
        try:
            info = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
            if expect is not None and FileIdentity.of(info) != expect:
                return False
            if stat.S_ISDIR(info.st_mode):
                os.rmdir(name, dir_fd=self.fd)
            else:
                os.unlink(name, dir_fd=self.fd)
        except OSError:
            return False
        return True

    def is_directory(self, name: str) -> bool:
        check_entry_name(name)
        info = self.lstat(name)
        return info is not None and stat.S_ISDIR(info.st_mode)

    def digest(self, name: str, size: int) -> str | None:
        """SHA-256 of `name` if it is a regular file (not a symlink) of exactly `size` bytes, else None;
        read in 1 MiB steps."""
        try:
            fd, info = open_regular(name, dir_fd=self.fd, follow_symlinks=False)
        except (OSError, NotRegularFileError):
            return None
        try:
            if info.st_size != size:
                return None
            hasher = hashlib.sha256()
            total = 0
            while chunk := os.read(fd, _READ_BUFFER):
                hasher.update(chunk)
                total += len(chunk)
            return hasher.hexdigest() if total == size else None
        except OSError:
            return None
        finally:
            os.close(fd)


def export_dir_digest(export_dir: Path, name: str, size: int) -> str | None:
    """`ExportDir.digest` of an export dir that is not open (planning): None if it cannot be read."""
    try:
        fd = os.open(export_dir, _DIR_FLAGS)
    except OSError:
        return None
    try:
        return ExportDir(export_dir, fd, created=False).digest(name, size)
    finally:
        os.close(fd)
