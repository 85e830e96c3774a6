"""Every file memwarm reads or writes for itself goes through here: one bounded reader, one atomic writer.

Reading (`open_regular`, `read_bounded`): only a regular file of a real file system is read. A
directory, device, socket or FIFO is refused from its `stat`, before it is opened (opening some devices
acts on them); files of pseudo file systems (`/proc`, `/sys`) claim to be regular but lie about their
size, and some block or consume what a read returns (`/proc/kmsg`), so they are refused too. The open is
non-blocking and checked again with `fstat`: a file swapped for a FIFO, or for another file, between the
`stat` and the open is refused (`FileChangedError`). Reads stop one byte past the cap, so an oversize
file costs at most the cap. With `follow_symlinks=False` the file is opened with O_NOFOLLOW (a symlink
at the name is refused, never read through); with `single_link` a file with other hard links is
refused (its content may live outside the directory it was listed in); with `dir_fd` the name is
relative to an open directory. The kernel's own tables (`/proc/self/mountinfo`, `/proc/locks`) are
read with `read_kernel_table`, the one exception to the pseudo-file-system rule.

Writing (`write_atomically`): the bytes go to a fresh temp file beside the target (O_CREAT|O_EXCL|
O_NOFOLLOW, a name `.<name>.memwarm-<16 hex>.tmp`, never an existing file), which is renamed over the
target, so a reader never sees half a file; the temp file is removed on every failure path (ENOSPC, an
exception from a signal handler). What stands at the target's name must be absent or a regular file:
a symlink, device, FIFO, socket or directory there is the user's and is refused before anything is
written, and checked again just before the rename. With `replace_any_file` (names that are memwarm's
own: its state files, its exports) anything but a directory is replaced by the rename, never opened
nor written through. `durable` adds an fsync before the rename (the crash-safe choice for files
others read: exports, the textfile); memwarm's own cache records are validated on read and skip it.
Temp files older than STALE_TEMP_SECONDS that a killed run left beside the target are swept after a
successful write, and only those provably this writer's: the 16 hex digits are 4 random bytes and 4 of a
SHA-256 over the mark, the name and those bytes, so a file of the user's that merely looks like a temp
(`.notes.0123456789abcdef.tmp`, or an older memwarm's `.<name>.<pid>.<thread>.tmp`) is never taken for one;
it must also be a regular file of this user with one link.
"""

from __future__ import annotations

import errno
import functools
import os
import stat
import time
from collections.abc import Callable

STALE_TEMP_SECONDS = 600.0  # a temp file this old belongs to no live writer
_CHUNK = 1024 * 1024
_OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | os.O_CLOEXEC
_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_TEMP_STEM_BYTES = 200  # a legal 255-byte target name must leave room for `.<stem>.<hex>.tmp`
_TEMP_NAME_ATTEMPTS = 5

