"""The redaction is linear-time on hostile input, and its linear parts give what the release's regexes give.

Two kinds of test:
- differential: each linear scanner or rewritten regex against the release's regex itself, run by
  Python's `re` on many small random inputs built from the pattern's own pieces (small, so the regex's
  quadratic behaviour does not matter);
- a bound: megabytes of the inputs that made the former redaction quadratic (PEM headers: 100 KB took
  34 s, 1 MB about 170 s) and of every other shape the release's regexes backtrack on must be redacted
  within a CPU-time limit sixty times what they need (a bound on the work, not a timing: the measured
  figures are in bench/bench_redaction.py).
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
import textwrap
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from memwarm_cli.backends.sessions.redaction import form_body as form
from memwarm_cli.backends.sessions.redaction.redact import _NEEDLES
from memwarm_cli.backends.sessions.redaction.release_patterns import PATTERNS
from memwarm_cli.backends.sessions.redaction.scanners import SCANNERS, regex_matches
from memwarm_cli.backends.sessions.redaction.unicode_classes import INVISIBLE_PLUS, class_body
from memwarm_cli.jsstring import JS_WHITESPACE, JS_WHITESPACE_CLASS_BODY, js_unicode_regex
from tests.conftest import REPO_ROOT

BY_NUMBER = {pattern.number: pattern for pattern in PATTERNS}
ROUNDS = 3000

PIECES = {
    14: [
        "postgres://",
        "postgresql://",
        "mysql://",
        "mongodb+srv://",
        "rediss://",
        "amqp://",
        "a",
        ":",
        "@",
        " ",
    ],
    15: [",", ";", " ", "code=", "key=", "token=", "x", "&", "&a=", "&_", "=", "&1=", "pass", "KEY=", "\t"],
    18: [
        "-----BEGIN ",
        "-----END ",
        "PRIVATE KEY-----",
        "private key-----",
        "RSA ",
        " ",
        "-",
        "x",
        "\n",
        "END",
    ],
    37: ["eyJ", "EYJ", "a", "aaaaaaaaaa", ".", "-", "_", " ", "0123456789"],
    42: [";base64,", ";BASE64,", "gAAAA", "=", "+", "/", "-", "_", "a", "A" * 10, "A" * 20, " "],
    59: [";base64,", "dapi", "0123456789abcdef" * 2, "-1", "=", "/", "a", " "],
    65: [";base64,", "ATCTT3xFfG", "atctt3xffg", "=", "abcdefgh", "+", "-", "_", "/", "A", " ", "1"],
    66: [";base64,", "ATATT", "=", "abcdefgh", "ABCDEFGH", "+", "-", "_", "/", "a", " ", "1234567"],
    67: [";base64,", "ATBB", "a" * 16, "=", ".", "-", "_", "+", " "],
    87: [";base64,", "AKIA", "ABCDEFGHIJKLMNOP", "=", "+", "/", "a", " ", "0"],
    88: [";base64,", "ASIA", "ABCDEFGHIJKLMNOP", "=", "+", "/", "a", " "],
}


def _strings(pieces: list[str], seed: int, rounds: int = ROUNDS, longest: int = 16) -> list[str]:
    rng = random.Random(seed)
    return ["".join(rng.choice(pieces) for _ in range(rng.randint(0, longest))) for _ in range(rounds)]


def test_every_scanner_is_tested() -> None:
    assert set(SCANNERS) == set(PIECES)


@pytest.mark.parametrize("number", sorted(PIECES))
def test_a_scanner_finds_exactly_the_regexs_matches(number: int) -> None:
    pattern, scanner = BY_NUMBER[number], SCANNERS[number]
    for text in _strings(PIECES[number], seed=number):
        assert list(scanner(pattern, text)) == list(regex_matches(pattern, text)), ascii(text)


# The release's form-body regexes as it writes them (no possessive quantifier), with the `\p{C}` class.
_INV = class_body(INVISIBLE_PLUS)
_KEY = rf"[{_INV}]*(?:[A-Za-z_]|%[0-9A-Fa-f]{{2}})(?:[A-Za-z0-9_.-]|%[0-9A-Fa-f]{{2}}|[{_INV}])*"
_VALUE = rf"[^&{JS_WHITESPACE_CLASS_BODY}<>]*"
_PAIR = f"{_KEY}={_VALUE}"
# JS `$` (no `m` flag) is the end of input: Python's `$` also matches before a final "\n", `\Z` does not.
RELEASE_FORM_BODY = re.compile(f"^{_PAIR}(?:&{_PAIR})+\\Z")
RELEASE_SUBSTRING = re.compile(f"(^|[{JS_WHITESPACE_CLASS_BODY}:({{\\[,=\"'`])({_PAIR}(?:&{_PAIR})+)")
RELEASE_ENCODED_PAIR = re.compile(f"(^|[{JS_WHITESPACE_CLASS_BODY}:({{\\[,=\"'`&])({_KEY})=({_VALUE})")
RELEASE_URL_PAIR = re.compile(f"([?&])({_KEY})=([^&#{JS_WHITESPACE_CLASS_BODY}<>]*)")
RELEASE_CONTEXT_PAIR = js_unicode_regex(
    r"(\b(?:body|form(?:[-_\s]?body)?)\s*[:=]\s*([\"'\x60]?))" + f"({_KEY})=({_VALUE})" + r"([\"'\x60]?)",
    ignore_case=True,
)
RELEASE_PREFILTER = js_unicode_regex(
    "(?:"
    + "|".join(
        (
            *form._PREFILTER_SOURCES,
            r"%[0-9A-Fa-f]{2}[A-Za-z0-9_%.-]*=",
            rf"(?:\+|[{_INV}])(?:[{_INV}+]*[A-Za-z0-9_%.-])+[{_INV}+]*=",
        )
    )
    + ")",
    ignore_case=True,
)
FORM_PIECES = [
    *["a", "b=", "=", "&", "%41", "%zz", "%4", "+", "\u200b", "\x00", " ", "<", ":", "(", ",", '"', "`"],
    *["password=", "token=", "pa%73s=", "body:", "form=", "form body=", "?", "ſ", "K", "x=1", "&y=2", "."],
    *["\t", "\n", "\u00a0", "\u3000", "\ufeff", "\u2028"],  # whitespace that is also a key character
]


def test_the_form_body_substring_scanner_matches_the_releases_regex() -> None:
    def replace(match: str, prefix: str, body: str) -> str:
        return f"<{prefix}|{body}>"

    for text in _strings(FORM_PIECES, seed=1):
        expected = RELEASE_SUBSTRING.sub(lambda m: replace(m.group(0), m.group(1), m.group(2)), text)
        assert form.form_body_substring_sub(text, replace) == expected, ascii(text)


def test_the_possessive_form_body_regexes_match_as_the_releases_do() -> None:
    pairs: list[tuple[Callable[[str], Any], Callable[[str], Any]]] = [
        (form._FORM_BODY.fullmatch, RELEASE_FORM_BODY.search),
        (form._ENCODED_FORM_PAIR.findall, RELEASE_ENCODED_PAIR.findall),
        (form._URL_QUERY_PAIR.findall, RELEASE_URL_PAIR.findall),
        (form._CONTEXT_SINGLE_PAIR.findall, RELEASE_CONTEXT_PAIR.findall),
    ]
    for text in _strings(FORM_PIECES, seed=2):
        for ours, release in pairs:
            got, expected = ours(text), release(text)
            if isinstance(expected, list):
                assert got == expected, ascii(text)
            else:
                assert (got is None) == (expected is None), ascii(text)


def test_a_form_body_ends_at_the_texts_end_not_before_a_final_line_break() -> None:
    """JS `$` as the release's `^…$` has it; the transcription above once used Python's, which also
    matches before a final "\n" (`'x=1&y=2\n'` then counted as a whole form body)."""
    for text in ("x=1&y=2\n", "token=pa%73s=&y=2\n"):
        assert form._FORM_BODY.fullmatch(text) is None and RELEASE_FORM_BODY.search(text) is None
    assert form._FORM_BODY.fullmatch("x=1&y=2") and RELEASE_FORM_BODY.search("x=1&y=2")


PREFILTER_PIECES = [
    *FORM_PIECES,
    *["KEY", "ſk_", "K", "sk_", "bot1234567:", "1234567:", "a" * 20, "://u:p@", "eyJ", "%73", "%7", "%"],
    *JS_WHITESPACE,  # all of JS `\s`, each also a key character or not (U+2028/9 and the space are not)
    *["pass", "s", "k", "\u0085", "\u180e", "\U000e0001", "\U0001f600", "\ud800", "\u115f", "ß"],
]


def test_the_prefilter_says_what_the_releases_regex_says() -> None:
    for text in _strings(PREFILTER_PIECES, seed=3, rounds=ROUNDS * 2):
        assert form.could_match_default_patterns(text) == bool(RELEASE_PREFILTER.search(text)), ascii(text)


@settings(max_examples=500)
@given(st.lists(st.sampled_from(PREFILTER_PIECES), max_size=12).map("".join))
@example("pa%73s=\u3000,")  # the shape once reported as failing: both say it matches
@example("pa%7s=\u3000,")
@example("%73\u3000=")  # whitespace ends a percent key's run: no match
@example("\u3000a=")  # U+3000 is an invisible key character (`\p{C}` class plus U+3000): a match
@example("\u2028a=")  # U+2028 is JS whitespace but no key character: no match
@example("\ufeff%zz=")
@example("\u017fpass=")  # ſ is a word character under `iu`: no `\b` before `pass=`
def test_the_prefilter_says_what_the_releases_regex_says_on_any_mix(text: str) -> None:
    assert form.could_match_default_patterns(text) == bool(RELEASE_PREFILTER.search(text))


# Answers of the released regex itself (openclaw@2026.6.35 on Node 22), so that the transcription above
# is not the only judge: a JS whitespace character next to a percent-encoded or an obfuscated key.
RELEASE_ANSWERS = {
    **{"pa%73s=\u3000,": True, "pa%7s=\u3000,": False, "\u3000pa%73s": False, "\u3000=": False},
    **{"a\u3000=": False, "\u3000\u2028a=": False, "\u2029\u3000a=": True, "+a=": True, "+\u3000=": False},
    **{"a+=": False, "\u00a0+=": False, "\ufeff%zz=": True, "\u017fpass=": False, "\u3000pass=": True},
    **{f"pa%73s={w}": True for w in JS_WHITESPACE},
    **{f"%73{w}=": False for w in JS_WHITESPACE},
    **{f"{w}a=": w not in " \u2028\u2029" for w in JS_WHITESPACE},
    **{f"a{w}b=": w not in " \u2028\u2029" for w in JS_WHITESPACE},
}


@pytest.mark.parametrize(("text", "matches"), RELEASE_ANSWERS.items(), ids=ascii)
def test_the_prefilter_answers_as_the_release_did(text: str, matches: bool) -> None:
    assert form.could_match_default_patterns(text) is matches
    assert bool(RELEASE_PREFILTER.search(text)) is matches


def _corpus() -> list[str]:
    """Texts with secrets in them: the format table, the golden cases' messages, the transcript cases,
    each also in upper and lower case and glued to neighbours."""
    import json
    from pathlib import Path

    from tests.parity.sessions_case import _input_message_texts, load_session_cases

    here = Path(__file__).parent
    texts = [row["input"] for row in json.loads((here / "redaction_formats.json").read_text())["formats"]]
    for case in load_session_cases():
        texts.extend(_input_message_texts(case))
    for case in json.loads((here / "transcript_cases.json").read_text())["cases"].values():
        texts.extend(case["lines"])
    tokens = [
        *["sk-", "ghp_", "github_pat_", "gho_", "ghu_", "ghs_", "ghr_", "glpat-", "gloas-", "xoxb-", "xapp-"],
        *[
            "gsk_",
            "AIza",
            "ya29.",
            "1//0",
            "pplx-",
            "fal_",
            "fc-",
            "bb_live_",
            "gAAAA",
            "sk_live_",
            "sk_test_",
        ],
        *["rk_live_", "npm_", "pypi-", "dop_v1_", "doo_v1_", "dor_v1_", "dckr_pat_", "bkua_", "sbp_", "ddp_"],
        *["glsa_", "glc_eyJ", "nfp_", "CFPAT-", "ATBB", "BBDC-", "HRKU-AA", "apify_api_", "fio-u-", "am_"],
        *["sk_", "tvly-", "exa_", "syt_", "retaindb_", "hsk-", "mem0_", "brv_", "xai-", "fw-", "fw_", "fpk_"],
        *["AKIA", "ASIA", "AKID", "LTAI", "hf_", "api_org_", "r8_", "dapi", "dp.ct.", "dp.st.", "SG."],
    ]
    body = "abcdef0123456789" * 8
    texts += [f"{token}{body}" for token in tokens] + [f"x {token}{body[:44]}.{body}" for token in tokens]
    variants = [*texts, *(t.upper() for t in texts), *(t.lower() for t in texts)]
    return [*variants, *(f"x{t}y" for t in variants), *(f"-{t}," for t in variants)]


def test_a_pattern_is_skipped_only_when_it_cannot_match() -> None:
    """Every match holds one of the pattern's needles (lower case for `i`), so skipping is safe."""
    corpus = _corpus()
    seen = set()
    for pattern in PATTERNS:
        fold, needles = _NEEDLES[pattern.number]
        for text in corpus:
            if pattern.regex.search(text):
                seen.add(pattern.number)
                haystack = text.lower() if fold else text
                assert not needles or any(n in haystack for n in needles), (pattern.number, ascii(text))
    assert len(seen) >= 80, sorted(set(range(1, 96)) - seen)  # the check is not vacuous


