"""The JavaScript string semantics the session export added to jsstring.py: UTF-16 unit strings,
`decodeURIComponent`, and `u`/`iu` regexes (expected values from Node 22 where they are JS's)."""

from __future__ import annotations

import pytest

from memwarm_cli.jsstring import (
    from_utf16_units,
    js_decode_uri_component,
    js_trim_start,
    js_unicode_regex,
    to_utf16_units,
)

# (input, Node's decodeURIComponent result; None: it throws URIError)
DECODE = [
    *[("", ""), ("abc", "abc"), ("%41", "A"), ("%4", None), ("%zz", None), ("%", None), ("a%20b", "a b")],
    *[("%e2%82%ac", "€"), ("%E2%82%AC", "€"), ("%c3%a9", "é"), ("%c0%80", None), ("%ed%a0%80", None)],
    *[("%f4%90%80%80", None), ("%f0%9f%98%80", "😀"), ("%80", None), ("%e2%82", None), ("%2B%26%3D", "+&=")],
    *[("%25", "%"), ("\ud83d%41", "\ud83dA"), ("😀%41", "😀A"), ("%F8%80%80%80%80", None), ("%fe", None)],
    ("pa%73sword", "password"),
]


@pytest.mark.parametrize(("text", "decoded"), DECODE)
def test_decode_uri_component_is_javascripts(text: str, decoded: str | None) -> None:
    if decoded is None:
        with pytest.raises(ValueError):
            js_decode_uri_component(text)
    else:
        assert js_decode_uri_component(text) == decoded


def test_utf16_unit_strings_round_trip_and_count_as_js_does() -> None:
    text = "a😀b\ud83d"
    units = to_utf16_units(text)
    assert len(units) == 5 and units[1:3] == "\ud83d\ude00"
    assert from_utf16_units(units) == text
    assert from_utf16_units("\ud83d" + "\ude00") == "😀"  # adjacent halves form the character
    assert to_utf16_units("plain") == "plain"


def test_a_unicode_ignore_case_regex_folds_long_s_and_kelvin_and_nothing_else() -> None:
    word = js_unicode_regex(r"\bsk_[a-z]+", ignore_case=True)
    assert word.search("x \u017f\u212a_abc") is not None  # ſ is s, K is k, as `iu` folds them
    assert word.search("x\u017fsk_abc") is None  # and both are word characters for \b
    assert word.search("\u0130sk_abc") is not None  # İ is not: \b holds before s
    negated = js_unicode_regex(r"[^A-Za-z0-9_]sk_", ignore_case=True)
    assert negated.search("\u212ask_") is None and negated.search("-sk_") is not None
    trailing_dash = js_unicode_regex(r"[A-Za-z0-9_.-]+", ignore_case=True)
    assert trailing_dash.fullmatch("a.-\u017f") and not trailing_dash.fullmatch("a/")  # no `.-ſ` range
    assert js_unicode_regex(r"a\s$").search("a\u00a0") is not None
    with pytest.raises(ValueError):
        js_unicode_regex(r"\p{C}")


def test_trim_start_is_javascripts() -> None:
    assert js_trim_start("\ufeff\u00a0 x \u0085") == "x \u0085"
