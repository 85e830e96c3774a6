"""`JSON.parse` for transcript lines: strict JSON, as JavaScript reads it."""

from __future__ import annotations

import json
from typing import Any


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json_line(line: str) -> Any:
    """`JSON.parse`: raises ValueError where JS throws (NaN/Infinity, a leading U+FEFF, trailing data).

    Integers are read as floats: JS holds numbers as doubles, and Python's int parser refuses more than
    4300 digits, which JS accepts. Nesting deeper than Python's recursion limit raises RecursionError.
    Lone-surrogate escapes (`"\\ud83d"`) give a lone surrogate; an escaped pair gives its character.
    """
    return json.loads(line, parse_constant=_reject_constant, parse_int=float)
