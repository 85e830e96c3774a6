"""The position-tracking JSON5 reader: what the `json5` npm package accepts, and where errors stand."""

from __future__ import annotations

import contextlib
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memwarm_cli.config.json5reader import Json5Error, loads, parse_json5
from memwarm_cli.jsstring import js_int
from tests.conftest import offset_of


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{}", {}),
        ("[]", []),
        ("// comment\n{a: 1}", {"a": 1}),
        ("/* block\n comment */ {a: 1,}", {"a": 1}),
        ("{a: [1, 2, 3,],}", {"a": [1, 2, 3]}),
        ("{'single': 'quoted'}", {"single": "quoted"}),
        ('{"dq": "x\\ty"}', {"dq": "x\ty"}),
        ("{$id_1: true, _x: false, n: null}", {"$id_1": True, "_x": False, "n": None}),
        ("{h: 0x1F, m: -0X10}", {"h": 31, "m": -16}),
        ("{a: .5, b: 5., c: +1, d: 1e3, e: -2.5E-1}", {"a": 0.5, "b": 5.0, "c": 1, "d": 1000.0, "e": -0.25}),
        ("'line \\\ncontinued'", "line continued"),
        ("'\\x41\\u00e9\\0'", "Aé\0"),
        ("'\\q'", "q"),
        ("\ufeff{a: 1}", {"a": 1}),
        ("{\u00e9t\u00e9: 1}", {"été": 1}),
        ("{\\u0061b: 1}", {"ab": 1}),
        ("{a: 1, a: 2}", {"a": 2}),
        ("'a\u2028b'", "a\u2028b"),
    ],
)
def test_accepts_json5(text: str, expected: Any) -> None:
    assert loads(text) == expected


def test_special_numbers() -> None:
    data = loads("[Infinity, -Infinity, NaN, +NaN]")
    assert data[0] == math.inf and data[1] == -math.inf
    assert math.isnan(data[2]) and math.isnan(data[3])


@pytest.mark.parametrize(
    ("text", "message", "line", "column"),
    [
        ("{", "invalid end of input", 1, 2),
        ("", "invalid end of input", 1, 1),
        ("{a: 1 b: 2}", "invalid character 'b' (missing comma before it?)", 1, 7),
        ('{a: 1\n  "b": 2}', "invalid character '\"' (missing comma before it?)", 2, 3),
        ("{a: 1 'b': 2}", 'invalid character "\'" (missing comma before it?)', 1, 7),
        ("{a: {} b: 1}", "invalid character 'b' (missing comma before it?)", 1, 8),
        ("[1 2]", "invalid character '2' (missing comma before it?)", 1, 4),
        ("[{} {}]", "invalid character '{' (missing comma before it?)", 1, 5),
        ("{a: 1 @}", "invalid character '@'", 1, 7),
        ("{a: \\}", "invalid character '\\'", 1, 5),
        ("{\n  a: 1,\n  b: [1, 2\n}", "invalid character '}'", 4, 1),
        ("[1,]x", "invalid character 'x'", 1, 5),
        ('{"a\n": 1}', "invalid character '\n' (unterminated string starting at 1:2)", 1, 4),
        ('{a: "abc\n, b: 1}', "invalid character '\n' (unterminated string starting at 1:5)", 1, 9),
        ("{a: 'abc", "invalid end of input (unterminated string starting at 1:5)", 1, 9),
        (
            "{a: 'it's', b: 1}",
            "invalid character 's' (a ' inside a '-quoted string ends it: put a backslash before it, or "
            'quote the string with ")',
            1,
            9,
        ),
        (
            '["say "hi""]',
            "invalid character 'h' (a \" inside a \"-quoted string ends it: put a backslash before it, or "
            "quote the string with ')",
            1,
            8,
        ),
        ("/* never closed", "invalid end of input", 1, 16),
        ("01", "invalid character '1'", 1, 2),
        ("{a: tru}", "invalid character '}'", 1, 8),
        ("{a: 'x\\1'}", "invalid character '1'", 1, 8),
        ("{a: '\\xZZ'}", "invalid character 'Z'", 1, 8),
        ("{1a: 2}", "invalid character '1'", 1, 2),
        ("{a 1}", "invalid character '1'", 1, 4),
        ("[1 / 2]", "invalid character ' '", 1, 5),
        ("{a: 1,,}", "invalid character ','", 1, 7),
        ("\r\n\r\n  @", "invalid character '@'", 3, 3),
    ],
)
def test_errors_carry_line_and_column(text: str, message: str, line: int, column: int) -> None:
    """The character is quoted as it is: a backslash or line break is escaped once, by the view (the
    npm package's own `'\\\\'` shows doubled through memwarm's escaping); after a complete value, a key
    or an item means a missing comma."""
    with pytest.raises(Json5Error) as info:
        loads(text)
    assert (info.value.message, info.value.line, info.value.column) == (message, line, column)


