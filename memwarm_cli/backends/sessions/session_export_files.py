"""The careful file work of the session export: the transcripts read, the exports written and deleted.

Transcripts: the sessions dir is opened without following a symlink (a symlinked sessions dir is not
read at all), each transcript by name relative to that descriptor with O_NOFOLLOW, and it must still be
the regular file with one link that was listed (a symlink, a hard link to a file elsewhere, or a file
swapped in meanwhile is not read): memwarm never reads a file from outside the agent's sessions dir.

Exports: every change goes through a descriptor of the export dir opened with O_NOFOLLOW, and names are
single path components, so nothing is written or deleted outside that one directory, even if it is
swapped for a symlink after planning.
"""

from __future__ import annotations

import errno
import hashlib
import os
import stat
from collections.abc import Callable, Mapping
from contextlib import suppress
from pathlib import Path
from types import TracebackType
from typing import BinaryIO

from memwarm_cli.backends.sessions.export_cache import CachedExport
from memwarm_cli.errors import MemwarmError
from memwarm_cli.frozen_records import record

_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO never hangs us
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


def read_regular_file(path: Path, *, max_bytes: int | None = None) -> bytes:
    """The content of a regular file, never read through a symlink; OSError otherwise.

    With `max_bytes`, reads at most that many bytes (enough to tell a longer file from an equal one).
    """
    fd = os.open(path, _READ_FLAGS)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        chunks: list[bytes] = []
        remaining = max_bytes if max_bytes is not None else -1
        while remaining != 0:
            chunk = os.read(fd, 1 << 20 if remaining < 0 else min(remaining, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            if remaining > 0:
                remaining -= len(chunk)
        return b"".join(chunks)
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

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
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
        fd = os.open(listed.name, _READ_FLAGS, dir_fd=self.fd)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise OSError(errno.EINVAL, "not a regular file", listed.name)
            if info.st_nlink != 1:
                raise OSError(errno.EMLINK, f"it has {info.st_nlink} hard links", listed.name)
            if (info.st_dev, info.st_ino) != (listed.info.st_dev, listed.info.st_ino):
                raise OSError(errno.ESTALE, "it was replaced while the export ran", listed.name)
            os.set_blocking(fd, True)
            return os.fdopen(fd, "rb", buffering=_READ_BUFFER)
        except BaseException:
            os.close(fd)
            raise


# --------------------------------------------------------------------------------------------------------
# Exports


class StreamTarget:
    """An export being written through a temp file: `write` appends, `truncate` starts over."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    def truncate(self) -> None:
        os.ftruncate(self._fd, 0)
        os.lseek(self._fd, 0, os.SEEK_SET)


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

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        os.close(self.fd)

    def lstat(self, name: str) -> os.stat_result | None:
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def write_atomically(self, name: str, data: bytes) -> None:
        self.write_streaming(name, lambda target: target.write(data))

    def write_streaming(self, name: str, produce: Callable[[StreamTarget], None]) -> None:
        """Write `name` through a temp file renamed over it: readers never see half a file, and whatever
        is at `name` (a symlink, a hard link) is replaced, never written through. `produce` writes the
        content (and may start over); the temp file is removed on every failure path, an exception
        from `produce` (a cancellation) included."""
        check_entry_name(name)
        existing = self.lstat(name)
        mode = _NEW_FILE_MODE
        if existing is not None and stat.S_ISREG(existing.st_mode):
            mode = stat.S_IMODE(existing.st_mode)
        # Short and not `*.md`: within any name-length limit, and never indexed or cleaned up as an export.
        temp = f".memwarm-{os.urandom(8).hex()}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(temp, flags, _NEW_FILE_MODE, dir_fd=self.fd)
        try:
            try:
                produce(StreamTarget(fd))
                if mode != _NEW_FILE_MODE:
                    os.fchmod(fd, mode)
                os.fsync(fd)
            finally:
                os.close(fd)
            os.rename(temp, name, src_dir_fd=self.fd, dst_dir_fd=self.fd)
        except BaseException:
            with suppress(OSError):
                os.unlink(temp, dir_fd=self.fd)
            raise

    def remove_stale(self, name: str) -> bool:
        """The release's `remove_path` without `recursive`: an empty directory is removed, anything else
        that is no directory is unlinked (a symlink itself, never what it points to); a failure (a
        non-empty directory, a vanished entry, a permission) is ignored. True when removed."""
        check_entry_name(name)
        try:
            info = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
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
            fd = os.open(name, _READ_FLAGS, dir_fd=self.fd)
        except OSError:
            return None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size != size:
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
