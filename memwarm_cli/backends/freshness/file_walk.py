"""Which files qmd 2.8.3 would index in a collection: its glob masks and its directory walk, mirrored.

The walk follows qmd's indexer (fast-glob, `onlyFiles`, no symlinked directories, hidden entries and
`node_modules`, `.git`, `.cache`, `vendor`, `dist`, `build` skipped); where the glob translation is unsure
it matches more files, never fewer, so a change is never missed. One `stat` per file: the fingerprint's
whole cost on a large workspace, for `init-backends` and `status` alike.
"""

from __future__ import annotations

import os
import re
from array import array
from collections.abc import Callable, Iterator, Mapping, Sequence
from operator import itemgetter
from stat import S_ISDIR
from typing import NamedTuple

from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.config.paths import is_directory

_PATH = itemgetter(0)
EXCLUDED_DIRS = frozenset({"node_modules", ".git", ".cache", "vendor", "dist", "build"})
FileList = list[tuple[str, int, int]]  # (relative path, size, mtime in ns), sorted


def split_glob_mask(mask: str) -> list[str]:
    """qmd's `splitGlobMask`: commas outside `{}` / `[]` separate patterns; empty parts dropped."""
    parts: list[str] = []
    current = ""
    brace = bracket = 0
    for ch in mask:
        if ch == "{":
            brace += 1
        elif ch == "}" and brace > 0:
            brace -= 1
        elif ch == "[":
            bracket += 1
        elif ch == "]" and bracket > 0:
            bracket -= 1
        elif ch == "," and brace == 0 and bracket == 0:
            if current.strip():
                parts.append(current.strip())
            current = ""
            continue
        current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


def _segment_regex(segment: str) -> str:
    out = ""
    i = 0
    while i < len(segment):
        ch = segment[i]
        if ch == "*":
            out += "[^/]*"
        elif ch == "?":
            out += "[^/]"
        elif ch == "[":
            end = segment.find("]", i + 1)
            if end == -1:
                out += re.escape(ch)
            else:
                body = segment[i + 1 : end]
                if body.startswith("!"):
                    body = "^" + body[1:]
                out += f"[{body}]"
                i = end
        elif ch == "{":
            end = segment.find("}", i + 1)
            if end == -1:
                out += re.escape(ch)
            else:
                options = segment[i + 1 : end].split(",")
                out += "(?:" + "|".join(_segment_regex(o) for o in options) + ")"
                i = end
        else:
            out += re.escape(ch)
        i += 1
    return out


def glob_regex(pattern: str) -> re.Pattern[str] | None:
    """A regex for relative POSIX paths matching `pattern`, or None to mean "anything" (unsure)."""
    pattern = pattern.removeprefix("./")
    if not pattern or pattern.startswith("/") or "!" in pattern.replace("[!", ""):
        return None
    pieces: list[str] = []
    segments = pattern.split("/")
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            pieces.append(".*" if last else "(?:[^/]+/)*")
        else:
            pieces.append(_segment_regex(segment) + ("" if last else "/"))
    try:
        return re.compile("".join(pieces) + r"\Z")
    except re.error:
        return None


_SPECIAL = frozenset("*?[]{}!")
NameTest = Callable[[str], bool]
PathTest = Callable[[str, str, bool], bool]  # (relative path, name, directly under the root)


def _name_test(segment: str) -> NameTest | None:
    """A test of one path segment: a literal, `*<literal>` (the usual `*.md`), else its regex."""
    if not _SPECIAL.intersection(segment):
        return segment.__eq__
    if segment.startswith("*") and not _SPECIAL.intersection(segment[1:]):
        suffix = segment[1:]
        return lambda name: name.endswith(suffix)
    try:
        regex = re.compile(_segment_regex(segment) + r"\Z")
    except re.error:
        return None
    return lambda name: regex.match(name) is not None


def path_test(patterns: Sequence[str]) -> tuple[PathTest, bool]:
    """One test for a collection's patterns, and whether the walk must go below the root.

    `**/<segment>` and `<segment>` patterns test the file name alone (no regex over the whole path for
    the common `**/*.md`: the walk's per-file cost is the fingerprint's, on 100k files); any other
    pattern tests the relative path with glob_regex; a pattern glob_regex is unsure of matches all."""
    regexes = [glob_regex(p) for p in patterns]
    if any(r is None for r in regexes):
        return (lambda rel, name, top: True), True
    anywhere: list[NameTest] = []
    at_root: list[NameTest] = []
    whole: list[re.Pattern[str]] = []
    for pattern, regex in zip(patterns, regexes, strict=True):
        assert regex is not None
        segments = pattern.removeprefix("./").split("/")
        name_test = _name_test(segments[-1]) if segments[-1] != "**" else None
        if name_test is not None and len(segments) == 1:
            at_root.append(name_test)
        elif name_test is not None and len(segments) == 2 and segments[0] == "**":
            anywhere.append(name_test)
        else:
            whole.append(regex)
    recursive = any("/" in p or "**" in p for p in patterns)
    if len(anywhere) == 1 and not at_root and not whole:
        only: NameTest = anywhere[0]
        return (lambda rel, name, top: only(name)), recursive

    def test(rel: str, name: str, top: bool) -> bool:
        return (
            any(t(name) for t in anywhere)
            or (top and any(t(name) for t in at_root))
            or any(r.match(rel) for r in whole)
        )

    return test, recursive


