"""The one escaping policy for outside text: what it escapes, how, and that it can be read back."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import unicodedata

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from memwarm_cli.textsafe import (
    escape_text,
    escape_unsafe,
    has_unsafe,
    json_safe,
    json_string,
    shell_quote,
    visible_text,
)
from tests.terminal_safety import HOSTILE, UNSAFE_CATEGORIES, assert_one_safe_line

_ESCAPE = re.compile(r"\\(\\|t|n|r|x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})")


def unescape(text: str) -> str:
    """The policy read back: `\\xNN` is a byte (below 0x80 the character, above an undecodable byte)."""

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code in ("\\", "t", "n", "r"):
            return {"\\": "\\", "t": "\t", "n": "\n", "r": "\r"}[code]
        value = int(code[1:], 16)
        if code[0] == "x":
            return chr(value) if value < 0x80 else chr(0xDC00 + value)
        return chr(value)

    return _ESCAPE.sub(one, text)


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("a\\b", "a\\\\b"),
        ("\t\n\r", "\\t\\n\\r"),
        ("\x1b[31m\x07\x08\x00\x7f", "\\x1b[31m\\x07\\x08\\x00\\x7f"),  # ESC, BEL, backspace, NUL, DEL
        ("\x85\x9b\x80", "\\u0085\\u009b\\u0080"),  # C1 controls are characters: \u
        ("caf\udce9", "caf\\xe9"),  # an undecodable byte (surrogateescape) is a byte: \x
        ("\ud83d", "\\ud83d"),  # half a surrogate pair
        ("\u202e\u202a\u2066\u2069\u200e\u200f\u061c", "\\u202e\\u202a\\u2066\\u2069\\u200e\\u200f\\u061c"),
        ("\u200b\u200c\u200d\u2060\u2064\ufeff\xad", "\\u200b\\u200c\\u200d\\u2060\\u2064\\ufeff\\u00ad"),
        ("\u2028\u2029", "\\u2028\\u2029"),
        ("\U000e0041\U000e007f", "\\U000e0041\\U000e007f"),  # tag characters (invisible text)
        ("é 日本 😀 \u00a0 ok", "é 日本 😀 \u00a0 ok"),  # printable text stays, wide or not
    ],
)
def test_escape_text(raw: str, shown: str) -> None:
    assert escape_text(raw) == shown
    assert unescape(shown) == raw


def test_every_control_format_and_separator_character_is_escaped() -> None:
    """Checked against this Python's Unicode database, so a newer Unicode cannot slip by unnoticed."""
    missed = [
        f"U+{code:04X}"
        for code in range(0x110000)
        if unicodedata.category(chr(code)) in UNSAFE_CATEGORIES and not has_unsafe(chr(code))
    ]
    assert missed == []
    breaks = [chr(c) for c in range(0x110000) if len(("a" + chr(c) + "b").splitlines()) > 1]
    assert all(has_unsafe(ch) for ch in breaks), breaks  # every line break str.splitlines() knows


def test_hostile_text_becomes_one_safe_line() -> None:
    assert_one_safe_line(escape_text(HOSTILE))
    assert_one_safe_line(escape_unsafe(HOSTILE))


@given(st.text())
def test_escape_text_reads_back(text: str) -> None:
    escaped = escape_text(text)
    assert_one_safe_line(escaped)
    assert unescape(escaped) == text


@given(st.text())
def test_escape_unsafe_is_the_policy_without_doubled_backslashes(text: str) -> None:
    assume("\ue000" not in text)  # a private-use character stands in for the backslashes
    assert escape_unsafe(text) == escape_text(text.replace("\\", "\ue000")).replace("\ue000", "\\")
    assert escape_unsafe(escape_text(text)) == escape_text(text)  # a guard changes nothing escaped


def test_escape_unsafe_keeps_tsv_tabs() -> None:
    assert escape_unsafe("a\tb\x1b\\", keep_tabs=True) == "a\tb\\x1b\\"
    assert escape_unsafe("é\tb\u202e", keep_tabs=True) == "é\tb\\u202e"
    assert escape_unsafe("a\tb") == "a\\tb"


@given(st.text())
def test_json_string_is_json_dumps_with_the_unsafe_characters_escaped(text: str) -> None:
    encoded = json_string(text)
    assert json.loads(encoded) == text
    assert not has_unsafe(encoded)
    assert json_safe(json.dumps(text, ensure_ascii=False)) == encoded


def test_json_safe_writes_astral_characters_as_a_surrogate_pair() -> None:
    assert json_safe('"\U000e0041\u202e\x7f"') == '"\\udb40\\udc41\\u202e\\u007f"'
    assert json.loads(json_safe('"\U000e0041"')) == "\U000e0041"


WORDS = ["plain", "it's", "a b", "\x1b[31m\\n'\"$HOME`x`", "caf\udce9", "\x85\u202e\u2028\U000e0041", ""]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
@pytest.mark.parametrize("word", WORDS)
def test_shell_quote_is_read_back_by_bash(word: str) -> None:
    quoted = shell_quote(word)
    assert_one_safe_line(quoted)
    env = {**os.environ, "LC_ALL": "C.UTF-8"}
    out = subprocess.run(
        ["bash", "-c", f"printf %s {quoted}"], capture_output=True, env=env, check=True
    ).stdout
    assert out == os.fsencode(word)  # an undecodable byte comes back as that byte


def test_visible_text_shows_what_a_terminal_acts_on_and_keeps_the_layout() -> None:
    note = "a\tb\r\nc\rd \x1b]52;c;aGk=\x07 \x1b[2J \u009b \u202e \u200b x\\y\n"
    assert visible_text(note) == "a\tb\r\nc\\rd \\x1b]52;c;aGk=\\x07 \\x1b[2J \\u009b \\u202e \\u200b x\\y\n"
    assert visible_text("plain text\n\twith tabs\n") == "plain text\n\twith tabs\n"


@given(st.text())
def test_visible_text_leaves_only_tabs_line_feeds_and_crlf(text: str) -> None:
    shown = visible_text(text)
    left = [ch for ch in shown.replace("\r\n", "\n") if unicodedata.category(ch) in UNSAFE_CATEGORIES]
    assert set(left) <= {"\t", "\n"}
    assert shown.count("\n") == text.count("\n")  # the lines stay the lines


def test_clip_keeps_short_text_and_cuts_long_text_with_an_ellipsis() -> None:
    from memwarm_cli.textsafe import ELLIPSIS, OUTSIDE_TEXT_CHARS, clip

    assert clip("2026.9.6") == "2026.9.6"
    exact = "a" * OUTSIDE_TEXT_CHARS
    assert clip(exact) == exact
    cut = clip("b" * 900_000)
    assert cut == "b" * (OUTSIDE_TEXT_CHARS - 1) + ELLIPSIS and len(cut) == OUTSIDE_TEXT_CHARS
    assert clip("abcdef", 4) == "abc" + ELLIPSIS
    # Never half of a surrogate pair (lone surrogates: a JSON file's "\ud83d\ude00" kept apart).
    assert ascii(clip("ab\ud83d\ude00x", 4)) == ascii("ab" + ELLIPSIS)
