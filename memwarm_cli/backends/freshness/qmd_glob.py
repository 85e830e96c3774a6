"""qmd 2.8.3's collection masks as memwarm reads them: `splitGlobMask`, then picomatch's braces, `*`, `?`,
`**`, `[...]` and `\\x` for a literal `x` (how OpenClaw escapes a file's basename), compiled to the
cheapest test the walk (file_walk.py) can run per name. A pattern memwarm cannot read exactly as picomatch
does (extglobs, ranges, negations, POSIX classes) gives None: the caller then cannot judge the collection
from its files, and says so.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Callable, Sequence

from memwarm_cli.frozen_records import record

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


@functools.lru_cache(maxsize=1024)
def compile_mask(mask: str) -> Matcher | None:
    """The matcher of a collection's mask (qmd's splitGlobMask, then braces); None when unsure.
    Cached: 10,000 agents share a handful of masks, and a Matcher is immutable."""
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
    return _compile_ignore(tuple(patterns))


@functools.lru_cache(maxsize=1024)
def _compile_ignore(patterns: tuple[str, ...]) -> re.Pattern[str] | None:
    try:
        expanded = [p for part in patterns for p in expand_braces(part)]
        body = "|".join(_pattern_regex(p)[0] for p in expanded)
        return re.compile("(?:" + body + r")(?:/.*)?\Z")
    except (_Unsure, re.error):
        return UNSURE
