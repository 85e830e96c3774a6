"""Which files qmd 2.8.3 would index in a collection: its glob masks and its directory walk, mirrored.

The walk follows qmd's indexer (fast-glob, `onlyFiles`, no symlinked directories, hidden entries and
`node_modules`, `.git`, `.cache`, `vendor`, `dist`, `build` skipped); where the glob translation is unsure
it matches more files, never fewer, so a change is never missed. One `stat` per file: the fingerprint's
whole cost on a large workspace, for `init-backends` and `status` alike.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterable

from memwarm_cli.backends.qmd_collections import CollectionSpec

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


def _walk(root: str, recursive: bool) -> Iterable[tuple[str, os.stat_result]]:
    """(relative POSIX path, stat) of the non-hidden files under root, pruning what qmd skips."""
    stack = [""]
    while stack:
        rel_dir = stack.pop()
        try:
            entries = list(os.scandir(os.path.join(root, rel_dir) if rel_dir else root))
        except OSError:
            continue
        for entry in entries:
            if entry.name.startswith("."):
                continue
            rel = f"{rel_dir}/{entry.name}" if rel_dir else entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if recursive and entry.name not in EXCLUDED_DIRS:
                        stack.append(rel)
                    continue
                st = entry.stat(follow_symlinks=True)
            except OSError:
                continue
            if stat.S_ISDIR(st.st_mode):
                continue  # a symlink to a directory: not followed (its stat says so: no second stat)
            yield rel, st


def collection_files(spec: CollectionSpec) -> FileList:
    """(path, size, mtime_ns) of the files of a collection as qmd would index them, sorted."""
    root = str(spec.path)
    patterns = split_glob_mask(spec.pattern) or [spec.pattern]
    regexes = [glob_regex(p) for p in patterns]
    match_all = any(r is None for r in regexes)
    recursive = match_all or any("/" in p or "**" in p for p in patterns)
    files: list[tuple[str, int, int]] = []
    for rel, st in _walk(root, recursive):
        if match_all or any(r is not None and r.match(rel) for r in regexes):
            files.append((rel, st.st_size, st.st_mtime_ns))
    files.sort()
    return files


def snapshot_collection(spec: CollectionSpec) -> FileList | None:
    """The collection's files, or None when its directory does not exist."""
    return collection_files(spec) if spec.path.is_dir() else None
