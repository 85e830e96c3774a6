"""The release's redaction prefilter and its form-body pre-pass (`redact.ts`): the `u`-flag regexes.

These run on code-point strings (Python `str`, a lone surrogate being one code point), as a `u` regex
reads its input; the masks they make count UTF-16 units (`jsstring.js_length`/`js_slice`).

`\\p{C}` is Node 22's (unicode_classes.py). `\\s` is JS whitespace. The two `i`+`u` regexes (the
prefilter and FORM_BODY_CONTEXT_SINGLE_PAIR_RE) fold case as `u` does: `ſ` (U+017F) is an `s` and `K`
(U+212A) a `k`, also for `\\b` and `\\w`, and no other non-ASCII character folds to an ASCII one
(`jsstring.js_unicode_regex`).

Linear time (Python's backtracking engine, like V8's, is quadratic on some of these): the quantifiers
that can never give back a character and still match are possessive here (a form-body key is always
followed by `=`, which it cannot contain; a value always ends where the next `&`, whitespace, `<` or `>`
is), FORM_BODY_SUBSTRING_RE is a scanner over precomputed stops with each pair's end memoized, and the
prefilter's two form-key alternatives (whose nested repetition is quadratic) are tests over maximal runs.
tests/backends/sessions/test_redaction_linear.py checks all of these against the plain regexes.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable

from memwarm_cli.backends.sessions.redaction.regex_literals import required_literals
from memwarm_cli.backends.sessions.redaction.unicode_classes import INVISIBLE_PLUS, SEPARATOR, char_class
from memwarm_cli.jsstring import (
    JS_WHITESPACE_CLASS_BODY,
    js_decode_uri_component,
    js_length,
    js_slice,
    js_unicode_regex,
)

INV = char_class(INVISIBLE_PLUS)  # `[${FORM_BODY_KEY_INVISIBLE_CHARS}+]`: one code point
WS = JS_WHITESPACE_CLASS_BODY

# --------------------------------------------------------------------------------------------------------
# Masking (the parts the form-body pass shares with the patterns; here on code-point strings)

DEFAULT_REDACT_MIN_LENGTH = 18
DEFAULT_REDACT_KEEP_START = 6
MASK = "***"
_QUOTES = frozenset("\"'`")
_TRAILING_DELIMITER = re.compile(r"([\"'`,;)}\]]+)\Z")
_SUFFIX_ONLY = re.compile(r"[\"'`,;)}\]]*")


def mask_token(token: str) -> str:
    """`maskToken` on a UTF-16 unit string: `***` below 18 units, else 6 units + `…` + the last 4 (a
    surrogate pair may be split)."""
    if token == MASK:
        return token
    if len(token) < DEFAULT_REDACT_MIN_LENGTH:
        return MASK
    return f"{token[:DEFAULT_REDACT_KEEP_START]}…{token[-4:]}"


def mask_cp_token(token: str) -> str:
    """`maskToken` on a code-point string: lengths and slices in UTF-16 units."""
    if token == MASK:
        return token
    length = js_length(token)
    if length < DEFAULT_REDACT_MIN_LENGTH:
        return MASK
    return f"{js_slice(token, 0, DEFAULT_REDACT_KEEP_START)}…{js_slice(token, length - 4)}"


def split_secret_value(token: str) -> tuple[str, str]:
    """`splitSecretValueForMask`: (maskable, suffix). Index arithmetic is within one string and every
    delimiter is ASCII, so it is the same on a code-point or a unit string."""
    opening = token[:1]
    if opening in _QUOTES and opening:
        closing = token.rfind(opening)
        if closing > 0:
            suffix = token[closing + 1 :]
            if _SUFFIX_ONLY.fullmatch(suffix):
                return token[1:closing], suffix
        rest = token[1:]
        found = _TRAILING_DELIMITER.search(rest)
        delimiter = found.group(1) if found else ""
        if delimiter and len(delimiter) < len(rest):
            return rest[: -len(delimiter)], delimiter
        return rest, ""
    found = _TRAILING_DELIMITER.search(token)
    delimiter = found.group(1) if found else ""
    maskable = token[: -len(delimiter)] if delimiter and len(delimiter) < len(token) else token
    return maskable, "" if maskable == token else delimiter


def mask_secret_value(token: str, *, hinted: bool, mask: Callable[[str], str] = mask_cp_token) -> str:
    """`maskSecretValue`: the value's quotes are dropped, trailing delimiters kept."""
    maskable, suffix = split_secret_value(token)
    return f"{mask(maskable) if hinted else MASK}{suffix}"


# --------------------------------------------------------------------------------------------------------
# Keys