_FILE_KINDS = {
    stat.S_IFDIR: "a directory",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFLNK: "a symbolic link",
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


class HardLinkedError(OSError):
    """A `single_link` read found a file with other hard links."""

    def __init__(self, links: int, name: str) -> None:
        super().__init__(errno.EMLINK, f"it has {links} hard links", name)
        self.links = links


class FileChangedError(OSError):
    """The file opened is not the one that was looked at (swapped, or replaced, meanwhile)."""

    def __init__(self, name: str) -> None:
        super().__init__(errno.ESTALE, "it was replaced while it was read", name)


@functools.cache
def _pseudo_mounts() -> dict[int, str]:
    """st_dev -> file system type, for the pseudo file systems mounted here (Linux; {} elsewhere)."""
    try:
        text = read_kernel_table("/proc/self/mountinfo")
    except OSError:
        return {}
    mounts: dict[int, str] = {}
    for line in text.splitlines():
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


def _check(st: os.stat_result, name: str, max_bytes: int | None, single_link: bool) -> None:
    kind = not_regular_kind(st)
    if kind is not None:
        raise NotRegularFileError(kind)
    if max_bytes is not None and st.st_size > max_bytes:
        raise FileTooLargeError(st.st_size, max_bytes)
    if single_link and st.st_nlink > 1:
        raise HardLinkedError(st.st_nlink, name)


def open_regular(
    path: str | os.PathLike[str],
    *,
    dir_fd: int | None = None,
    follow_symlinks: bool = True,
    max_bytes: int | None = None,
    single_link: bool = False,
    expect: os.stat_result | None = None,
) -> tuple[int, os.stat_result]:
    """A non-blocking read descriptor of the regular file `path` and its `fstat` (the caller closes it).

    Raises NotRegularFileError or FileTooLargeError (before opening), HardLinkedError, FileChangedError
    (the file opened is not the one stat saw, or not `expect`), or the OSError of stat/open (a symlink
    with `follow_symlinks=False` is NotRegularFileError("a symbolic link"); ValueError for a NUL byte).
    """
    name = os.fsdecode(path)
    before = os.stat(path, dir_fd=dir_fd, follow_symlinks=follow_symlinks)
    _check(before, name, max_bytes, single_link)
    flags = _OPEN_FLAGS if follow_symlinks else _OPEN_FLAGS | os.O_NOFOLLOW
    fd = os.open(path, flags, dir_fd=dir_fd)
    try:
        st = os.fstat(fd)
        _check(st, name, max_bytes, single_link)
        seen = expect if expect is not None else before
        if (st.st_dev, st.st_ino) != (seen.st_dev, seen.st_ino) or (st.st_dev, st.st_ino) != (
            before.st_dev,
            before.st_ino,
        ):
            raise FileChangedError(name)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


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


def read_bounded(
    path: str | os.PathLike[str],
    max_bytes: int,
    *,
    dir_fd: int | None = None,
    follow_symlinks: bool = True,
    single_link: bool = False,
    expect: os.stat_result | None = None,
    head_only: bool = False,
) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file `path` and its `fstat`, under `open_regular`'s rules.

    A file over `max_bytes` is FileTooLargeError (also when it grew after the `fstat`); with
    `head_only`, its first `max_bytes` bytes are returned instead (a shebang line, a header).
    """
    fd, st = open_regular(
        path,
        dir_fd=dir_fd,
        follow_symlinks=follow_symlinks,
        max_bytes=None if head_only else max_bytes,
        single_link=single_link,
        expect=expect,
    )
    try:
        data = read_available(fd, max_bytes, min(st.st_size, max_bytes))
    finally:
        os.close(fd)
    if len(data) > max_bytes:
        if not head_only:
            raise FileTooLargeError(len(data), max_bytes)
        data = data[:max_bytes]
    return data, st


def read_kernel_table(path: str, max_bytes: int = 16 * _CHUNK) -> str:
    """A table the kernel generates under /proc (`/proc/self/mountinfo`, `/proc/locks`), as text: the
    one kind of pseudo-file-system file memwarm reads (non-blocking, bounded); OSError when it cannot."""
    fd = os.open(path, _OPEN_FLAGS)
    try:
        return read_available(fd, max_bytes).decode("ascii", "replace")
    finally:
        os.close(fd)


# --------------------------------------------------------------------------------------------------------
# Writing


class FileWriter:
    """The temp file being written: `write` appends, `restart` starts it over."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    def restart(self) -> None:
        os.ftruncate(self._fd, 0)
        os.lseek(self._fd, 0, os.SEEK_SET)


def _temp_prefix(name: str) -> str:
    """`.<name>.memwarm-`, the name cut to its first 200 bytes so a legal name gives a legal temp name."""
    return f".{os.fsencode(name)[:_TEMP_STEM_BYTES].decode('utf-8', 'ignore')}.memwarm-"


def _temp_tag(prefix: str, nonce: bytes) -> str:
    """16 hex digits: the 4-byte nonce, then 4 bytes that tie it to this writer's mark and the name."""
    from hashlib import sha256  # here: it loads OpenSSL, ~3 ms CPU of every prelude, which writes no temp

    return (nonce + sha256(prefix.encode() + b"\0" + nonce).digest()[:4]).hex()


def temp_name(name: str) -> str:
    """`.<name>.memwarm-<16 hex>.tmp` (see the module's docstring for the digits)."""
    prefix = _temp_prefix(name)
    return f"{prefix}{_temp_tag(prefix, os.urandom(4))}.tmp"


def is_own_temp_name(entry_name: str, name: str) -> bool:
    """Whether `entry_name` is a temp name this writer makes for the target `name` (check digits too)."""
    prefix = _temp_prefix(name)
    tag = entry_name[len(prefix) : -len(".tmp")]
    if not entry_name.startswith(prefix) or not entry_name.endswith(".tmp") or len(tag) != 16:
        return False
    return not tag.strip("0123456789abcdef") and _temp_tag(prefix, bytes.fromhex(tag[:8])) == tag


def _refuse_target(name: str, dir_fd: int | None, replace_any_file: bool) -> os.stat_result | None:
    """What stands at the target: None when absent; NotRegularFileError for what must not be replaced."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    if replace_any_file and not stat.S_ISDIR(info.st_mode):
        return info
    kind = not_regular_kind(info)
    if kind is not None:
        raise NotRegularFileError(kind)
    return info


def not_replaced(refused: NotRegularFileError, name: str) -> OSError:
    """The OSError a plain rename would have raised for what stands at the target (EISDIR for a
    directory), for callers that report OSErrors."""
    if refused.kind == "a directory":
        return IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), name)
    return OSError(errno.EINVAL, f"it is {refused.kind}, not a regular file", name)


def write_atomically(
    path: str | os.PathLike[str],
    content: bytes | Callable[[FileWriter], None],
    *,
    durable: bool,
    dir_fd: int | None = None,
    mode: int = 0o600,
    keep_mode: bool = False,
    replace_any_file: bool = False,
) -> None:
    """Write `content` (bytes, or a function writing through a FileWriter) to `path` through a temp file
    renamed over it. With `dir_fd`, `path` is one name in that open directory.

    Raises NotRegularFileError for a target that must not be replaced, or the OSError of the write or
    the rename (which names `path`, not the temp file); an exception from `content` propagates. The
    temp file never survives a failure. `keep_mode` gives the new file the mode of the regular file it
    replaces; otherwise new files get `mode` (minus the umask).
    """
    target = os.fspath(path)
    directory, name = (None, target) if dir_fd is not None else os.path.split(target)
    existing = _refuse_target(target, dir_fd, replace_any_file)
    for attempt in range(_TEMP_NAME_ATTEMPTS):
        temp = temp_name(os.fsdecode(name))
        temp_path = temp if dir_fd is not None else os.path.join(directory or "", temp)
        try:
            fd = os.open(temp_path, _TEMP_FLAGS, mode, dir_fd=dir_fd)
            break
        except FileExistsError:
            if attempt == _TEMP_NAME_ATTEMPTS - 1:
                raise
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, target) from None
    try:
        try:
            writer = FileWriter(fd)
            if isinstance(content, bytes):
                writer.write(content)
            else:
                content(writer)
            if keep_mode and existing is not None and stat.S_ISREG(existing.st_mode):
                os.fchmod(fd, stat.S_IMODE(existing.st_mode))
            if durable:
                os.fsync(fd)
        finally:
            os.close(fd)
        _refuse_target(target, dir_fd, replace_any_file)  # again: what stood there may have been swapped
        os.rename(temp_path, target, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
    except BaseException as failure:
        import contextlib  # writers only: kept off the read-only commands (~0.5 ms of their start)

        with contextlib.suppress(OSError):
            os.unlink(temp_path, dir_fd=dir_fd)
        if isinstance(failure, OSError) and not isinstance(failure, NotRegularFileError):
            raise OSError(failure.errno, failure.strerror, target) from None
        raise
    _sweep_stale_temps(directory, dir_fd, os.fsdecode(name))


def _sweep_stale_temps(directory: str | None, dir_fd: int | None, name: str) -> None:
    """Remove temp files of `name` that a killed run (SIGKILL, OOM, power loss) could not: only names this
    writer makes (`is_own_temp_name`), regular files of this user with one link, and old ones: a
    concurrent writer's temp file lives for milliseconds."""
    cutoff = time.time() - STALE_TEMP_SECONDS
    where: int | str = dir_fd if dir_fd is not None else (directory or ".")
    uid = os.getuid()
    stale: list[str] = []
    import contextlib  # writers only: kept off the read-only commands (~0.5 ms of their start)

    with contextlib.suppress(OSError), os.scandir(where) as entries:
        for entry in entries:
            if not is_own_temp_name(entry.name, name):
                continue
            with contextlib.suppress(OSError):  # vanished meanwhile: nothing to sweep
                info = entry.stat(follow_symlinks=False)
                own = stat.S_ISREG(info.st_mode) and (info.st_uid, info.st_nlink) == (uid, 1)
                if own and info.st_mtime < cutoff:
                    stale.append(entry.name)
    for entry_name in stale:
        with contextlib.suppress(OSError):
            os.unlink(os.path.join("" if dir_fd is not None else directory or ".", entry_name), dir_fd=dir_fd)
