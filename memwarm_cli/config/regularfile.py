"""Reading a file that must be a regular file (a config, an `$include`, a `.env`): never a hang.

A device, socket or FIFO is refused from its `stat`, before it is opened (opening some devices acts on
them). Files of pseudo file systems (`/proc`, `/sys`) claim to be regular but lie about their size, and
some block or consume what a read returns (`/proc/kmsg`): they are refused without a byte read. The open
is non-blocking and checked again with `fstat`, so a file swapped for a FIFO in between cannot hang us.
"""

from __future__ import annotations

import functools
import os
import stat

_FILE_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}

# Kernel file systems whose "regular" files are generated on read.
_PSEUDO_FILESYSTEMS = frozenset(
    {
        "proc",
        "sysfs",
        "debugfs",
        "tracefs",
        "securityfs",
        "cgroup",
        "cgroup2",
        "configfs",
        "pstore",
        "bpf",
        "efivarfs",
        "fusectl",
        "binfmt_misc",
        "mqueue",
        "nsfs",
        "rpc_pipefs",
    }
)
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1024 * 1024


class NotRegularFileError(Exception):
    """The path is not a regular file; `kind` says what it is ("a FIFO", "a file of the proc ...")."""

    def __init__(self, kind: str) -> None:
        super().__init__(kind)
        self.kind = kind


class FileTooLargeError(Exception):
    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"{size} bytes (limit {limit})")
        self.size = size
        self.limit = limit


@functools.cache
def _pseudo_mounts() -> dict[int, str]:
    """st_dev -> file system type, for the pseudo file systems mounted here (Linux; {} elsewhere)."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return {}
    mounts: dict[int, str] = {}
    for line in lines:
        # "<id> <parent> <major>:<minor> <root> <mount point> <options> [optional...] - <type> ..."
        fields = line.split()
        try:
            fstype = fields[fields.index("-") + 1]
            major, minor = (int(part) for part in fields[2].split(":"))
        except (ValueError, IndexError):
            continue
        if fstype in _PSEUDO_FILESYSTEMS:
            mounts[os.makedev(major, minor)] = fstype
    return mounts


def not_regular_kind(st: os.stat_result) -> str | None:
    """What the file is when it is not a regular file of a real file system; None for a regular file."""
    if not stat.S_ISREG(st.st_mode):
        return _FILE_KINDS.get(stat.S_IFMT(st.st_mode), "a special file")
    # Pseudo file systems use anonymous devices (major 0), like tmpfs and overlayfs: only then look.
    if os.major(st.st_dev) == 0:
        fstype = _pseudo_mounts().get(st.st_dev)
        if fstype is not None:
            return f"a file of the {fstype} pseudo file system"
    return None


def _check(st: os.stat_result, max_bytes: int) -> None:
    kind = not_regular_kind(st)
    if kind is not None:
        raise NotRegularFileError(kind)
    if st.st_size > max_bytes:
        raise FileTooLargeError(st.st_size, max_bytes)


def read_available(fd: int, max_bytes: int, size_hint: int = 0) -> bytes:
    """Read `fd` to its end, at most `max_bytes + 1` bytes (so the caller sees the excess).

    A non-blocking read with no data (EAGAIN; a plain read returns None there) is not a regular file.
    """
    chunks: list[bytes] = []
    total = 0
    want = min(max_bytes + 1, max(size_hint + 1, 4096))
    while total <= max_bytes:
        try:
            chunk = os.read(fd, min(want, max_bytes + 1 - total))
        except BlockingIOError:
            raise NotRegularFileError("a file whose read would block") from None
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        want = _CHUNK
    return b"".join(chunks)


def read_regular_file(path: str | os.PathLike[str], max_bytes: int) -> tuple[bytes, os.stat_result]:
    """The bytes of a regular file and its `fstat`. Raises NotRegularFileError, FileTooLargeError
    (both before reading), or the OSError of `stat`, `open` or `read` (ValueError for a NUL byte)."""
    _check(os.stat(path), max_bytes)
    fd = os.open(path, _OPEN_FLAGS)
    try:
        st = os.fstat(fd)
        _check(st, max_bytes)
        data = read_available(fd, max_bytes, st.st_size)
    finally:
        os.close(fd)
    if len(data) > max_bytes:  # it grew after the fstat
        raise FileTooLargeError(len(data), max_bytes)
    return data, st