_KEY_SEPARATOR = re.compile(f"{char_class(SEPARATOR)}+")
_INVISIBLE = re.compile(INV)
_PERCENT_ESCAPE = re.compile("%[0-9A-Fa-f]{2}")
BODY_SECRET_KEYS = frozenset(
    {
        *("access_token", "auth_token", "hook_token", "refresh_token", "id_token", "token", "api_key"),
        *("apikey", "client_secret", "app_secret", "password", "pass", "passwd", "auth", "jwt", "session"),
        *("code", "signature", "x_amz_signature", "x_amz_security_token", "secret", "credential"),
        *("private_key", "authorization", "key", "card_number", "card_cvc", "card_cvv", "cvc", "cvv"),
        *("security_code", "payment_credential", "shared_payment_token"),
    }
)


# The ASCII members of the two classes, for the common all-ASCII key: C0 controls, `+`, DEL (and the
# separator class has the space too).
_ASCII_INVISIBLE = dict.fromkeys([*range(0x20), ord("+"), 0x7F])
_ASCII_SEPARATOR = {**_ASCII_INVISIBLE, ord(" "): None}


def _without_separators(key: str) -> str:
    return key.translate(_ASCII_SEPARATOR) if key.isascii() else _KEY_SEPARATOR.sub("", key)


def normalize_sensitive_key_name(key: str) -> str:
    """`normalizeSensitiveKeyName`: separators out, percent-decoded (if it decodes), lower case, `-` as
    `_`."""
    stripped = _without_separators(key)
    try:
        decoded = _without_separators(js_decode_uri_component(stripped))
    except ValueError:
        decoded = stripped
    return decoded.lower().replace("-", "_")


def is_sensitive_body_key(key: str) -> bool:
    return normalize_sensitive_key_name(key) in BODY_SECRET_KEYS


def _has_invisible(text: str) -> bool:
    if text.isascii():
        return len(text.translate(_ASCII_INVISIBLE)) != len(text)
    return _INVISIBLE.search(text) is not None


def has_encoded_or_invisible_key(key: str) -> bool:
    return ("%" in key and _PERCENT_ESCAPE.search(key) is not None) or _has_invisible(key)


# --------------------------------------------------------------------------------------------------------
# The regexes (possessive where giving back can never lead to a match, see the module docstring). A
# repeated group is made atomic, `(?>(?:…)*)`, never `(?:…)*+`: CPython before 3.11.5 (Debian 12 has
# 3.11.2) ignores a lookahead inside a possessive group, and INV holds one (tests/test_regex_forms.py).

FORM_BODY_KEY = rf"(?>{INV}*)(?:[A-Za-z_]|%[0-9A-Fa-f]{{2}})(?>(?:[A-Za-z0-9_.-]|%[0-9A-Fa-f]{{2}}|{INV})*)"
FORM_BODY_VALUE = rf"[^&{WS}<>]*+"
URL_QUERY_VALUE = rf"[^&#{WS}<>]*+"
FORM_BODY_PAIR = f"{FORM_BODY_KEY}={FORM_BODY_VALUE}"
_FORM_BODY = re.compile(f"{FORM_BODY_PAIR}(?>(?:&{FORM_BODY_PAIR})+)")  # fullmatch: `^…$`
_KEY_EQUALS = re.compile(f"{FORM_BODY_KEY}=")
_PAIR_STOP = re.compile(f"[&{WS}<>]")
_SUBSTRING_PREFIX = re.compile(f"[{WS}:({{\\[,=\"'`]")
_ENCODED_FORM_PAIR = re.compile(f"(^|[{WS}:({{\\[,=\"'`&])({FORM_BODY_KEY})=({FORM_BODY_VALUE})")
_URL_QUERY_PAIR = re.compile(f"([?&])({FORM_BODY_KEY})=({URL_QUERY_VALUE})")
_CONTEXT_SINGLE_PAIR = js_unicode_regex(
    r"(\b(?:body|form(?:[-_\s]?body)?)\s*[:=]\s*([\"'\x60]?))"
    + f"({FORM_BODY_KEY})=({FORM_BODY_VALUE})"
    + r"([\"'\x60]?)",
    ignore_case=True,
)
_LINE_BREAK = re.compile(r"(\r\n|\r|\n)")
_LINE_BREAK_SEGMENT = re.compile(r"\r\n|\r|\n")


def redact_form_encoded_pairs(value: str) -> str:
    """`redactFormEncodedPairs(value)`: every `key=value` of a sensitive key gets `***` (+ its suffix)."""
    pairs = value.split("&")
    for index, pair in enumerate(pairs):
        equals = pair.find("=")
        if equals >= 0 and is_sensitive_body_key(pair[:equals]):
            pairs[index] = f"{pair[:equals]}={mask_secret_value(pair[equals + 1 :], hinted=False)}"
    return "&".join(pairs)


