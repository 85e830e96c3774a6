"""Secret redaction of exported session text: the release's `redactSensitiveText(text, {mode: "tools"})`.

openclaw@2026.6.35 `src/logging/redact.ts`, which the session exporter calls on every message text (so
`logging.redactSensitive` and `logging.redactPatterns` never apply to it). In order:

1. the prefilter: a text no default pattern could match is returned as it is (form_body.py);
2. the form-body pre-pass: URL query pairs, then form bodies (form_body.py);
3. the 95 default patterns (release_patterns.py), each over the previous one's output, each match
   replaced by `redactMatch`: a match holding `PRIVATE KEY-----` becomes `***` (one line) or its first
   and last line; otherwise the last non-empty capture is the secret, kept when it is `***` already
   (an earlier mask) or a shell reference to its own key (`API_KEY=$API_KEY`, the four shell patterns),
   else masked where it stands (`maskToken` for the shell patterns, `maskSecretValue` otherwise; no `$`
   templates, and at the capture's own position, not its first occurrence);
4. a text longer than 32768 UTF-16 units is cut into 16384-unit slices for each pattern that is not
   chunk-unsafe (recomputed per pattern on its input; a slice may split a surrogate pair, and a secret
   across a slice boundary is missed or partly masked, as in the release).

Steps 3-4 work on UTF-16 unit strings (`jsstring.to_utf16_units`), as the release's non-`u` regexes see
the text. Linear time on any input: scanners.py replaces the patterns Python's `re` would take
quadratic time on (and emulates the base64 lookbehind); each pattern is skipped at C speed when a
literal every match must contain is absent (`_needles`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from memwarm_cli.backends.sessions.redaction.form_body import (
    MASK,
    could_match_default_patterns,
    mask_secret_value,
    mask_token,
    redact_form_body,
    redact_url_query_pairs,
    split_secret_value,
)
from memwarm_cli.backends.sessions.redaction.regex_literals import required_literals
from memwarm_cli.backends.sessions.redaction.release_patterns import PATTERNS, RedactPattern
from memwarm_cli.backends.sessions.redaction.scanners import SCANNERS, Match, regex_matches
from memwarm_cli.jsstring import from_utf16_units, js_regex, to_utf16_units

__all__ = ["MASK", "mask_token", "redact_sensitive_text", "redact_units"]

REDACT_REGEX_CHUNK_THRESHOLD = 32768
REDACT_REGEX_CHUNK_SIZE = 16384
_PEM_MARKER = "PRIVATE KEY-----"
_PEM_LINE_BREAK = re.compile(r"\r?\n")
_SHELL_KEY = re.compile(r"[A-Z_][A-Z0-9_]*")
_SHELL_BARE = re.compile(r"\$([A-Z_][A-Z0-9_]*)")
_SHELL_BRACED = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)(?::[-=?+])?\}")
_ENV_ASSIGNMENT_KEY = js_regex(r"\b([A-Z_][A-Z0-9_]*)\b\s*[=:]")
_EMPTY_EXPANSION_TAIL = re.compile(r"[-=?+]\}")


def _redact_pem_block(block: str) -> str:
    lines = [line for line in _PEM_LINE_BREAK.split(block) if line]
    if len(lines) < 2:
        return MASK
    return f"{lines[0]}\n…redacted…\n{lines[-1]}"


def _is_shell_reference_to_key(key: str, value: str) -> bool:
    if not _SHELL_KEY.fullmatch(key):
        return False
    bare = _SHELL_BARE.fullmatch(value)
    if bare:
        return bare.group(1) == key
    braced = _SHELL_BRACED.fullmatch(value)
    return braced is not None and braced.group(1) == key


def _preserves_shell_reference(whole: str, token: str) -> bool:
    key = _ENV_ASSIGNMENT_KEY.search(whole)
    return key is not None and bool(key.group(1)) and _is_shell_reference_to_key(key.group(1), token)


def _redacted(
    pattern: RedactPattern, whole: str, groups: tuple[str | None, ...], start_of: Callable[[int], int]
) -> str:
    """`redactMatch` for one match (unit strings); `start_of(k)` is group k's offset in `whole`."""
    if _PEM_MARKER in whole:
        return _redact_pem_block(whole)
    selected = -1
    for index, value in enumerate(groups):
        if value:
            selected = index
    token = groups[selected] if selected >= 0 else whole
    assert token is not None
    if split_secret_value(token)[0] == MASK:
        return whole
    if pattern.shell and (_preserves_shell_reference(whole, token) or _EMPTY_EXPANSION_TAIL.fullmatch(token)):
        return whole
    masked = mask_token(token) if pattern.shell else mask_secret_value(token, hinted=True, mask=mask_token)
    if token == whole:
        return masked
    start = start_of(selected + 1)
    return f"{whole[:start]}{masked}{whole[start + len(token) :]}"


