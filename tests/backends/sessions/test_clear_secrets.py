"""The secret formats the release's redaction leaves in clear, recognised and counted (issue 31, class 5):
the export keeps the release's bytes, and the user learns of every format memwarm can recognise that
reaches the index in clear (docs, `config check`, init-backends' report)."""

from __future__ import annotations

import pytest

from memwarm_cli.backends.sessions.redaction.clear_secrets import (
    CLEAR_FORMATS,
    UNCOUNTED_FORMATS,
    ClearSecretCounter,
    labelled,
)
from memwarm_cli.backends.sessions.redaction.redact import redact_sensitive_text
from memwarm_cli.backends.sessions.session_config import CLEAR_TEXT_NOTICE
from tests.conftest import REPO_ROOT


def _counts(text: str) -> dict[int, int]:
    counter = ClearSecretCounter()
    counter.scan(text)
    return counter.counts


@pytest.mark.parametrize("index", range(len(CLEAR_FORMATS)), ids=[f.label[:30] for f in CLEAR_FORMATS])
def test_each_sample_stays_in_clear_and_is_counted_as_its_format(index: int) -> None:
    fmt = CLEAR_FORMATS[index]
    # memwarm's redaction is the release's (tests/interop/test_redaction_release.py holds the samples to
    # openclaw@2026.6.35's own): the sample reaches the export as it is.
    assert redact_sensitive_text(fmt.sample) == fmt.sample
    assert _counts(fmt.sample).get(index) == 1


@pytest.mark.parametrize(
    "text",
    [
        "API_KEY=abcdefghijklmnopqrstuvwxyz",  # the release masks these: nothing in clear is left
        "password=abc",
        "TOKEN: abcdefghijklmnopqrstuvwxyz",
        "ghp_1234567890abcdefghijklmnopqrstuvwxyzAB",
        "apiKey: ${OPENAI_KEY}",  # a reference, no value
        "the primary key is id; my password is long; token count: 1234",
    ],
)
def test_what_the_release_masks_or_what_is_no_secret_is_not_counted(text: str) -> None:
    assert _counts(redact_sensitive_text(text)) == {}


def test_the_counts_are_per_format_and_per_occurrence() -> None:
    line = "whsec_abcdefghijklmnopqrstuvwxyz012345 and whsec_0123456789abcdefghij, pwd=Hunter2SecretValue"
    counts = _counts(line)
    assert labelled(counts) == {CLEAR_FORMATS[12].label: 2, CLEAR_FORMATS[0].label: 1}


def test_every_format_is_in_the_docs_and_in_config_checks_notice() -> None:
    docs = (REPO_ROOT / "docs" / "init-backends.md").read_text(encoding="utf-8")
    for label in (*(fmt.label for fmt in CLEAR_FORMATS), *UNCOUNTED_FORMATS):
        assert label in CLEAR_TEXT_NOTICE
        assert label.split(" (")[0] in docs, label
    assert len(CLEAR_FORMATS) == 23