HOSTILE = {
    "PEM headers": "-----BEGIN RSA PRIVATE KEY----- ",
    "PEM headers without a space": "-----BEGIN PRIVATE KEY-----x",
    "base64 run after ;base64,": ";base64,=gAAAA" + "QUJDREVG+/" * 5 + "=ATATT",
    "form body value run": "=a",
    "form body pairs": "body: password=x&user=y&",
    "first pair keys": ",code=",
    "database URLs": "postgres://a:",
    "JWT starts": "eyJ",
    "Atlassian starts": "-ATATT",
    "Atlassian base64": "ATATT=",
    "percent keys": "%41",
    "obfuscated keys": "+a",
    "env assignments": 'API_KEY="',
    "quoted assignments": ",token='",
}


@pytest.mark.long
def test_megabytes_of_hostile_input_are_redacted_within_a_cpu_bound() -> None:
    script = textwrap.dedent(
        f"""
        import resource
        resource.setrlimit(resource.RLIMIT_CPU, (90, 90))
        from memwarm_cli.backends.sessions.redaction.redact import redact_sensitive_text
        for unit in {list(HOSTILE.values())!r}:
            text = "token " + (unit * (1_000_000 // len(unit) + 1))[:1_000_000] + "&"
            redact_sensitive_text(text)
        print("done")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.strip() == "done", done.stderr[-2000:]