def redact_match(pattern: RedactPattern, match: Match) -> str:
    """`redactMatch` for a scanner's match."""
    return _redacted(pattern, match.whole, match.groups, lambda k: match.group_starts[k - 1])


def _replace(pattern: RedactPattern, units: str) -> str:
    """`units.replace(pattern, replacer)` (global)."""
    scanner = SCANNERS.get(pattern.number)
    if scanner is None and not pattern.base64_guard:

        def replace(m: re.Match[str]) -> str:
            offset = m.start()
            return _redacted(pattern, m.group(), m.groups(), lambda k: m.start(k) - offset)

        return pattern.regex.sub(replace, units)
    matches = scanner(pattern, units) if scanner is not None else regex_matches(pattern, units)
    out: list[str] = []
    last = 0
    for match in matches:
        out.append(units[last : match.start])
        out.append(redact_match(pattern, match))
        last = match.end
    if not out:
        return units
    out.append(units[last:])
    return "".join(out)


def _apply(pattern: RedactPattern, units: str, check: Callable[[], None] | None = None) -> str:
    """The pattern over the text, in the release's chunks; `check` is called before each chunk (one
    pattern over a 15 MiB message took seconds: a signal or --timeout must not wait for it)."""
    if pattern.whole_text or len(units) <= REDACT_REGEX_CHUNK_THRESHOLD:
        return _replace(pattern, units)
    pieces = []
    for index in range(0, len(units), REDACT_REGEX_CHUNK_SIZE):
        if check is not None:
            check()
        pieces.append(_replace(pattern, units[index : index + REDACT_REGEX_CHUNK_SIZE]))
    return "".join(pieces)


# --------------------------------------------------------------------------------------------------------
# Skipping a pattern whose required literal is absent


def _needles(pattern: RedactPattern) -> tuple[bool, frozenset[str]]:
    """(fold, required strings): the pattern can only match a text that contains one of them (in lower
    case when `fold`). Empty: always run it."""
    return bool(pattern.regex.flags & re.IGNORECASE), required_literals(pattern.regex) or frozenset()


_NEEDLES: dict[int, tuple[bool, frozenset[str]]] = {p.number: _needles(p) for p in PATTERNS}


_CHECK_EVERY_PATTERN_FROM = 1 << 16  # units: a shorter text is redacted in well under a millisecond


def redact_units(units: str, check: Callable[[], None] | None = None) -> str:
    """The redaction of a UTF-16 unit string (see the module docstring), as a unit string. `check`
    (e.g. a CancelToken's) is called between patterns of a long text and may raise to stop it."""
    if not units:
        return units
    text = from_utf16_units(units)
    if not could_match_default_patterns(text):
        return units
    prepassed = redact_form_body(redact_url_query_pairs(text))
    if prepassed != text:
        units = to_utf16_units(prepassed)
    lowered: str | None = None
    long_text = check is not None and len(units) >= _CHECK_EVERY_PATTERN_FROM
    for pattern in PATTERNS:
        if long_text:
            assert check is not None
            check()
        fold, needles = _NEEDLES[pattern.number]
        if needles:
            if fold and lowered is None:
                lowered = units.lower()
            haystack = lowered if fold else units
            assert haystack is not None
            if not any(needle in haystack for needle in needles):
                continue
        redacted = _apply(pattern, units, check if long_text else None)
        if redacted != units:
            units, lowered = redacted, None
    return units


def redact_sensitive_text(text: str, redact: Callable[[str], str] = redact_units) -> str:
    """`redactSensitiveText(text, {mode: "tools"})` on a Python string (code points; a lone surrogate
    stays one): the result as a Python string, with surrogate pairs the masking split left lone."""
    if not text:
        return text
    return from_utf16_units(redact(to_utf16_units(text)))