def test_positions_of_keys_and_items() -> None:
    text = '{\n  // c\n  agents: {\n    list: [\n      {id: "a"},\n      {id: "b"},\n    ],\n  },\n}\n'
    data, pos = parse_json5(text, "f.json5", track=True)
    assert data == {"agents": {"list": [{"id": "a"}, {"id": "b"}]}}
    assert pos is not None
    agents = pos.child("agents")
    assert agents is not None and (agents.loc.line, agents.loc.column) == (3, 3)
    lst = agents.child("list")
    assert lst is not None and (lst.loc.line, lst.loc.column) == (4, 5)
    second = lst.child(1)
    assert second is not None and (second.loc.line, second.loc.column) == (6, 7)
    second_id = second.child("id")
    assert second_id is not None and second_id.loc.file == "f.json5"
    assert (second_id.loc.line, second_id.loc.column) == (6, 8)


def test_deep_nesting_is_a_recursion_error_not_a_crash() -> None:
    with pytest.raises(RecursionError):
        loads("[" * 100_000)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=30,
)


@settings(max_examples=300)
@given(json_values)
def test_reads_all_json(value: Any) -> None:
    text = json.dumps(value)
    # As JS reads JSON: every number is a double.
    expected = json.loads(text, parse_int=lambda digits: js_int(int(digits)))
    assert loads(text) == expected
    assert loads(json.dumps(value, indent=2)) == expected


@settings(max_examples=300)
@given(st.text())
def test_never_fails_other_than_json5error(text: str) -> None:
    with contextlib.suppress(Json5Error, RecursionError):
        loads(text)


def _keys_point_at_themselves(text: str, value: Any, node: Any) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            child = node.child(key)
            assert text.startswith(json.dumps(key), offset_of(text, child.loc.line, child.loc.column))
            _keys_point_at_themselves(text, item, child)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            child = node.child(i)
            assert text.startswith(json.dumps(item)[:1], offset_of(text, child.loc.line, child.loc.column))
            _keys_point_at_themselves(text, item, child)


@settings(max_examples=200)
@given(json_values, st.sampled_from([None, 2]))
def test_positions_point_at_keys_and_items(value: Any, indent: int | None) -> None:
    text = json.dumps(value, indent=indent)
    data, node = parse_json5(text, "f", track=True)
    _keys_point_at_themselves(text, data, node)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (str(2**53), 2**53),
        (str(-(2**53)), -(2**53)),
        (str(2**53 + 1), float(2**53)),  # JS rounds to the nearest double
        (str(2**60 + 1), float(2**60)),
        ("1" + "0" * 400, math.inf),
        ("-1" + "0" * 400, -math.inf),
        ("1" + "0" * 5000, math.inf),  # int() would refuse more than 4300 digits
        ("0x" + "f" * 300, math.inf),
        ("0x20000000000001", float(2**53)),
        ("-0x" + "f" * 300, -math.inf),
    ],
)
def test_integers_read_as_js_doubles(text: str, expected: float) -> None:
    value = loads(text)
    assert value == expected
    assert type(value) is type(expected)


def test_whitespace_is_json5s() -> None:
    """JSON5 WhiteSpace (TAB, VT, FF, SP, NBSP, BOM and every Zs) and LineTerminator (LF, CR, LS, PS)."""
    import sys
    import unicodedata

    space_separators = {chr(c) for c in range(sys.maxunicode + 1) if unicodedata.category(chr(c)) == "Zs"}
    json5_ws = {"\t", "\v", "\f", " ", "\u00a0", "\ufeff", "\n", "\r", "\u2028", "\u2029"} | space_separators
    for ch in sorted(json5_ws):
        assert loads(f"{ch}[{ch}1{ch},{ch}]{ch}") == [1], repr(ch)
    for ch in ("\x1c", "\x85", "\u180e", "\u200b"):
        with pytest.raises(Json5Error):
            loads(f"{ch}1")


def test_the_key_start_pattern_matches_what_its_slow_spelling_matched() -> None:
    """_KEY_START is spelled to compile in microseconds (json5reader.py says why): the same characters."""
    import re

    from memwarm_cli.config.json5reader import _KEY_START

    slow = re.compile(r"""["']|[$_\\]|[^\W\d]""")
    every = "".join(map(chr, range(0x3000))) + "".join(map(chr, range(0xD7FF, 0x10000, 7)))
    fast = re.compile(_KEY_START)  # a source, compiled where the reader first needs it
    assert [bool(fast.match(ch)) for ch in every] == [bool(slow.match(ch)) for ch in every]


@settings(max_examples=300)
@given(st.text(alphabet=st.sampled_from("\t\n\v\f\r \x1c\x1f/*ab1{}[],:\"'\\"), max_size=40))
def test_an_ascii_text_is_skipped_as_the_full_whitespace_and_comment_pattern_skips_it(text: str) -> None:
    """The reader skips an ASCII text with the pattern without non-ASCII sets (json5reader.py says why):
    from every position it ends where the full one ends."""
    from memwarm_cli.config.json5reader import _SKIP_ASCII, _unicode_skip

    full = _unicode_skip()
    for pos in range(len(text) + 1):
        assert _SKIP_ASCII.match(text, pos).end() == full.match(text, pos).end()  # type: ignore[union-attr]
