"""Which files qmd 2.8.3 would index in a collection: its glob masks and its directory walk, mirrored.

qmd's `reindexCollection` runs fast-glob over the collection's realpath with `onlyFiles`,
`followSymbolicLinks: false`, `dot: false` and the ignores
`**/{node_modules,.git,.cache,vendor,dist,build}/**`, then drops every path with a segment starting
with `.`. So: regular files only (a symlink is never indexed, whatever it points to, nor a FIFO), no
hidden segment, no excluded directory at any depth, names matched
case-sensitively against `splitGlobMask(pattern)` (braces, `[...]`, `*`, `?`, `**`, and `\\x` for a literal
`x`, which is how OpenClaw escapes a file's basename). A pattern memwarm cannot read exactly as picomatch
does (extglobs, ranges, negations) gives `None`: the caller then cannot judge the collection from its files.

The walk streams: directories in sorted order, each one's matching files stat'ed through its descriptor
and handed out in chunks, so the files come in the byte order of their relative paths (the order of
qmd's `UNIQUE(collection, path)` index) and no per-file object outlives its directory. A collection's
digest (path, size, mtime of each file) is three running hashes over those chunks.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import re
from array import array
from collections.abc import Callable, Iterator, Sequence
from stat import S_ISREG

from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.config.paths import is_directory
from memwarm_cli.frozen_records import record

EXCLUDED_DIRS = frozenset({"node_modules", ".git", ".cache", "vendor", "dist", "build"})
FileList = list[tuple[str, int, int]]  # (relative path, size, mtime in ns), sorted
Chunk = list[tuple[str, int, int]]  # consecutive files of one directory, in order
MAX_EXPANSIONS = 256  # brace alternatives per pattern; more is not a pattern a person writes


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


class _Unsure(Exception):
    """A pattern whose matches memwarm cannot tell exactly."""


def _closing_brace(pattern: str, start: int) -> tuple[int, list[int]] | None:
    """The index of the `}` closing the `{` at `start` and the top-level commas between, or None."""
    depth = 0
    commas: list[int] = []
    i = start
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return i, commas
        elif ch == "," and depth == 1:
            commas.append(i)
        i += 1
    return None


def expand_braces(pattern: str) -> list[str]:
    """`a{b,c{d,e}}f` -> abf, acdf, acef (micromatch's braces); `{x}` stays literal; ranges are unsure."""
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            found = _closing_brace(pattern, i)
            if found is None:
                return [pattern]
            end, commas = found
            body = pattern[i + 1 : end]
            if not commas:
                if ".." in body:
                    raise _Unsure
                i += 1  # `{x}`: literal braces, look further on
                continue
            head, tail = pattern[:i], pattern[end + 1 :]
            bounds = [i, *commas, end]
            out: list[str] = []
            for left, right in itertools.pairwise(bounds):
                for option in expand_braces(pattern[left + 1 : right]):
                    out.extend(head + option + rest for rest in expand_braces(tail))
                    if len(out) > MAX_EXPANSIONS:
                        raise _Unsure
            return out
        i += 1
    return [pattern]


def _class(segment: str, start: int) -> tuple[str, int] | None:
    """A `[...]` class at `start` as a Python class and the index after it; None: a literal `[`."""
    i = start + 1
    negate = i < len(segment) and segment[i] in "!^"
    if negate:
        i += 1
    items: list[str] = []
    first = True
    while i < len(segment):
        ch = segment[i]
        if ch == "]" and not first:
            body = "".join(items)
            return (f"[^/{body}]" if negate else f"[{body}]"), i + 1
        if ch == "[" and segment.startswith("[:", i):
            raise _Unsure  # POSIX classes
        if ch == "\\" and i + 1 < len(segment):
            i += 1
            ch = segment[i]
        if ch == "-" and items and i + 1 < len(segment) and segment[i + 1] != "]":
            items.append("-")
        else:
            items.append(re.escape(ch))
        first = False
        i += 1
    return None


def _segment_regex(segment: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(segment):
        ch = segment[i]
        nxt = segment[i + 1] if i + 1 < len(segment) else ""
        if ch == "\\":
            out.append(re.escape(nxt or "\\"))
            i += 2
            continue
        if ch in "@!+*?" and nxt == "(":
            raise _Unsure  # extglob
        if ch in "()|":
            raise _Unsure  # regex groups, which picomatch reads as groups
        if ch == "*":
            while i + 1 < len(segment) and segment[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[":
            found = _class(segment, i)
            if found is None:
                out.append(re.escape(ch))
            else:
                out.append(found[0])
                i = found[1]
                continue
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def _split_segments(pattern: str) -> list[str]:
    """The pattern's `/`-separated segments (a `/` inside a class or after `\\` is not one)."""
    return pattern.split("/")


def _pattern_regex(pattern: str) -> tuple[str, bool]:
    """One brace-free pattern as a regex over relative paths, and whether it reaches below the root."""
    while pattern.startswith("./"):
        pattern = pattern[2:]
    if not pattern or pattern.startswith(("/", "!")):
        raise _Unsure  # absolute, or a negation
    segments = _split_segments(pattern)
    pieces: list[str] = []
    for index, segment in enumerate(segments):
        last = index == len(segments) - 1
        if segment == "**":
            pieces.append("(?:[^/]+/)*[^/]+" if last else "(?:[^/]+/)*")
        elif segment == "":
            raise _Unsure  # `a//b`
        else:
            pieces.append(_segment_regex(segment) + ("" if last else "/"))
    return "".join(pieces), len(segments) > 1


def _literal(segment: str) -> str | None:
    """The name a segment spells when it has no glob character once its escapes are read, else None."""
    out: list[str] = []
    i = 0
    while i < len(segment):
        ch = segment[i]
        if ch == "\\":
            if i + 1 == len(segment):
                return None
            out.append(segment[i + 1])
            i += 2
            continue
        if ch in "*?[]{}()!+@|":
            return None
        out.append(ch)
        i += 1
    return "".join(out)


PathTest = Callable[[str, str, bool], bool]  # (relative path, name, directly under the root)


@record
class Matcher:
    """A collection's patterns compiled for the walk: the cheapest test that answers as the glob does."""

    recursive: bool  # whether the walk goes below the root
    suffix: str | None = None  # `**/*<suffix>` alone: a name test
    names: frozenset[str] | None = None  # literal names directly under the root (`MEMORY.md`)
    regex: re.Pattern[str] | None = None  # anything else, over the relative path

    def test(self) -> PathTest:
        suffix, names, regex = self.suffix, self.names, self.regex
        if regex is not None:
            return lambda rel, name, top: regex.match(rel) is not None
        if suffix is not None:
            return lambda rel, name, top: name.endswith(suffix)
        literal = names or frozenset()
        return lambda rel, name, top: top and name in literal


def compile_mask(mask: str) -> Matcher | None:
    """The matcher of a collection's mask (qmd's splitGlobMask, then braces); None when unsure."""
    try:
        patterns = [p for part in (split_glob_mask(mask) or [mask]) for p in expand_braces(part)]
        if len(patterns) == 1:
            segments = patterns[0].removeprefix("./").split("/")
            literal_tail = _literal(segments[-1][1:]) if segments[-1].startswith("*") else None
            if len(segments) == 2 and segments[0] == "**" and literal_tail is not None:
                return Matcher(True, suffix=literal_tail)
        names = [_literal(p.removeprefix("./")) for p in patterns]
        if all(
            n is not None and "/" not in p.removeprefix("./") for n, p in zip(names, patterns, strict=True)
        ):
            return Matcher(False, names=frozenset(n for n in names if n))
        compiled = [_pattern_regex(p) for p in patterns]
        regex = re.compile("(?:" + "|".join(r for r, _ in compiled) + r")\Z")
        return Matcher(any(deep for _, deep in compiled), regex=regex)
    except (_Unsure, re.error):
        return None


UNSURE = re.compile(r"(?!)")  # compile_ignore's answer for globs memwarm cannot read


def compile_ignore(patterns: Sequence[str]) -> re.Pattern[str] | None:
    """A collection's own ignore globs (index.yml `ignore`) as one regex over relative paths (a match or
    anything below it); None for none, UNSURE when memwarm cannot read them as picomatch does."""
    if not patterns:
        return None
    try:
        expanded = [p for part in patterns for p in expand_braces(part)]
        body = "|".join(_pattern_regex(p)[0] for p in expanded)
        return re.compile("(?:" + body + r")(?:/.*)?\Z")
    except (_Unsure, re.error):
        return UNSURE


# Each directory is opened once and its files stat'ed through that descriptor (fstatat): the kernel
# resolves the file name alone, not the whole path again, which is most of a stat's cost on 100k notes.
_DIRECTORY_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _utf8(name: str) -> bool:
    """A name qmd can read: Node cannot open a file whose name is not UTF-8 (it reads U+FFFD)."""
    if name.isascii():
        return True
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _list_dir(path: str, rel_dir: str, matcher: Matcher, test: PathTest) -> tuple[Chunk, list[str]]:
    """The directory's matching regular files (relative path, size, mtime), and its subdirectories to
    walk as `name/`, both sorted; empty when it cannot be listed."""
    try:
        fd = os.open(path, _DIRECTORY_FLAGS)
    except OSError:
        return [], []
    files: Chunk = []
    subdirs: list[str] = []
    top = not rel_dir
    suffix = matcher.suffix
    try:
        with os.scandir(fd) as listing:
            entries = list(listing)
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    if matcher.recursive and name not in EXCLUDED_DIRS and _utf8(name):
                        subdirs.append(name + "/")
                    continue
                if suffix is not None:
                    if not name.endswith(suffix):
                        continue
                elif not test(rel_dir + name, name, top):
                    continue
                if not entry.is_file(follow_symlinks=False) or not _utf8(name):
                    continue
                info = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if S_ISREG(info.st_mode):
                files.append((rel_dir + name, info.st_size, info.st_mtime_ns))
    except OSError:
        return [], []
    finally:
        os.close(fd)
    files.sort()
    subdirs.sort()
    return files, subdirs


def walk_chunks(root: str, matcher: Matcher) -> Iterator[Chunk]:
    """The collection's files in the byte order of their relative paths, a directory's run at a time
    (a subdirectory sorts between its parent's files as `name/`)."""
    test = matcher.test()
    stack: list[tuple[str, str, Chunk, int, list[str], int]] = []
    files, subdirs = _list_dir(root, "", matcher, test)
    frame = ("", root, files, 0, subdirs, 0)
    while True:
        rel_dir, path, files, fi, subdirs, si = frame
        if si >= len(subdirs):
            if fi < len(files):
                yield files[fi:] if fi else files
            if not stack:
                return
            frame = stack.pop()
            continue
        sub = subdirs[si]
        end = fi
        target = rel_dir + sub
        while end < len(files) and files[end][0] < target:
            end += 1
        if end > fi:
            yield files[fi:end]
        stack.append((rel_dir, path, files, end, subdirs, si + 1))
        child_path = os.path.join(path, sub[:-1])
        child_files, child_subdirs = _list_dir(child_path, target, matcher, test)
        frame = (target, child_path, child_files, 0, child_subdirs, 0)


class ListDigest:
    """A running digest of a file list, the same however it is cut into chunks: the paths (each ended
    by NUL, which no file name holds), the sizes and the mtimes (64-bit) hashed apart, then together
    with the count. Names that are not UTF-8 never get here (the walk skips them)."""

    def __init__(self) -> None:
        self._paths = hashlib.sha256()
        self._sizes = hashlib.sha256()
        self._mtimes = hashlib.sha256()
        self.count = 0

    def update(self, chunk: Chunk) -> None:
        if not chunk:
            return
        self.count += len(chunk)
        self._paths.update(("\0".join([entry[0] for entry in chunk]) + "\0").encode("utf-8"))
        self._sizes.update(array("q", [entry[1] for entry in chunk]).tobytes())
        self._mtimes.update(array("q", [entry[2] for entry in chunk]).tobytes())

    def hexdigest(self, *context: str) -> str:
        digest = hashlib.sha256("\0".join((*context, str(self.count))).encode("utf-8", "surrogatepass"))
        for part in (self._paths, self._sizes, self._mtimes):
            digest.update(part.digest())
        return digest.hexdigest()


def collection_root(spec: CollectionSpec) -> str:
    """Where qmd globs: the realpath of the collection's directory (`collection add` stores it)."""
    return os.path.realpath(spec.path)


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
