"""Which files qmd 2.8.3 would index in a collection: its glob masks and its directory walk, mirrored.

qmd's `reindexCollection` runs fast-glob over the collection's realpath with `onlyFiles`,
`followSymbolicLinks: false`, `dot: false` and the ignores
`**/{node_modules,.git,.cache,vendor,dist,build}/**`, then drops every path with a segment starting
with `.`. So: regular files only (a symlink is never indexed, whatever it points to, nor a FIFO), no
hidden segment, no excluded directory at any depth, names matched case-sensitively against the mask
(qmd_glob.py).

The walk streams: directories in sorted order, each one listed one entry at a time (no DirEntry is
kept), its matching names sorted and stat'ed through its descriptor into compact columns, and handed
out in chunks of at most CHUNK_FILES, so the files come in the byte order of their relative paths (the
order of qmd's `UNIQUE(collection, path)` index) and no per-file object outlives its chunk: a million
notes in one directory cost their names and 16 bytes each, not a million DirEntry and stat objects. A
collection's digest (path, size, mtime of each file) is three running hashes over those chunks.
"""

from __future__ import annotations

import os
from array import array
from bisect import bisect_left
from collections.abc import Iterator
from stat import S_ISLNK, S_ISREG

from memwarm_cli.backends.freshness.qmd_glob import Matcher, PathTest, compile_mask
from memwarm_cli.backends.freshness.sha256 import Sha256
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.config.paths import is_directory

CHUNK_FILES = 4096  # files handed out at a time: their tuples are all the walk holds per file meanwhile
EXCLUDED_DIRS = frozenset({"node_modules", ".git", ".cache", "vendor", "dist", "build"})
FileList = list[tuple[str, int, int]]  # (relative path, size, mtime in ns), sorted
Chunk = list[tuple[str, int, int]]  # consecutive files of one directory, in order


# Each directory is opened once and its files stat'ed through that descriptor (fstatat): the kernel
# resolves the file name alone, not the whole path again, which is most of a stat's cost on 100k notes.
_DIRECTORY_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _readable(name: str) -> bool:
    """A name qmd can read: Node cannot open a file whose name is not UTF-8 (it reads U+FFFD)."""
    return name.isascii() or _utf8(name)


def _utf8(name: str) -> bool:
    """A name qmd can read: Node cannot open a file whose name is not UTF-8 (it reads U+FFFD)."""
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class _Listing:
    """One directory's matching regular files, sorted, in three compact columns (about 100 bytes a file
    in all: a DirEntry with its cached stat was about 800), and its subdirectories to walk as `name/`.
    A plain class: a NamedTuple needs typing at run time (~4 ms of every start, bench/bench_startup.py)."""

    __slots__ = ("mtimes", "names", "sizes", "subdirs")

    def __init__(self, names: list[str], sizes: array[int], mtimes: array[int], subdirs: list[str]) -> None:
        self.names = names
        self.sizes = sizes
        self.mtimes = mtimes  # ns
        self.subdirs = subdirs


_NOTHING = _Listing([], array("q"), array("q"), [])


def _list_dir(path: str, matcher: Matcher, test: PathTest, rel_dir: str) -> _Listing:
    """The directory's matching regular files and its subdirectories, both sorted; empty when it cannot
    be listed. The listing streams (one DirEntry at a time); only the matching names are kept, and each
    is stat'ed (through the directory's descriptor) in sorted order into the size and mtime columns."""
    try:
        fd = os.open(path, _DIRECTORY_FLAGS)
    except OSError:
        return _NOTHING
    names: list[str] = []
    subdirs: list[str] = []
    top = not rel_dir
    suffix = matcher.suffix
    try:
        with os.scandir(fd) as listing:
            for entry in listing:
                name = entry.name
                if name.startswith("."):
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if (
                            matcher.recursive
                            and name not in EXCLUDED_DIRS
                            and (name.isascii() or _utf8(name))
                        ):
                            subdirs.append(name + "/")
                        continue
                except OSError:
                    continue
                if suffix is not None:
                    if not name.endswith(suffix):
                        continue
                elif not test(rel_dir + name, name, top):
                    continue
                if _readable(name):
                    names.append(name)
        names.sort()  # unique names: plain string order, which is UTF-8 byte order for these
        sizes, mtimes = array("q"), array("q")
        kept = 0
        for name in names:
            try:
                info = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue
            if S_ISREG(info.st_mode):  # not a symlink, FIFO or socket: fast-glob's onlyFiles
                names[kept] = name
                kept += 1
                sizes.append(info.st_size)
                mtimes.append(info.st_mtime_ns)
        del names[kept:]
    except OSError:
        return _NOTHING
    finally:
        os.close(fd)
    subdirs.sort()
    return _Listing(names, sizes, mtimes, subdirs)


def _chunks(listing: _Listing, rel_dir: str, start: int, end: int) -> Iterator[Chunk]:
    """Files start..end-1 of a listing as (relative path, size, mtime) chunks of at most CHUNK_FILES."""
    names, sizes, mtimes = listing.names, listing.sizes, listing.mtimes
    for low in range(start, end, CHUNK_FILES):
        high = min(low + CHUNK_FILES, end)
        yield [(rel_dir + names[i], sizes[i], mtimes[i]) for i in range(low, high)]


