"""memwarm's session-text redaction against the released one itself: openclaw@2026.6.35's
`redactSensitiveText(text, {mode: "tools"})` on Node 22, on thousands of random texts made of key, value,
percent-escape, invisible-character and JS-whitespace pieces (tests/backends/sessions compares the parts
with Python transcriptions of the release's regexes; this compares the whole with the release)."""

from __future__ import annotations

import json
import random
import re
import subprocess

import pytest

from memwarm_cli.backends.sessions.redaction.clear_secrets import CLEAR_FORMATS
from memwarm_cli.backends.sessions.redaction.redact import redact_sensitive_text
from tests.backends.sessions.test_redaction_linear import PREFILTER_PIECES, RELEASE_ANSWERS
from tests.conftest import TOOLS_BIN
from tests.interop.openclaw_run import OPENCLAW_PACKAGE, SYSTEM_PATH, require_openclaw

pytestmark = pytest.mark.interop

PIECES = [
    *PREFILTER_PIECES,
    *["pass=", "token=", "api_key=", "API_KEY=", "body=", "form_body:", "%70%61%73%73="],
    *["pa\u200bss=", "p+ass="],
    *["secretvalue123456789", "abcdefghijklmnopqrstuvwxyz", "$API_KEY", "sk-abcdefgh12345", "Bearer "],
    *["postgres://a:b@", "%2B", '"', "'", "é"],
]

# Reads a JSON array of texts on stdin, writes the array of their redactions.
_ORACLE = """
import { readFileSync } from "node:fs";
const [path, name] = process.argv.slice(1);
const redact = (await import(path))[name];
const texts = JSON.parse(readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(texts.map((text) => redact(text, { mode: "tools" }))));
"""


def _release_redact(texts: list[str]) -> list[str]:
    require_openclaw()
    exported = re.compile(r"\bredactSensitiveText as (\w+)\b")
    for module in sorted((OPENCLAW_PACKAGE / "dist").glob("redact-*.js")):
        found = exported.search(module.read_text(encoding="utf-8"))
        if found:
            break
    else:
        pytest.fail("no dist/redact-*.js of the release exports redactSensitiveText")
    done = subprocess.run(
        [str(TOOLS_BIN / "node"), "--input-type=module", "-e", _ORACLE, str(module), found.group(1)],
        input=json.dumps(texts),
        capture_output=True,
        text=True,
        env={"PATH": SYSTEM_PATH, "HOME": "/nonexistent"},  # no logging config of anyone's to read
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    redacted = json.loads(done.stdout)
    assert isinstance(redacted, list) and len(redacted) == len(texts)
    return redacted


def _without_surrogate_pairs(text: str) -> str:
    """Two pieces may put a high and a low surrogate side by side: one character to JS, two here."""
    kept: list[str] = []
    for ch in text:
        if kept and "\ud800" <= kept[-1] <= "\udbff" and "\udc00" <= ch <= "\udfff":
            continue
        kept.append(ch)
    return "".join(kept)


def test_the_redaction_of_random_texts_is_the_releases() -> None:
    rng = random.Random(20260635)
    texts = [
        _without_surrogate_pairs("".join(rng.choice(PIECES) for _ in range(rng.randint(0, 14))))
        for _ in range(6000)
    ]
    texts += list(RELEASE_ANSWERS)
    expected = _release_redact(texts)
    different = [(t, e) for t, e in zip(texts, expected, strict=True) if redact_sensitive_text(t) != e]
    assert not different, [(ascii(t), ascii(e), ascii(redact_sensitive_text(t))) for t, e in different[:5]]
    # Not vacuous: many of them are redacted, and many left as they are.
    changed = sum(t != e for t, e in zip(texts, expected, strict=True))
    assert len(texts) // 10 < changed < len(texts) * 9 // 10, changed


def test_the_formats_memwarm_reports_in_clear_are_left_in_clear_by_the_release() -> None:
    """clear_secrets.py's samples: openclaw@2026.6.35 itself leaves each as it is (issue 31, class 5)."""
    samples = [fmt.sample for fmt in CLEAR_FORMATS]
    assert _release_redact(samples) == samples
