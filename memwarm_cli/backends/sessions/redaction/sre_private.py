"""Every touch of the stdlib's private regex parser, in one module: `sre_parse` and `sre_constants` are
deprecated aliases (since 3.11) of `re._parser` and `re._constants`, with no public spelling of a parse
tree. regex_literals.py reads the trees for the redaction's prefilter; an upgrade of Python has this one
module to check (tests/backends/sessions/test_redaction_package.py holds it so, and the prefilter's
property tests catch a changed tree shape).
"""

from __future__ import annotations

import re
import warnings
from typing import Any

with warnings.catch_warnings():  # deprecated aliases of re's parser since 3.11; typeshed types them
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_constants
    import sre_parse

__all__ = ["BRANCH", "LITERAL", "REPEATS", "SUBPATTERN", "SubPattern", "parse_tree"]

SubPattern = sre_parse.SubPattern
LITERAL: Any = sre_constants.LITERAL
SUBPATTERN: Any = sre_constants.SUBPATTERN
BRANCH: Any = sre_constants.BRANCH
REPEATS: tuple[Any, ...] = (
    sre_constants.MAX_REPEAT,
    sre_constants.MIN_REPEAT,
    sre_constants.POSSESSIVE_REPEAT,
)


def parse_tree(pattern: re.Pattern[str]) -> sre_parse.SubPattern:
    """The parse tree `re` compiles `pattern` from (its source and flags)."""
    return sre_parse.parse(pattern.pattern, pattern.flags)
