"""OpenClaw's two cutting helpers over UTF-16 code units: `truncateUtf16Safe` and `clampToBudget` (§5.3-5.4).

Built on memwarm_cli.jsstring's `js_length`/`js_slice`; a cut may leave a lone surrogate, kept as a
surrogate code point, exactly where OpenClaw leaves one.
"""

from __future__ import annotations

from memwarm_cli.jsstring import js_length, js_slice

ELLIPSIS = "\u2026"


def _is_high(unit: str) -> bool:
    return "\ud800" <= unit <= "\udbff"


def _is_low(unit: str) -> bool:
    return "\udc00" <= unit <= "\udfff"


def truncate_utf16_safe(text: str, limit: int) -> str:
    """The first `limit` units, one fewer when the cut would split a surrogate pair."""
    limit = max(0, limit)
    if js_length(text) <= limit:
        return text
    if limit > 0 and _is_high(js_slice(text, limit - 1, limit)) and _is_low(js_slice(text, limit, limit + 1)):
        return js_slice(text, 0, limit - 1)
    return js_slice(text, 0, limit)


def clamp_to_budget(text: str, budget: int) -> str:
    """`clampToBudget`: the text if it fits, else a safe cut ending in `…` (a bare cut for 3 or fewer)."""
    if budget <= 0:
        return ""
    if js_length(text) <= budget:
        return text
    if budget <= 3:
        return truncate_utf16_safe(text, budget)
    return truncate_utf16_safe(text, budget - 1) + ELLIPSIS
