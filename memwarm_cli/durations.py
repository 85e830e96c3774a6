"""Duration strings as OpenClaw parses them (`parseDurationMs`, memory-backends.md §1.3): "5m", "90s", "1h".

In the base layer: the qmd settings resolve them and `config check`'s schema judges them.
"""

from __future__ import annotations

import math
import re

from memwarm_cli.jsstring import js_trim

# A source, compiled (by re's cache) when a duration is first parsed: the qmd settings and the 6.35 schema
# import this module on every status, whose config mostly sets none.
_DURATION = r"^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$"
_DURATION_UNITS = {"ms": 1, "s": 1000, "m": 60_000, "h": 3_600_000, "d": 86_400_000}


def parse_duration_ms(raw: str, default_unit: str = "ms") -> int:
    """`parseDurationMs`: `"5"` with default_unit "m" is 300000; raises ValueError like upstream throws.

    Also raises ValueError for a value too large for a double (upstream would yield Infinity).
    """
    text = js_trim(str(raw)).lower()
    if not text:
        raise ValueError("invalid duration (empty)")
    match = re.match(_DURATION, text)
    if match is None:
        raise ValueError(f"invalid duration: {raw}")
    unit = match.group(2) or default_unit or "ms"
    value = float(match.group(1))  # a run of 400 digits is inf, as in JS
    product = value * _DURATION_UNITS[unit]
    if not math.isfinite(product):
        # JS would carry Infinity on; memwarm treats it as unparsable (the caller's default applies).
        raise ValueError(f"invalid duration (too large): {raw}")
    # Math.round: halves go up.
    result = math.floor(product + 0.5)
    if value > 0 and result == 0:
        raise ValueError(f"duration too small: {raw}")
    return result