def redact_url_query_pairs(text: str) -> str:
    """`redactUrlQueryPairs`: `?key=value`/`&key=value` with an encoded or invisible sensitive key."""
    if not text or "?" not in text:
        return text

    def replace(match: re.Match[str]) -> str:
        prefix, key, token = match.group(1), match.group(2), match.group(3)
        if not has_encoded_or_invisible_key(key) or not is_sensitive_body_key(key):
            return match.group(0)
        return f"{prefix}{key}={mask_secret_value(token, hinted=True)}"

    return _URL_QUERY_PAIR.sub(replace, text)


def _redact_encoded_form_pairs(text: str) -> str:
    if not text or ("%" not in text and not _has_invisible(text)):
        return text

    def replace(match: re.Match[str]) -> str:
        prefix, key, token = match.group(1), match.group(2), match.group(3)
        if not has_encoded_or_invisible_key(key) or not is_sensitive_body_key(key):
            return match.group(0)
        return f"{prefix}{key}={mask_secret_value(token, hinted=False)}"

    return _ENCODED_FORM_PAIR.sub(replace, text)


def _redact_context_single_pairs(text: str) -> str:
    if not text or ("=" not in text and ":" not in text):
        return text

    def replace(match: re.Match[str]) -> str:
        prefix, key, token, suffix = match.group(1), match.group(3), match.group(4), match.group(5)
        if not is_sensitive_body_key(key):
            return match.group(0)
        return f"{prefix}{key}={mask_secret_value(token, hinted=False)}{suffix}"

    return _CONTEXT_SINGLE_PAIR.sub(replace, text)


def form_body_substring_sub(text: str, replace: Callable[[str, str, str], str]) -> str:
    """`text.replace(FORM_BODY_SUBSTRING_RE, (match, prefix, body) => …)`, in linear time.

    FORM_BODY_SUBSTRING_RE = `(^|[\\s:({\\[,="'\\`])(PAIR(?:&PAIR)+)`. A pair is deterministic: its key
    ends at the first `=` (keys hold no `=`), its value at the next stop (`&`, whitespace, `<`, `>`). So
    the body at `q` is the chain of pairs from `q`, as long as each is followed by `&` and another pair,
    with at least two pairs. When the first pair ends at stop `s` and the chain fails there, every later
    start before `s` lies in that pair's key or value: its first pair ends at `s` too (or fails), and its
    chain fails the same way, so the scan goes on at `s`. Unless the stop is itself a key character (an
    invisible whitespace such as a tab or U+00A0, which exported text never holds): a key may run through
    it, and then every start is tried.
    """
    stops = [m.start() for m in _PAIR_STOP.finditer(text)]
    n = len(text)

    def pair_end(j: int) -> int:
        key = _KEY_EQUALS.match(text, j)
        if key is None:
            return -1
        k = bisect_left(stops, key.end())
        return stops[k] if k < len(stops) else n

    def body_end(q: int) -> tuple[int, int]:
        """(the body's end or -1, where a failed one lets the scan go on: its first pair's end, or -1)."""
        first = end = pair_end(q)
        if end < 0:
            return -1, -1
        if end < n and _INVISIBLE.match(text, end):
            first = -1  # a key can run through this stop
        pairs = 1
        while end < n and text[end] == "&":
            following = pair_end(end + 1)
            if following < 0:
                break
            end, pairs = following, pairs + 1
        return (end if pairs > 1 else -1), first

    out: list[str] = []
    last = skip = 0
    for p in sorted({0, *(m.start() for m in _SUBSTRING_PREFIX.finditer(text))}):
        if p < last or p < skip:
            continue
        found: tuple[int, str, int, int] | None = None  # (match start, prefix, body start, end)
        if p == 0:
            end, first = body_end(0)
            skip = max(skip, first)
            if end >= 0:
                found = (0, "", 0, end)
        if found is None and _SUBSTRING_PREFIX.match(text, p):
            end, first = body_end(p + 1)
            skip = max(skip, first)  # the starts before `first` fail the same way (docstring)
            if end >= 0:
                found = (p, text[p], p + 1, end)
        if found is None:
            continue
        start, prefix, body_start, end = found
        out.append(text[last:start])
        out.append(replace(text[start:end], prefix, text[body_start:end]))
        last = end
    out.append(text[last:])
    return "".join(out)


def _redact_form_body_line(text: str) -> str:
    if not text:
        return text
    context_redacted = _redact_context_single_pairs(_redact_encoded_form_pairs(text))
    if "&" not in context_redacted:
        return context_redacted
    if _FORM_BODY.fullmatch(context_redacted):
        return redact_form_encoded_pairs(context_redacted)

    def replace(match: str, prefix: str, body: str) -> str:
        redacted = redact_form_encoded_pairs(body)
        return match if redacted == body else f"{prefix}{redacted}"

    substituted = form_body_substring_sub(context_redacted, replace)
    return _redact_context_single_pairs(_redact_encoded_form_pairs(substituted))