def name_suffix(patterns: Sequence[str]) -> str | None:
    """The suffix when the patterns are one `**/*<literal>` (the default `**/*.md`), else None.

    Such a collection is every non-hidden file below the root whose name ends so: path_test's own
    answer for it (a name test, recursive), which walk_by_suffix inlines."""
    if len(patterns) != 1:
        return None
    segments = patterns[0].removeprefix("./").split("/")
    if len(segments) != 2 or segments[0] != "**" or not segments[1].startswith("*"):
        return None
    suffix = segments[1][1:]
    if _SPECIAL.intersection(suffix) or glob_regex(patterns[0]) is None:
        return None
    return suffix


def collection_files(spec: CollectionSpec) -> FileList:
    """(path, size, mtime_ns) of the files of a collection as qmd would index them, sorted.

    The non-hidden files under the root, pruning what qmd skips; a symlink to a directory is not
    followed. Only matching names are stat'ed, once each."""
    patterns = split_glob_mask(spec.pattern) or [spec.pattern]
    suffix = name_suffix(patterns)
    if suffix is not None:
        return walk_by_suffix(str(spec.path), suffix)
    return walk_matching(str(spec.path), *path_test(patterns))


# Each directory is opened once and its files stat'ed through that descriptor (fstatat): the kernel
# resolves the file name alone, not the whole path again, which is most of a stat's cost on 100k notes.
_DIRECTORY_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _listing(directory: str) -> tuple[int, list[os.DirEntry[str]]] | None:
    """An open descriptor of `directory` and its entries (their stat() goes through it), or None."""
    try:
        fd = os.open(directory, _DIRECTORY_FLAGS)
    except OSError:
        return None
    try:
        with os.scandir(fd) as entries:
            return fd, list(entries)
    except OSError:
        os.close(fd)
        return None


def walk_matching(root: str, matches: PathTest, recursive: bool) -> FileList:
    """The walk for any patterns: each non-hidden file's relative path and name go through `matches`."""
    files: FileList = []
    append = files.append
    stack = [("", root)]
    while stack:
        rel_dir, directory = stack.pop()
        listing = _listing(directory)
        if listing is None:
            continue
        fd, entries = listing
        top = not rel_dir
        try:
            for entry in entries:
                name = entry.name
                if name.startswith("."):
                    continue
                rel = rel_dir + name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if recursive and name not in EXCLUDED_DIRS:
                            stack.append((rel + "/", os.path.join(directory, name)))
                        continue
                    if not matches(rel, name, top):
                        continue
                    info = entry.stat()
                except OSError:
                    continue
                if not S_ISDIR(info.st_mode):  # a symlink to a directory: not followed
                    append((rel, info.st_size, info.st_mtime_ns))
        finally:
            os.close(fd)
    files.sort(key=_PATH)  # paths are unique: by path alone, a third of the cost of comparing tuples
    return files


def walk_by_suffix(root: str, suffix: str) -> FileList:
    """walk_matching for the one pattern `**/*<suffix>`, with the name test inline: on 100k notes the
    walk is nearly all of `status`, and every Python operation per file shows (a test holds the two
    walks to the same result)."""
    files: FileList = []
    append = files.append
    stack = [("", root)]
    while stack:
        rel_dir, directory = stack.pop()
        listing = _listing(directory)
        if listing is None:
            continue
        fd, entries = listing
        try:
            for entry in entries:
                name = entry.name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if not name.startswith(".") and name not in EXCLUDED_DIRS:
                            stack.append((rel_dir + name + "/", os.path.join(directory, name)))
                        continue
                    if not name.endswith(suffix) or name.startswith("."):
                        continue
                    info = entry.stat()
                except OSError:
                    continue
                if not S_ISDIR(info.st_mode):  # a symlink to a directory: not followed
                    append((rel_dir + name, info.st_size, info.st_mtime_ns))
        finally:
            os.close(fd)
    files.sort(key=_PATH)
    return files


def snapshot_collection(spec: CollectionSpec) -> FileList | None:
    """The collection's files, or None when its directory does not exist."""
    return collection_files(spec) if is_directory(spec.path) else None


class PackedFileList(NamedTuple):
    """A file list as three flat columns, which is how a forked walker sends it back (forked_map): the
    default pickle of 12,500 (path, size, mtime) tuples cost more than a quarter of walking them, and
    its unpickling ran in the parent after the walks, where every agent waited for it."""

    length: int
    paths: str  # joined by NUL, which no file name holds
    sizes: bytes  # array("q")
    mtimes: bytes  # array("q")


def pack_file_list(files: FileList) -> PackedFileList:
    return PackedFileList(
        len(files),
        "\0".join([entry[0] for entry in files]),
        array("q", [entry[1] for entry in files]).tobytes(),
        array("q", [entry[2] for entry in files]).tobytes(),
    )


def unpack_file_list(packed: PackedFileList) -> FileList:
    if not packed.length:
        return []
    sizes, mtimes = array("q"), array("q")
    sizes.frombytes(packed.sizes)
    mtimes.frombytes(packed.mtimes)
    return list(zip(packed.paths.split("\0"), sizes, mtimes, strict=True))


class PackedFileLists(Mapping[str, FileList | None]):
    """Collection file lists as a forked walker sent them, each unpacked when first read: a run that finds
    every digest unchanged (the digests came computed) reads none of them."""

    def __init__(self, packed: Mapping[str, PackedFileList | None]) -> None:
        self._packed = packed
        self._lists: dict[str, FileList | None] = {}

    def __getitem__(self, name: str) -> FileList | None:
        if name not in self._lists:
            packed = self._packed[name]
            self._lists[name] = None if packed is None else unpack_file_list(packed)
        return self._lists[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._packed)

    def __len__(self) -> int:
        return len(self._packed)
