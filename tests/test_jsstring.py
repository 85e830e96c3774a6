"""Property tests for the JS string helpers, against oracles written independently of the implementation."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memwarm_cli.jsstring import (
    JS_WHITESPACE,
    js_length,
    js_regex,
    js_slice,
    js_trim,
    to_well_formed,
)

# Text with astral characters, lone surrogates and every kind of whitespace in play.
interesting = st.sampled_from(
    [
        *JS_WHITESPACE,
        "\x1c",
        "\x1f",
        "\x85",
        "\u180e",
        "\u200b",
        "🚀",
        "😀",
        "\ud83d",
        "\ude80",
        "a",
        "é",
        "中",
    ]
)
texts = st.lists(st.one_of(interesting, st.characters()), max_size=40).map("".join)


def utf16_units(text: str) -> int:
    return sum(2 if ord(ch) > 0xFFFF else 1 for ch in text)


def is_js_whitespace(ch: str) -> bool:
    """ECMAScript WhiteSpace + LineTerminator: a few named ones plus Unicode category Zs."""
    return ch in "\t\v\f \u00a0\ufeff\n\r\u2028\u2029" or unicodedata.category(ch) == "Zs"


@given(texts)
def test_length_counts_utf16_units(text: str) -> None:
    assert js_length(text) == utf16_units(text)


@given(texts, st.integers(0, 90), st.integers(0, 90))
def test_slice_length_and_units(text: str, start: int, end: int) -> None:
    total = utf16_units(text)
    part = js_slice(text, start, end)
    assert js_length(part) == max(0, min(end, total) - min(start, total))


@given(texts, st.integers(0, 90))
def test_slices_reassemble_to_the_same_code_units(text: str, cut: int) -> None:
    head, tail = js_slice(text, 0, cut), js_slice(text, cut)
    units = (head + tail).encode("utf-16-le", "surrogatepass")
    assert units == text.encode("utf-16-le", "surrogatepass")


def test_slice_splits_a_surrogate_pair_like_js() -> None:
    text = "x" * 79 + "🚀tail"
    assert js_slice(text, 0, 80) == "x" * 79 + "\ud83d"
    assert js_slice(text, 80, 81) == "\ude80"


@given(texts)
def test_trim_strips_exactly_js_whitespace(text: str) -> None:
    trimmed = js_trim(text)
    assert trimmed in text
    if trimmed:
        assert not is_js_whitespace(trimmed[0]) and not is_js_whitespace(trimmed[-1])
    start = text.find(trimmed) if trimmed else len(text)
    assert all(is_js_whitespace(ch) for ch in text[:start])
    assert all(is_js_whitespace(ch) for ch in text[start + len(trimmed) :])
    assert js_trim(trimmed) == trimmed


def test_trim_differs_from_python_strip_where_js_does() -> None:
    assert js_trim("\ufeffnote\ufeff") == "note"
    for kept in ("\x1c", "\x1d", "\x1e", "\x1f", "\x85"):
        assert js_trim(kept + "x" + kept) == kept + "x" + kept
    assert js_trim("\u180e x \u200b") == "\u180e x \u200b"


@given(texts)
def test_well_formed_output_encodes_and_keeps_valid_text(text: str) -> None:
    fixed = to_well_formed(text)
    fixed.encode("utf-8")  # no lone surrogate left
    if not any(0xD800 <= ord(ch) <= 0xDFFF for ch in text):
        assert fixed == text
    assert utf16_units(fixed) == js_length(text)


# ---- js_regex ------------------------------------------------------------------------------------


@given(st.characters())
def test_js_regex_whitespace_class_is_js_whitespace(ch: str) -> None:
    assert bool(js_regex(r"\s").fullmatch(ch)) == is_js_whitespace(ch)
    assert bool(js_regex(r"[^\s]").fullmatch(ch)) != is_js_whitespace(ch)
    assert bool(js_regex(r"\S").fullmatch(ch)) != is_js_whitespace(ch)
    assert js_regex(r"[\s\S]").fullmatch(ch)


def test_js_regex_dot_dollar_word_boundary_and_case_like_js() -> None:
    for terminator in "\n\r\u2028\u2029":
        assert js_regex("a.b").search(f"a{terminator}b") is None
    assert js_regex("a.b").search("a\x85b")
    assert js_regex("x$").search("x\n") is None  # Python's `$` would match before a final newline
    assert js_regex(r"\bsk").search("ésk")  # ASCII \b: é is not a word character in JS
    assert js_regex("key", ignore_case=True).search("\u212aey") is None  # no Kelvin-sign folding
    assert js_regex("KEY", ignore_case=True).search("key")


def test_js_regex_refuses_what_it_cannot_translate() -> None:
    for source in (r"[\Sx]", "[]", "[^]", r"(?<name>x)", "é", "[a", "x\\"):
        with pytest.raises(ValueError):
            js_regex(source)
