"""The release's 95 default redaction patterns (openclaw@2026.6.35 `src/logging/redact.ts`), in order.

The sources are built from the same named pieces as the release builds them, so each one reads as its JS
source does; `PATTERNS` holds them compiled for Python's `re` (`jsstring.js_regex`: JS `\\s`, `.`, `$`,
ASCII `\\b`/`\\d`/`\\w` and ASCII-only case folding, which is what a non-`u` JS regex does with these
ASCII patterns). They run on UTF-16 unit strings (`jsstring.to_utf16_units`), as a non-`u` JS regex sees
its input, so `{0,40}` and every offset count code units.

Flags: a source written `/…/flags` gets those flags plus `g` (the two environment-assignment patterns are
`g` only, so case-sensitive; the query-string one is `gi`); every other source is `gi`. `shell` marks the
four patterns whose `$KEY`/`${KEY}` values are kept and whose mask is `maskToken`; `whole_text` marks the
chunk-unsafe ones, which always run over the whole text (the others run per 16384-unit slice of a text
longer than 32768 units, redact.py).

Python's `re` cannot compile the variable-length lookbehind `(?<!;base64,[A-Za-z0-9+/=]*)` of seven
patterns: it is cut from the source here (`base64_guard`) and emulated by `scanners.py`.
"""

from __future__ import annotations

import re

from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_regex

PAYMENT_CREDENTIAL_ENV_KEYS = (
    r"CARD[_-]?NUMBER|CARD[_-]?CVC|CARD[_-]?CVV|CVC|CVV|SECURITY[_-]?CODE|PAYMENT[_-]?CREDENTIAL"
    r"|SHARED[_-]?PAYMENT[_-]?TOKEN"
)
PAYMENT_CREDENTIAL_QUERY_KEYS = (
    r"card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code|payment[-_]?credential"
    r"|shared[-_]?payment[-_]?token"
)
AUTH_QUERY_KEYS = (
    r"access[-_]?token|auth[-_]?token|hook[-_]?token|refresh[-_]?token|id[-_]?token|api[-_]?key|apikey"
    r"|client[-_]?secret|app[-_]?secret|private[-_]?key|credential|authorization|token|key|secret|password"
    r"|pass|passwd|auth|jwt|session|code|signature|x[-_]?amz[-_]?(?:signature|security[-_]?token)"
)
FORM_BODY_FIRST_PAIR_KEYS = rf"{AUTH_QUERY_KEYS}|app[-_]?secret|credential|{PAYMENT_CREDENTIAL_QUERY_KEYS}"
STANDALONE_ASSIGNMENT_SECRET_KEYS = (
    r"access_token|refresh_token|id_token|auth[-_]?token|hook[-_]?token|api[-_]?key|client[-_]?secret"
    r"|app[-_]?secret|private[-_]?key|authorization|jwt|token|secret|password|pass|passwd|credential|"
    + PAYMENT_CREDENTIAL_QUERY_KEYS
)
PAYMENT_CREDENTIAL_JSON_KEYS = (
    r"cardNumber|card_number|cardCvc|card_cvc|cardCvv|card_cvv|cvc|cvv|securityCode|security_code"
    r"|paymentCredential|payment_credential|sharedPaymentToken|shared_payment_token"
)
ENV_ASSIGNMENT = (
    rf"/\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|{PAYMENT_CREDENTIAL_ENV_KEYS})\b"
    r"""\s*[=:]\s*(["']?)([^\s"'\\]+)\1/g"""
)
ESCAPED_ENV_ASSIGNMENT = (
    rf"/\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|{PAYMENT_CREDENTIAL_ENV_KEYS})\b"
    r"""\s*[=:]\s*\\+(["'])([^\s"'\\]+)\\+\1/g"""
)
STANDALONE_ASSIGNMENT_QUOTED = (
    rf"(^|[\s,;])(?:{STANDALONE_ASSIGNMENT_SECRET_KEYS})=" r"""(["'\x60])((?:(?!\2)[^\r\n])+)\2"""
)
STANDALONE_ASSIGNMENT = (
    rf"(^|[\s,;])(?:{STANDALONE_ASSIGNMENT_SECRET_KEYS})=" r"""(["'\x60]?[^\s&#"'\x60<>]+)"""
)
BASE64_SAFE_TOKEN_BOUNDARY = r"(^|[^A-Za-z0-9])(?<!;base64,[A-Za-z0-9+/=]*)"
IDENTIFIER_SAFE_TOKEN_BOUNDARY = r"(^|[^A-Za-z0-9_])"
TELEGRAM_BOT_TOKEN = r"\bbot(\d{6,}:[A-Za-z0-9_-]{20,})\b"
TELEGRAM_TOKEN = r"\b(\d{6,}:[A-Za-z0-9_-]{20,})\b"
SHELL_REFERENCE_PRESERVING = frozenset(
    {ENV_ASSIGNMENT, ESCAPED_ENV_ASSIGNMENT, STANDALONE_ASSIGNMENT_QUOTED, STANDALONE_ASSIGNMENT}
)
CHUNK_UNSAFE = frozenset({TELEGRAM_BOT_TOKEN, TELEGRAM_TOKEN})
B64 = BASE64_SAFE_TOKEN_BOUNDARY
IDENT = IDENTIFIER_SAFE_TOKEN_BOUNDARY