def redact_form_body(text: str) -> str:
    """`redactFormBody`: each line (line breaks kept) through the form-body rules."""
    if not text:
        return text
    if _LINE_BREAK.search(text) is None:
        return _redact_form_body_line(text)
    return "".join(
        segment if _LINE_BREAK_SEGMENT.fullmatch(segment) else _redact_form_body_line(segment)
        for segment in _LINE_BREAK.split(text)
    )


# --------------------------------------------------------------------------------------------------------
# The prefilter (DEFAULT_REDACT_PREFILTER_RE, flags `iu`)

_PREFILTER_SOURCES = (
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|COOKIE|SIGNATURE|CREDENTIAL|CARD|CVC|CVV|PAYMENT|PRIVATE KEY",
    r"security[-_]?code|\bpass=|jwt=|session=|code=",
    r"\bBearer\s+",
    r":\/\/[^\/\s:@]*:[^\/\s@]+@",
    r"sk-|gh[opsur]_|github_pat_|glpat-|gloas-|xox[baprs]-|xapp-|hooks\.slack\.com|discord|gsk_|AIza"
    r"|ya29\.|1\/\/0|eyJ|pplx-|fal_|fc-|bb_live_|gAAAA|[sr]k_(?:live|test)_|\bSG\.|npm_|pypi-"
    r"|do[opr]_v1_|dp\.(?:ct|pt|sa|st|scim|audit)\.|dckr_|bkua_|CCIPAT_|sbp_|dapi[0-9a-f]|dd[pw]_"
    r"|glsa_|nfp_|CFPAT-|ATCTT3|ATATT|ATBB|BBDC-|HRKU-|pat-(?:eu|na)1-|apify_api_|FlyV1|fio-u-|tvly-"
    r"|exa_|syt_|retaindb_|mem0_|brv_|xai-|fw-|fw_|fpk_",
    r"(?:^|[^A-Za-z0-9_])(?:am_|sk_)",
    r"A[KS]IA[A-Z0-9]|AKID|LTAI|hf_|api_org_|r8_",
    r"\bbot\d{6,}:|\b\d{6,}:[A-Za-z0-9_-]{20,}",
)

# Each alternative alone (the regex matches iff one of them does), with the literals one of which each
# match of it holds (lower case, ſ and K folded to s and k, as its `iu` matches fold), to skip it fast.
_PREFILTER = tuple(
    (
        tuple((n, frozenset(n)) for n in sorted(required_literals(re.compile(source, re.I | re.A)) or ())),
        js_unicode_regex(source, ignore_case=True),
    )
    for source in _PREFILTER_SOURCES
)
# The last two alternatives, `%[0-9A-Fa-f]{2}[A-Za-z0-9_%.-]*=` and
# `(?:\+|[INV])(?:[INV+]*[A-Za-z0-9_%.-])+[INV+]*=` (`iu`: `[A-Za-z]` has ſ and K too), are nested
# repetitions Python (and V8) would take quadratic time on. Each holds iff some maximal run of their
# characters that ends at `=` contains a `%XX` (the first), or an invisible character (or `+`) directly
# followed by a key character (the second: a run with one before a key character has such a pair). Both
# are matched from the run's start with possessive (atomic) steps only.
_KEYISH = "A-Za-z0-9_%.\\-\u017f\u212a"
_KEYISH_NOT_PERCENT = "A-Za-z0-9_.\\-\u017f\u212a"
_PERCENT_KEY = re.compile(
    f"(?<![{_KEYISH}])(?>(?:[{_KEYISH_NOT_PERCENT}]|%(?![0-9A-Fa-f]{{2}}))*)%[0-9A-Fa-f]{{2}}[{_KEYISH}]*+="
)
_OBFUSCATED_KEY = re.compile(
    f"(?<![{_KEYISH}])(?<!{INV})[{_KEYISH}]*+(?>(?:{INV})+)[{_KEYISH}](?>(?:[{_KEYISH}]|{INV})*)="
)
_ASCII_FOLD = {0x17F: "s"}  # `.lower()` already maps K (U+212A) to k


def could_match_default_patterns(text: str) -> bool:
    """`couldMatchDefaultRedactPatterns`: False means no default pattern can match (the text is kept)."""
    folded = text.lower().translate(_ASCII_FOLD)
    present = set(folded)
    for needles, alternative in _PREFILTER:
        if needles and not any(chars <= present and needle in folded for needle, chars in needles):
            continue
        if alternative.search(text):
            return True
    if "=" not in text:
        return False
    if "%" in text and _PERCENT_KEY.search(text):
        return True
    return _has_invisible(text) and _OBFUSCATED_KEY.search(text) is not None
