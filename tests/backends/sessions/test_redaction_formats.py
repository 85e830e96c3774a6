"""33 common secret formats (and a few extras) through the session export's redaction: byte for byte
what the released 2026.6.35 `redactSensitiveText(text, {mode: "tools"})` made of each.

`redaction_formats.json` holds each input and the release's own output (computed once by running the
release's function on Node 22; its "source" says how). Where the release leaves a format in clear,
memwarm does too (parity), says so in README and `config check` (session_config.CLEAR_TEXT_NOTICE), and
the test below keeps that list honest.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.backends.sessions.redaction.form_body import mask_cp_token, mask_token
from memwarm_cli.backends.sessions.redaction.redact import redact_sensitive_text
from memwarm_cli.backends.sessions.session_config import CLEAR_TEXT_NOTICE, CLEAR_TEXT_SECRET_FORMATS
from memwarm_cli.jsstring import to_utf16_units

FORMATS: list[dict[str, Any]] = json.loads(
    (Path(__file__).with_name("redaction_formats.json")).read_text(encoding="utf-8")
)["formats"]


@pytest.mark.parametrize("row", FORMATS, ids=[row["id"] for row in FORMATS])
def test_each_format_is_redacted_as_the_release_redacts_it(row: dict[str, Any]) -> None:
    assert redact_sensitive_text(row["input"]) == row["release"]


def test_the_formats_the_release_leaves_in_clear_are_the_ones_memwarm_warns_about() -> None:
    in_clear = {row["id"] for row in FORMATS if row["inClear"]}
    # x5 is not a secret format: `KEY=` with a Kelvin sign and `ſk-` with a long s are no key words.
    assert in_clear == {"24", "26", "27b", "32", "x5"}
    numbers = {row["id"].rstrip("abc") for row in FORMATS if not row["id"].startswith("x")}
    assert numbers == {str(n) for n in range(1, 34)}  # the 33 formats, some in two or three forms
    assert len(CLEAR_TEXT_SECRET_FORMATS) == 24  # clear_secrets.py: 23 counted, the bare UUID listed only
    for word in ("Twilio", "Mailgun", "Heroku", "AccountKey"):
        assert word in CLEAR_TEXT_NOTICE


def test_mask_counts_utf16_units_and_may_split_a_pair() -> None:
    assert mask_token("a" * 17) == "***"
    assert mask_cp_token("😀" * 9) == "😀😀😀…😀😀"  # 18 UTF-16 units, though only 9 characters
    assert mask_cp_token("a" + "😀" * 9) == "a😀😀\ud83d…😀😀"  # the 6th unit is half an emoji
    assert mask_token(to_utf16_units("a" + "😀" * 9)) == to_utf16_units("a😀😀") + "\ud83d…" + to_utf16_units(
        "😀😀"
    )


def test_a_pem_block_spanning_lines_keeps_its_first_and_last_line() -> None:
    block = "-----BEGIN RSA PRIVATE KEY-----\nAAA\n\nBBB\n-----END RSA PRIVATE KEY-----"
    # Exported text is single-line (so always `***`), but the rule for multi-line input is upstream's.
    assert redact_sensitive_text(block) == (
        "-----BEGIN RSA PRIVATE KEY-----\n…redacted…\n-----END RSA PRIVATE KEY-----"
    )