DEFAULT_REDACT_PATTERNS: tuple[str, ...] = (
    ENV_ASSIGNMENT,
    ESCAPED_ENV_ASSIGNMENT,
    rf"/[?&](?:{AUTH_QUERY_KEYS}|{PAYMENT_CREDENTIAL_QUERY_KEYS})=([^&#\s<>]+)/gi",
    r'"(?:apiKey|api_key|token|secret|password|passwd|credential|authorization|accessToken|access_token'
    r"|refreshToken|refresh_token|idToken|id_token|authToken|auth_token|clientSecret|client_secret"
    rf"|privateKey|private_key|secret_value|raw_secret|secret_input|key_material|{PAYMENT_CREDENTIAL_JSON_KEYS})"
    r'"\s*:\s*"([^"]+)"',
    r"""(^|[\s,{])["']?(?:api[-_]key|access[-_]token|refresh[-_]token|id[-_]token|authToken|auth[-_]token"""
    r"|clientSecret|client[-_]secret|appSecret|app[-_]secret|private[-_]key|credential|authorization"
    r"""|secret[-_]value|raw[-_]secret|secret[-_]input|key[-_]material)["']?\s*[:=]\s*(["'])([^"'\r\n]+)\2""",
    r"""(^|[\s,{])["']?(?:authorization|proxy-authorization|cookie|set-cookie|x-api-key|x-auth-token)["']?"""
    r"""\s*[:=]\s*(["'])([^"'\r\n]+)\2""",
    r"--(?:api[-_]?key|hook[-_]?token|access[-_]?token|refresh[-_]?token|id[-_]?token|token|secret|password"
    rf"|passwd|credential|private[-_]?key|client[-_]?secret|{PAYMENT_CREDENTIAL_QUERY_KEYS})"
    r"""\s+(?!(?:or|and)\b(?=\s+--))(["']?)([^\s"']+)\1""",
    r"Authorization\s*[:=]\s*Bearer\s+([A-Za-z0-9._\-+=]+)",
    r"Authorization\s*[:=]\s*Basic\s+([A-Za-z0-9+/=]+)",
    r"Authorization\s*[:=]\s*Bot\s+([A-Za-z0-9._\-+=]{18,})",
    r"""(?:X-OpenClaw-Token|x-pomerium-jwt-assertion|X-Api-Key|X-Auth-Token)\s*[:=]\s*([^\s"',;]+)""",
    r"\bBearer\s+([A-Za-z0-9._\-+=]{18,})\b",
    r"\b(?:https?|wss?|ftp):\/\/[^\/\s:@]*:([^\/\s@]+)@",
    r"\b(?:postgres(?:ql)?|mysql|mongodb(?:\+srv)?|rediss?|amqps?):\/\/[^:\s/@]*:([^@\s]+)@",
    rf"(^|[\s,;])(?:{FORM_BODY_FIRST_PAIR_KEYS})=([^&\s]+)(?=&[A-Za-z_][A-Za-z0-9_.-]*=)",
    STANDALONE_ASSIGNMENT_QUOTED,
    STANDALONE_ASSIGNMENT,
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----",
    r"\b(sk-[A-Za-z0-9_-]{8,})\b",
    r"(ghp_[A-Za-z0-9]{10,})",
    r"(github_pat_[A-Za-z0-9_]{10,})",
    r"(gho_[A-Za-z0-9]{10,})",
    r"(ghu_[A-Za-z0-9]{10,})",
    r"(ghs_[A-Za-z0-9]{10,})",
    r"(ghr_[A-Za-z0-9]{10,})",
    r"(glpat-[A-Za-z0-9._=\-]{20,})",
    r"(gloas-[A-Fa-f0-9]{32,})",
    r"(xox[baprs]-[A-Za-z0-9-]{10,})",
    r"(xapp-[A-Za-z0-9-]{10,})",
    r"(https:\/\/hooks\.slack\.com\/(?:services\/T[A-Z0-9]+\/B[A-Z0-9]+|workflows\/T[A-Z0-9]+\/A[A-Z0-9]+"
    r"\/[0-9]{17,19})\/[A-Za-z0-9]{20,})",
    r"(https:\/\/discord(?:app)?\.com\/api\/webhooks\/[0-9]{17,20}\/[A-Za-z0-9_-]{60,})",
    r"discord(?:.|\n|\r){0,40}?\b([A-Za-z0-9_-]{24}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27})\b",
    r"(gsk_[A-Za-z0-9_-]{10,})",
    r"(AIza[0-9A-Za-z\-_]{20,})",
    r"(ya29\.[0-9A-Za-z_\-./+=]{10,})",
    r"(1//0[0-9A-Za-z_\-./+=]{10,})",
    r"(eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})",
    r"(pplx-[A-Za-z0-9_-]{10,})",
    r"(fal_[A-Za-z0-9_-]{10,})",
    r"(fc-[A-Za-z0-9]{10,})",
    r"(bb_live_[A-Za-z0-9_-]{10,})",
    rf"{B64}(gAAAA[A-Za-z0-9_=-]{{20,}})",
    r"(sk_live_[A-Za-z0-9]{10,})",
    r"(sk_test_[A-Za-z0-9]{10,})",
    r"(rk_live_[A-Za-z0-9]{10,})",
    r"(SG\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,})",
    r"(npm_[A-Za-z0-9]{10,})",
    r"(pypi-[A-Za-z0-9_-]{10,})",
    r"(dop_v1_[A-Za-z0-9]{10,})",
    r"(doo_v1_[A-Za-z0-9]{10,})",
    r"(dor_v1_[A-Za-z0-9]{10,})",
    r"(dp\.(?:ct|pt|sa|scim|audit)\.[A-Za-z0-9]{40,44})",
    r"(dp\.st\.[A-Za-z0-9]{40,44})",
    r"(dp\.st\.[a-z0-9_-]{2,35}\.[A-Za-z0-9]{40,44})",
    r"(dckr_(?:pat|oat)_[A-Za-z0-9_-]{27,32})",
    r"(bkua_[a-z0-9]{40})",
    r"(CCIPAT_[A-Za-z0-9]{22}_[A-Fa-f0-9]{40})",
    r"(sbp_[a-z0-9]{40})",
    rf"{B64}(dapi[0-9a-f]{{32}}(?:-\d)?)",
    r"(dd[pw]_[A-Za-z0-9]{36})",
    r"(glsa_[A-Za-z0-9_]{41})",
    r"(glc_eyJ[A-Za-z0-9+/=]{60,160})",
    r"(nfp_[A-Za-z0-9_]{36})",
    r"(CFPAT-[A-Za-z0-9_\-]{40,})",
    rf"{B64}(ATCTT3xFfG[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{{8}})",
    rf"{B64}(ATATT[A-Za-z0-9+/=_-]+=[A-Za-z0-9]{{8}})",
    rf"{B64}(ATBB[A-Za-z0-9_=.-]{{16,}})",
    r"(BBDC-[A-Za-z0-9+/@_-]{40,50})",
    r"(HRKU-AA[A-Za-z0-9_-]{20,})",
    r"(pat-(?:eu|na)1-[A-Za-z0-9]{8}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{4}\-[A-Za-z0-9]{12})",
    r"(apify_api_[A-Za-z0-9\-]{20,})",
    r"(FlyV1 fm\d+_[A-Za-z0-9+/=,_-]{100,})",
    r"(fio-u-[A-Za-z0-9_-]{40,})",
    r"(^|[^A-Za-z0-9_])(am_[A-Za-z0-9_-]{10,})",
    r"(^|[^A-Za-z0-9_])(sk_[A-Za-z0-9_]{10,})",
    r"(tvly-[A-Za-z0-9]{10,})",
    r"(exa_[A-Za-z0-9]{10,})",
    r"(syt_[A-Za-z0-9]{10,})",
    r"(retaindb_[A-Za-z0-9]{10,})",
    r"(hsk-[A-Za-z0-9]{10,})",
    r"(mem0_[A-Za-z0-9]{10,})",
    r"(brv_[A-Za-z0-9]{10,})",
    r"(xai-[A-Za-z0-9]{30,})",
    rf"{IDENT}(fw-[A-Za-z0-9]{{30,}})",
    rf"{IDENT}(fw_[A-Za-z0-9]{{30,}})",
    rf"{IDENT}(fpk_[A-Za-z0-9]{{30,}})",
    rf"{B64}(AKIA[A-Z0-9]{{16}})",
    rf"{B64}(ASIA[A-Z0-9]{{16}})",
    r"(AKID[A-Za-z0-9]{10,})",
    r"(LTAI[A-Za-z0-9]{10,})",
    r"(hf_[A-Za-z0-9]{10,})",
    r"(api_org_[A-Za-z0-9]{20,})",
    r"(r8_[A-Za-z0-9]{10,})",
    TELEGRAM_BOT_TOKEN,
    TELEGRAM_TOKEN,
)

