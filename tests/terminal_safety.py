"""Hostile text and the checks that it did not reach a terminal raw, shared by the escaping tests.

The checks use unicodedata, not memwarm_cli.textsafe, so they judge the policy rather than repeat it.
"""

from __future__ import annotations

import unicodedata

# One of each: CSI (colour), OSC (window title, ended by BEL), a bare ESC, C1 CSI (U+009B), BEL,
# backspace, carriage return, line feed, tab, DEL, NEL (U+0085), bidi override and isolate, LRM,
# zero-width space and joiner, word joiner, BOM, U+2028, a tag character.
HOSTILE = (
    "\x1b[31mRED\x1b[0m\x1b]0;owned\x07\x1bc\u009b2J\x07\x08\r\n\t\x7f\x85"
    "\u202eevil\u202c\u2066iso\u2069\u200e\u200b\u200d\u2060\ufeff\u2028\U000e0041"
)
# What must never reach a human view raw: controls, format characters (bidi, invisible), separators,
# surrogates (an undecodable byte or half a pair).
UNSAFE_CATEGORIES = {"Cc", "Cf", "Zl", "Zp", "Cs"}


def unsafe_characters(text: str, *, allowed: str = "") -> list[str]:
    """The characters of `text` that a terminal could act on or that hide (besides those `allowed`)."""
    return [ch for ch in text if unicodedata.category(ch) in UNSAFE_CATEGORIES and ch not in allowed]


def assert_one_safe_line(text: str) -> None:
    """`text` is one line (no line break of any kind) and holds nothing unsafe."""
    assert unsafe_characters(text) == [], repr(text)
    assert len(text.splitlines()) <= 1, repr(text)


def assert_safe_output(text: str, *, allowed: str = "\n") -> None:
    """A whole output: only its own line feeds (and whatever else is `allowed`, e.g. TSV tabs)."""
    assert unsafe_characters(text, allowed=allowed) == [], repr(unsafe_characters(text, allowed=allowed))
