"""The literals a regex cannot match without: a cheap test that skips a regex on most texts.

`required_literals(pattern)` is a set of strings of which every match of the pattern contains at least
one (in lower case when the pattern ignores case), read off the pattern's parse tree: the longest run of
literal characters in a sequence, or for an alternation the union of its branches' sets (none if one
branch has none). None means no such set was found, and the regex must always run.
"""

from __future__ import annotations

import re
import warnings
from typing import Any

with warnings.catch_warnings():  # deprecated aliases of re's parser since 3.11; typeshed types them
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_constants
    import sre_parse

_REPEATS = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT)


def _required(node: sre_parse.SubPattern, fold: bool) -> frozenset[str] | None:
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
        if op is sre_constants.LITERAL:
            run.append(chr(arg).lower() if fold else chr(arg))
            continue
        flush()
        if op is sre_constants.SUBPATTERN:
            take(_required(arg[3], fold))
        elif op is sre_constants.BRANCH:
            branches = [_required(branch, fold) for branch in arg[1]]
            if all(branches):
                take(frozenset().union(*(b for b in branches if b)))
        elif op in _REPEATS and arg[0] >= 1:
            take(_required(arg[2], fold))
    flush()
    return best


def required_literals(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """See the module docstring (lower case when the pattern has IGNORECASE)."""
    fold = bool(pattern.flags & re.IGNORECASE)
    return _required(sre_parse.parse(pattern.pattern, pattern.flags), fold)