_SLASHED = re.compile(r"^/(.+)/([gimsuy]*)$", re.DOTALL)
_LOOKBEHIND = "(?<!;base64,[A-Za-z0-9+/=]*)"


@record
class RedactPattern:
    number: int  # 1-based position in the release's list
    source: str  # the JS source, as the release lists it
    regex: re.Pattern[str]  # compiled for Python (without the base64 lookbehind)
    shell: bool  # shell-reference preserving: `maskToken`, `$KEY` values kept
    whole_text: bool  # chunk-unsafe: never run per slice
    base64_guard: bool  # the source's `(?<!;base64,[A-Za-z0-9+/=]*)` is emulated, not compiled


def _compile(number: int, raw: str) -> RedactPattern:
    """`parsePattern` for one default source."""
    slashed = _SLASHED.match(raw)
    source, flags = (slashed.group(1), slashed.group(2)) if slashed else (raw.strip(), "gi")
    base64_guard = _LOOKBEHIND in source
    regex = js_regex(source.replace(_LOOKBEHIND, ""), ignore_case="i" in flags)
    return RedactPattern(
        number=number,
        source=source,
        regex=regex,
        shell=raw in SHELL_REFERENCE_PRESERVING,
        whole_text=raw.startswith((B64, IDENT)) or raw in CHUNK_UNSAFE,
        base64_guard=base64_guard,
    )


PATTERNS: tuple[RedactPattern, ...] = tuple(
    _compile(number, raw) for number, raw in enumerate(DEFAULT_REDACT_PATTERNS, start=1)
)
