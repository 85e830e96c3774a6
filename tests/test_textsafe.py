"""The escapers for outside text: one line (logs, findings) and file names (scan's cells)."""

from __future__ import annotations

from memwarm_cli.textsafe import escape_name, one_line


def test_one_line() -> None:
    assert one_line("a\nb\x85c\u2028d\x1ce\tf\x7f") == "a\\x0ab\\x85c\\u2028d\\x1ce\tf\\x7f"


def test_escape_name() -> None:
    assert escape_name("a\tb\\c\u202ed\udc80e\x1bf\u00e9") == "a\\tb\\\\c\\u202ed\\x80e\\x1bf\u00e9"
