"""The careful file work of the session export: reading transcripts, writing and deleting exports.

Every change goes through a descriptor of the export dir opened with O_NOFOLLOW, and names are single
path components, so nothing is written or deleted outside that one directory, even if it is swapped
for a symlink after planning. Transcripts are opened read-only without following symlinks.
"""

from __future__ import annotations

import errno
import os
import stat
from contextlib import suppress
from pathlib import Path
from types import TracebackType

from memwarm_cli.errors import MemwarmError
from memwarm_cli.frozen_records import record

_READ_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO never hangs us
_NEW_FILE_MODE = 0o600  # upstream's mode for new exports; an existing export keeps its own


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


class SessionExportFailed(SessionExportError):
    """The pass failed part-way: `code` is Node's error code (`ERR_FS_EISDIR`, `EACCES`, ...), `partial`
    what was written and deleted before the failure."""

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
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
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

    def _lstat(self, name: str) -> os.stat_result | None:
        try:
            return os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def write_atomically(self, name: str, data: bytes) -> None:
        """Write `name` through a temp file renamed over it: readers never see half a file, and whatever
        is at `name` (a symlink, a hard link) is replaced, never written through. The temp file is
        removed on every failure path."""
        check_entry_name(name)
        existing = self._lstat(name)
        mode = _NEW_FILE_MODE
        if existing is not None and stat.S_ISREG(existing.st_mode):
            mode = stat.S_IMODE(existing.st_mode)
        # Short and not `*.md`: within any name-length limit, and never indexed or cleaned up as an export.
        temp = f".memwarm-{os.urandom(8).hex()}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(temp, flags, _NEW_FILE_MODE, dir_fd=self.fd)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
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

    def remove_regular_file(self, name: str) -> bool:
        """Unlink `name` if it is (still) a regular file; a vanished one is fine. True when removed."""
        check_entry_name(name)
        info = self._lstat(name)
        if info is None or not stat.S_ISREG(info.st_mode):
            return False
        try:
            os.unlink(name, dir_fd=self.fd)
        except FileNotFoundError:
            return False
        return True

    def is_directory(self, name: str) -> bool:
        check_entry_name(name)
        info = self._lstat(name)
        return info is not None and stat.S_ISDIR(info.st_mode)
