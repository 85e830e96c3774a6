"""The literals a regex cannot match without: a cheap test that skips a regex on most texts.

`required_literals(pattern)` is a set of strings of which every match of the pattern contains at least
one (in lower case when the pattern ignores case), read off the pattern's parse tree (sre_private.py):
the longest run of literal characters in a sequence, or for an alternation the union of its branches'
sets (none if one branch has none). None means no such set was found, and the regex must always run.
"""

from __future__ import annotations

import re
from typing import Any

from memwarm_cli.backends.sessions.redaction.sre_private import (
    BRANCH,
    LITERAL,
    REPEATS,
    SUBPATTERN,
    SubPattern,
    parse_tree,
)


def _required(node: SubPattern, fold: bool) -> frozenset[str] | None:
    best: frozenset[str] | None = None
    run: list[str] = []

    def take(candidate: frozenset[str] | None) -> None:
        nonlocal best
        if candidate and (best is None or min(map(len, candidate)) > min(map(len, best))):
            best = candidate

    def flush() -> None:
        if run:
            take(frozenset({"".join(run)}))
            run.clear()

    for op, raw_arg in node.data:
        arg: Any = raw_arg  # its shape depends on `op`
        if op is LITERAL:
            run.append(chr(arg).lower() if fold else chr(arg))
            continue
        flush()
        if op is SUBPATTERN:
            take(_required(arg[3], fold))
        elif op is BRANCH:
            branches = [_required(branch, fold) for branch in arg[1]]
            if all(branches):
                take(frozenset().union(*(b for b in branches if b)))
        elif op in REPEATS and arg[0] >= 1:
            take(_required(arg[2], fold))
    flush()
    return best


def required_literals(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """See the module docstring (lower case when the pattern has IGNORECASE)."""
    fold = bool(pattern.flags & re.IGNORECASE)
    return _required(parse_tree(pattern), fold)
