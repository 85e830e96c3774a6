"""Does a Node version satisfy a release's `engines.node` range? The subset of npm's semver ranges that
OpenClaw's releases write (`>=24.16.0 <25 || >=26.1.0`): `||`-separated sets of space-separated
comparators (`>=`, `>`, `<=`, `<`, `=`, a bare version), partial versions (`<25` is `<25.0.0`), `^`, `~`
and `x` wildcards. A range memwarm cannot read answers None (unknown), never a guess.
"""

from __future__ import annotations

import re

Version = tuple[int, int, int]
_VERSION = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")
_COMPARATOR = re.compile(r"(>=|<=|>|<|=|\^|~)?\s*v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?")


def parse_node_version(text: str | None) -> Version | None:
    """`v24.21.0` -> (24, 21, 0); None when it is no version."""
    match = _VERSION.match((text or "").strip())
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def _bounds(op: str, parts: list[int | None]) -> list[tuple[str, Version]] | None:
    major, minor, patch = parts
    if major is None:
        return []  # `*`: anything
    if op in ("", "=") and (minor is None or patch is None):
        op = "~" if minor is not None else "^"  # `24` / `24.1`: that major / minor, any rest
        if minor is None:
            return [(">=", (major, 0, 0)), ("<", (major + 1, 0, 0))]
    low = (major, minor or 0, patch or 0)
    if op == "^":
        high = (major + 1, 0, 0) if major else (0, (minor or 0) + 1, 0)
        return [(">=", low), ("<", high)]
    if op == "~":
        high = (major, (minor or 0) + 1, 0) if minor is not None else (major + 1, 0, 0)
        return [(">=", low), ("<", high)]
    if op == "<=" and (minor is None or patch is None):
        return [("<", (major + 1, 0, 0) if minor is None else (major, minor + 1, 0))]
    if op == ">" and (minor is None or patch is None):
        return [(">=", (major + 1, 0, 0) if minor is None else (major, minor + 1, 0))]
    return [(op or "=", low)]


def _holds(version: Version, op: str, bound: Version) -> bool:
    return {
        ">=": version >= bound,
        ">": version > bound,
        "<=": version <= bound,
        "<": version < bound,
        "=": version == bound,
    }[op]


def node_satisfies(version: str | None, node_range: str) -> bool | None:
    """Whether the Node `version` (`v24.21.0`) satisfies `node_range`; None when either is unreadable."""
    parsed = parse_node_version(version)
    if parsed is None:
        return None
    for alternative in node_range.split("||"):
        text = alternative.strip()
        comparators: list[tuple[str, Version]] = []
        while text:
            match = _COMPARATOR.match(text)
            if match is None:
                return None
            numbers = [None if p is None or p in "xX*" else int(p) for p in match.groups()[1:]]
            bounds = _bounds(match[1] or "", numbers)
            if bounds is None:
                return None
            comparators += bounds
            text = text[match.end() :].strip()
        if all(_holds(parsed, op, bound) for op, bound in comparators):
            return True
    return False
