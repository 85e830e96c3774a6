"""No compiled regex in memwarm_cli repeats a group possessively.

CPython before 3.11.5 (Debian 12's python3 is 3.11.2) mis-matches a possessive repeat of a group that
holds a lookahead: `(?:[a-z]|%(?![0-9]{2}))*+%[0-9]{2}=` finds nothing in `pa%73=`. The redaction
prefilter was such a regex, so on 3.11.2 a `pa%73s=…` secret was kept in clear while 3.11.7 masked it.
An atomic group, `(?>(?:…)*)`, means the same and matches right on every 3.11. A possessive repeat of
one character (`[…]*+`) is a different opcode and is unaffected. This walks every module's patterns, so
the rule holds on the Python CI runs, which has the fix.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Iterator
from typing import Any

import memwarm_cli

_parser: Any = getattr(re, "_parser")  # noqa: B009 - the stdlib's own regex parser (sre_parse)
_constants: Any = getattr(re, "_constants")  # noqa: B009
_ONE_CHARACTER = {_constants.LITERAL, _constants.NOT_LITERAL, _constants.IN, _constants.ANY}


def _patterns(value: object, depth: int = 0) -> Iterator[re.Pattern[str]]:
    if isinstance(value, re.Pattern):
        yield value
    elif depth < 3 and isinstance(value, (tuple, list, frozenset, set)):
        for item in value:
            yield from _patterns(item, depth + 1)
    elif depth < 3 and isinstance(value, dict):
        for item in value.values():
            yield from _patterns(item, depth + 1)


def _module_patterns() -> Iterator[tuple[str, re.Pattern[str]]]:
    for info in pkgutil.walk_packages(memwarm_cli.__path__, "memwarm_cli."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            for pattern in _patterns(value):
                if isinstance(pattern.pattern, str):
                    yield f"{info.name}.{name}", pattern


def _group_possessives(items: Any) -> Iterator[str]:
    for op, av in items:
        children: list[Any] = []
        if op is _constants.POSSESSIVE_REPEAT:
            body = list(av[2])
            if not (len(body) == 1 and body[0][0] in _ONE_CHARACTER):
                yield str(body)[:80]
            children = [av[2]]
        elif op in (_constants.MAX_REPEAT, _constants.MIN_REPEAT):
            children = [av[2]]
        elif op is _constants.SUBPATTERN:
            children = [av[3]]
        elif op is _constants.BRANCH:
            children = list(av[1])
        elif op in (_constants.ASSERT, _constants.ASSERT_NOT):
            children = [av[1]]
        elif op is _constants.ATOMIC_GROUP:
            children = [av]
        elif op is _constants.GROUPREF_EXISTS:
            children = [branch for branch in av[1:] if branch is not None]
        for child in children:
            yield from _group_possessives(child)


def test_the_walk_finds_the_redaction_patterns() -> None:
    names = {name for name, _ in _module_patterns()}
    assert "memwarm_cli.backends.sessions.redaction.form_body._PERCENT_KEY" in names
    assert "memwarm_cli.backends.sessions.redaction.form_body._PREFILTER" in names


def test_a_group_repeated_possessively_is_found() -> None:
    found = list(_group_possessives(_parser.parse(r"(?:[a-z]|%(?![0-9]{2}))*+=")))
    assert found
    assert not list(_group_possessives(_parser.parse(r"(?>(?:[a-z]|%(?![0-9]{2}))*)[a-z]*+=")))


def test_no_pattern_repeats_a_group_possessively() -> None:
    offenders = {
        name: found
        for name, pattern in _module_patterns()
        if (found := list(_group_possessives(_parser.parse(pattern.pattern, pattern.flags))))
    }
    assert offenders == {}
