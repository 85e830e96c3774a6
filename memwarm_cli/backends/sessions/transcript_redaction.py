"""Secret redaction of exported session text, as OpenClaw's `redactSensitiveText` (session-export.md §7).

The export always uses mode "tools" and the 17 built-in patterns: `logging.redactSensitive` and
`logging.redactPatterns` have no effect on it. Patterns are kept as their JS sources (the spec's table,
verbatim) and translated by `jsstring.js_regex`, so `\\s`, `\\b` and case folding mean what they mean in JS.
"""

from __future__ import annotations

import re

from memwarm_cli.jsstring import js_length, js_regex, js_replace_first, js_slice

# In this order: each pattern runs over the previous one's output.
DEFAULT_REDACT_PATTERN_SOURCES = (
    # ENV-style assignment
    r"""\b[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)\b\s*[=:]\s*(["']?)([^\s"'\\]+)\1""",
    # JSON field
    r'"(?:apiKey|token|secret|password|passwd|accessToken|refreshToken)"\s*:\s*"([^"]+)"',
    # CLI flag
    r"""--(?:api[-_]?key|token|secret|password|passwd)\s+(["']?)([^\s"']+)\1""",
    # Authorization header
    r"Authorization\s*[:=]\s*Bearer\s+([A-Za-z0-9._\-+=]+)",
    # bare Bearer
    r"\bBearer\s+([A-Za-z0-9._\-+=]{18,})\b",
    # PEM private key
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]+?-----END [A-Z ]*PRIVATE KEY-----",
    # OpenAI-style
    r"\b(sk-[A-Za-z0-9_-]{8,})\b",
    # GitHub classic
    r"\b(ghp_[A-Za-z0-9]{20,})\b",
    # GitHub fine-grained
    r"\b(github_pat_[A-Za-z0-9_]{20,})\b",
    # Slack
    r"\b(xox[baprs]-[A-Za-z0-9-]{10,})\b",
    # Slack app
    r"\b(xapp-[A-Za-z0-9-]{10,})\b",
    # Groq
    r"\b(gsk_[A-Za-z0-9_-]{10,})\b",
    # Google
    r"\b(AIza[0-9A-Za-z\-_]{20,})\b",
    # Perplexity
    r"\b(pplx-[A-Za-z0-9_-]{10,})\b",
    # npm
    r"\b(npm_[A-Za-z0-9]{10,})\b",
    # Telegram, URL form
    r"\bbot(\d{6,}:[A-Za-z0-9_-]{20,})\b",
    # Telegram, bare
    r"\b(\d{6,}:[A-Za-z0-9_-]{20,})\b",
)
DEFAULT_REDACT_PATTERNS = tuple(
    js_regex(source, ignore_case=True) for source in DEFAULT_REDACT_PATTERN_SOURCES
)

MASK = "***"
_MIN_MASK_KEEP = 18  # shorter tokens become "***"; longer ones keep 6 leading and 4 trailing units
_KEEP_START, _KEEP_END = 6, 4
_PEM_MARKER = "PRIVATE KEY-----"
_PEM_LINE_BREAK = re.compile(r"\r?\n")


def mask_token(token: str) -> str:
    """`***` below 18 UTF-16 units, else the first 6 units + `…` + the last 4 (a pair may be split)."""
    length = js_length(token)
    if length < _MIN_MASK_KEEP:
        return MASK
    return js_slice(token, 0, _KEEP_START) + "…" + js_slice(token, length - _KEEP_END)


def _redact_pem_block(block: str) -> str:
    pieces = [piece for piece in _PEM_LINE_BREAK.split(block) if piece]
    if len(pieces) < 2:
        return MASK
    return f"{pieces[0]}\n…redacted…\n{pieces[-1]}"


def _redact_match(match: re.Match[str]) -> str:
    whole = match.group(0)
    if _PEM_MARKER in whole:
        return _redact_pem_block(whole)
    # The last capture group holding a non-empty string, else the whole match.
    token = next((group for group in reversed(match.groups()) if group), whole)
    masked = mask_token(token)
    if token == whole:
        return masked
    # JS `match.replace(token, masked)`: first occurrence only, `masked` read as a `$` template.
    return js_replace_first(whole, token, masked)


def redact_sensitive_text(text: str) -> str:
    """Every default pattern in order, each replacing all its non-overlapping matches, left to right."""
    if not text:
        return text
    for pattern in DEFAULT_REDACT_PATTERNS:
        text = pattern.sub(_redact_match, text)
    return text