def walk_chunks(root: str, matcher: Matcher) -> Iterator[Chunk]:
    """The collection's files in the byte order of their relative paths, at most CHUNK_FILES at a time
    (a subdirectory sorts between its parent's files as `name/`). What a directory's files cost is held
    only while the walk is in it and in its subdirectories (their parents' columns, not their tuples)."""
    test = matcher.test()
    stack: list[tuple[str, str, _Listing, int, int]] = []
    frame = ("", root, _list_dir(root, matcher, test, ""), 0, 0)
    while True:
        rel_dir, path, listing, fi, si = frame
        count = len(listing.names)
        if si >= len(listing.subdirs):
            yield from _chunks(listing, rel_dir, fi, count)
            if not stack:
                return
            frame = stack.pop()
            continue
        sub = listing.subdirs[si]
        end = bisect_left(listing.names, sub, fi)  # the files that sort before `sub/`
        yield from _chunks(listing, rel_dir, fi, end)
        stack.append((rel_dir, path, listing, end, si + 1))
        child_path = os.path.join(path, sub[:-1])
        target = rel_dir + sub
        frame = (target, child_path, _list_dir(child_path, matcher, test, target), 0, 0)


class ListDigest:
    """A running digest of a file list, the same however it is cut into chunks: the paths (each ended
    by NUL, which no file name holds), the sizes and the mtimes (64-bit) hashed apart, then together
    with the count. Names that are not UTF-8 never get here (the walk skips them)."""

    def __init__(self) -> None:
        self._paths = Sha256()  # OpenSSL's only for a long list (sha256.py)
        self._sizes = Sha256()
        self._mtimes = Sha256()
        self.count = 0

    def update(self, chunk: Chunk) -> None:
        if not chunk:
            return
        self.count += len(chunk)
        self._paths.update(("\0".join([entry[0] for entry in chunk]) + "\0").encode("utf-8"))
        self._sizes.update(array("q", [entry[1] for entry in chunk]).tobytes())
        self._mtimes.update(array("q", [entry[2] for entry in chunk]).tobytes())

    def hexdigest(self, *context: str) -> str:
        digest = Sha256("\0".join((*context, str(self.count))).encode("utf-8", "surrogatepass"))
        for part in (self._paths, self._sizes, self._mtimes):
            digest.update(part.digest())
        return digest.hexdigest()


def collection_root(spec: CollectionSpec) -> str:
    """Where qmd globs: the realpath of the collection's directory (`collection add` stores it)."""
    return shared_realpath(os.fspath(spec.path))


_resolved_parents: dict[str, str] | None = None  # while shared_parents() is on: parent -> its realpath


class shared_parents:  # named as the function it was: `with shared_parents():`
    """While on (`with`), each parent directory of a collection is resolved once: 10,000 workspaces under
    one directory made every realpath lstat each of its components again. For one batch of judgements
    only, so a link changed later is seen by the next batch. A class, not a contextlib.contextmanager:
    importing contextlib cost `status` ~1 ms CPU (bench/bench_startup.py)."""

    def __enter__(self) -> None:
        global _resolved_parents
        self.outer = _resolved_parents
        _resolved_parents = {} if self.outer is None else self.outer

    def __exit__(self, *_exc: object) -> None:
        global _resolved_parents
        _resolved_parents = self.outer


def shared_realpath(path: str) -> str:
    """os.path.realpath(path), its parent resolved once per shared_parents() batch: the realpath of the
    resolved parent joined with the last name, itself resolved only when it is a symlink (a missing
    one is kept as written, as realpath does)."""
    memo = _resolved_parents
    parent, name = os.path.split(path)
    if memo is None or not os.path.isabs(path) or name in ("", ".", ".."):
        return os.path.realpath(path)
    real_parent = memo.get(parent)
    if real_parent is None:
        real_parent = memo[parent] = os.path.realpath(parent)
    joined = os.path.join(real_parent, name)
    try:
        is_link = S_ISLNK(os.lstat(joined).st_mode)
    except OSError:
        return joined
    return os.path.realpath(joined) if is_link else joined


def collection_digest(spec: CollectionSpec, matcher: Matcher | None = None) -> tuple[str | None, int]:
    """The digest of the collection's files (None: its directory is missing), and how many there are."""
    if not is_directory(spec.path):
        return None, 0
    matcher = matcher or compile_mask(spec.pattern)
    root = collection_root(spec)
    digest = ListDigest()
    if matcher is not None:
        for chunk in walk_chunks(root, matcher):
            digest.update(chunk)
    return digest.hexdigest(root, spec.pattern, "" if matcher else "unsure"), digest.count


def list_digest(spec: CollectionSpec, files: FileList | None) -> str | None:
    """collection_digest's answer for a list walked before (collection_files)."""
    if files is None:
        return None
    digest = ListDigest()
    digest.update(files)
    return digest.hexdigest(
        collection_root(spec), spec.pattern, "" if compile_mask(spec.pattern) else "unsure"
    )


def collection_files(spec: CollectionSpec) -> FileList:
    """(path, size, mtime_ns) of the files qmd would index in the collection, sorted (a pattern memwarm
    cannot read gives none)."""
    matcher = compile_mask(spec.pattern)
    if matcher is None:
        return []
    return [entry for chunk in walk_chunks(collection_root(spec), matcher) for entry in chunk]


def snapshot_collection(spec: CollectionSpec) -> FileList | None:
    """The collection's files, or None when its directory does not exist."""
    return collection_files(spec) if is_directory(spec.path) else None
