"""Secret formats that reach the exports and the qmd index in clear, recognised so the user is told.

The export keeps openclaw@2026.6.35's redaction byte for byte (parity: the gateway exports the same
transcripts into the same collection, and different bytes would make the two rewrite each other's
exports). That redaction leaves these formats in clear (each sample below is held to the release's own
output: tests/backends/sessions/test_clear_secrets.py, tests/interop/test_redaction_release.py). memwarm
does not mask them; it counts them in what it exports (`ClearSecretCounter`, run on each exported line,
after redaction, so a value the release masked, `abcdef…wxyz` or `***`, is not counted) and reports the
counts per agent: init-backends' report and `config check`.

Every pattern starts with a literal or a word boundary and has bounded or single-word repetition, so a
line is scanned in linear time; a cheap substring test (`probe`) skips a pattern on most lines.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable, Mapping

from memwarm_cli.frozen_records import record

# A value in clear: not the release's mask (`…`, `***`) and ending where a value ends.
_VALUE = r"""["']?(?![$<{])[^\s"'`,;}\]…*]{6,}(?![^\s"'`,;}\]])"""  # `${VAR}`, `<token>`: no value
# The key names an assignment of the first format ends in (lower case): a compound `...key`, or a word.
_KEY_ENDINGS = (
    *(
        f"{head}{joint}key"
        for head in ("api", "access", "secret", "private", "client", "app", "auth", "signing", "master")
        for joint in ("", "_", "-", ".")
    ),
    *("encryptionkey", "encryption_key", "token", "secret", "password", "passwd", "passphrase", "pwd"),
)
_SEPARATOR = re.compile("[:=：＝]")


@record
class ClearFormat:
    label: str  # as the docs and the reports name it
    sample: str  # a text with one such secret, which the release's redaction leaves as it is
    probe: tuple[str, ...]  # the pattern runs only on a line whose lower-cased text holds one of these
    pattern: str  # Python regex source (for `after_key`, what must follow the separator)
    # An assignment: found from its separators (`:`, `=`, full-width too) back to a key name in
    # _KEY_ENDINGS, then `pattern` after it; a regex led by the key names cost 20 times more per line.
    after_key: bool = False


CLEAR_FORMATS: tuple[ClearFormat, ...] = (
    ClearFormat(
        "key, token, secret or password assignments the release does not match (`password: X`, "
        "`apiKey: X`, YAML `api_key:`, `pwd=X`, `passphrase: X`, `aws_secret_access_key = X`, "
        "a full-width `TOKEN：X`)",
        "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        ("key", "token", "secret", "pass", "pwd"),
        rf"\s*{_VALUE}",
        after_key=True,
    ),
    ClearFormat(
        "percent-encoded assignments (`password%3DX`)",
        "q=1&password%3DHunter2SecretValue",
        ("%3d",),
        r"(?i)\b[A-Za-z0-9_]*?(?:key|token|secret|password|passwd|pwd)%3d[^\s&\"'…*]{6,}",
    ),
    ClearFormat(
        "single-quoted pairs (`{'password': 'X'}`)",
        "{'password': 'Hunter2SecretValue'}",
        ("'",),
        r"(?i)'[A-Za-z0-9_]*?(?:key|token|secret|password|passwd)'\s*:\s*'[^'…*]{4,}'",
    ),
    ClearFormat(
        'Docker registry auth (`"auth": "<base64>"`)',
        '{"auths": {"ghcr.io": {"auth": "YWxpY2U6aHVudGVyMlNlY3JldA=="}}}',
        ('"auth"',),
        r'"auth"\s*:\s*"[A-Za-z0-9+/=]{16,}"',
    ),
    ClearFormat(
        "cookies (`Cookie: sessionid=X`, `Set-Cookie:`)",
        "Cookie: sessionid=abcdef0123456789abcdef0123456789",
        ("cookie",),
        r"(?i)\bcookie\s*:\s*[^\s=;]+=[^\s;…*]{8,}",
    ),
    ClearFormat(
        "`sshpass -p X`", "run sshpass -p Hunter2Secret ssh host", ("sshpass",), r"\bsshpass\s+-p\s*[^\s…*]+"
    ),
    ClearFormat(
        "`mysql -pX` (and mysqldump, mysqladmin)",
        "run mysql -uroot -pHunter2Secret db",
        ("mysql",),
        r"\bmysql[a-z]*\b[^\n]{0,200}?\s-p[^\s…*]{3,}",
    ),
    ClearFormat(
        "`curl -u user:X` (`--user`)",
        "curl -u alice:Hunter2Secret https://x",
        ("curl",),
        r"\bcurl\b[^\n]{0,200}?\s(?:-u|--user)\s*[^\s:]+:[^\s…*]{3,}",
    ),
    ClearFormat(
        "netrc lines (`machine host login alice password X`)",
        "machine example.com login alice password Hunter2SecretValue",
        ("machine", "default"),
        r"\b(?:machine\s+\S+|default)\s+login\s+\S+\s+password\s+[^\s…*]{3,}",
    ),
    ClearFormat(
        "private key blocks without their END line (an OpenSSH or RSA key cut short)",
        "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ",
        ("private key-----",),
        r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----\s*[A-Za-z0-9+/=]{16,}",
    ),
    ClearFormat(
        "PuTTY private keys (`PuTTY-User-Key-File`)",
        "PuTTY-User-Key-File-3: ssh-ed25519 Private-Lines: 1 AAAAIabcdefghijklmnopqrstuvwxyz",
        ("putty-user-key-file",),
        r"PuTTY-User-Key-File-\d+:",
    ),
    ClearFormat(
        "Azure storage connection strings (`AccountKey=`)",
        "DefaultEndpointsProtocol=https;AccountName=foo;AccountKey=abcdEFGHijklMNOPqrstUVWXyz0123456789+/ab==",
        ("accountkey=",),
        r"AccountKey=[A-Za-z0-9+/=]{20,}",
    ),
    ClearFormat(
        "Stripe webhook secrets (`whsec_`)",
        "webhook whsec_abcdefghijklmnopqrstuvwxyz012345 set",
        ("whsec_",),
        r"\bwhsec_[A-Za-z0-9]{16,}",
    ),
    ClearFormat(
        "Twilio API keys (`SK` + 32 hex)",
        "twilio SK0123456789abcdef0123456789abcdef here",
        ("sk",),
        r"\bSK[0-9a-fA-F]{32}\b",
    ),
    ClearFormat(
        "Mailgun keys (`key-` + 32)",
        "mailgun key-0123456789abcdef0123456789abcdef here",
        ("key-",),
        r"\bkey-[0-9a-zA-Z]{32}\b",
    ),
    ClearFormat(
        "Discord bot tokens",
        "discord MTIzNDU2Nzg5MDEyMzQ1Njc4OQ.GaBcDe.abcdefghijklmnopqrstuvwxyz0123456789AB",
        (".",),
        r"\b[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38}\b",
    ),
    ClearFormat(
        "Shopify tokens (`shpat_`, `shpca_`, `shppa_`, `shpss_`)",
        "shop shpat_0123456789abcdef0123456789abcdef ok",
        ("shp",),
        r"\bshp(?:at|ca|pa|ss)_[0-9a-fA-F]{32}\b",
    ),
    ClearFormat(
        "HashiCorp Vault tokens (`hvs.`, `hvb.`, `hvr.`)",
        "vault hvs.CAESIabcdefghijklmnopqrstuvwxyz0123456789ABCD ok",
        ("hvs.", "hvb.", "hvr."),
        r"\bhv[sbr]\.[A-Za-z0-9_-]{20,}",
    ),
    ClearFormat(
        "Square tokens (`sq0atp-`, `sq0csp-`, `EAAA`)",
        "sq0atp-abcdefghijklmnopqrstuv",
        ("sq0", "eaaa"),
        r"\b(?:sq0atp-[A-Za-z0-9_-]{22}|sq0csp-[A-Za-z0-9_-]{43}|EAAA[A-Za-z0-9_-]{60})",
    ),
    ClearFormat(
        "Linear API keys (`lin_api_`)",
        "lin_api_abcdefghijklmnopqrstuvwxyz0123456789ABCD",
        ("lin_api_",),
        r"\blin_api_[A-Za-z0-9]{32,}",
    ),
    ClearFormat(
        "Atlassian API tokens (`ATATT`)",
        "ATATT3xFfGF0abcdefghijklmnopqrstuvwxyz0123456789",
        ("atatt",),
        r"\bATATT[A-Za-z0-9_=-]{20,}",
    ),
    ClearFormat(
        "GitLab runner tokens (`glrt-`)",
        "glrt-abcdefghijklmnopqrst",
        ("glrt-",),
        r"\bglrt-[A-Za-z0-9_-]{20,}",
    ),
    ClearFormat(
        "age secret keys (`AGE-SECRET-KEY-1`)",
        "AGE-SECRET-KEY-1QQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ",
        ("age-secret-key-1",),
        r"\bAGE-SECRET-KEY-1[0-9A-Z]{50,}",
    ),
)

# Recognised by their shape only, which any other value shares: listed, not counted.
UNCOUNTED_FORMATS = ("bare Heroku API keys (a UUID, like any other UUID)",)


@functools.cache
def formats_digest() -> str:
    """8 hex digits naming this list of formats (the export cache's counts are valid for it only)."""
    return hashlib.sha256("\0".join(fmt.pattern for fmt in CLEAR_FORMATS).encode()).hexdigest()[:8]


@functools.cache
def _compiled() -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(fmt.pattern) for fmt in CLEAR_FORMATS)


def _assignments(lowered: str, value: re.Pattern[str]) -> int:
    """Separators preceded by a key name (spaces between allowed) and followed by a value in clear."""
    found = 0
    for separator in _SEPARATOR.finditer(lowered):
        at = separator.start()
        if lowered[max(0, at - 40) : at].rstrip(" \t").endswith(_KEY_ENDINGS):
            found += value.match(lowered, at + 1) is not None
    return found


class ClearSecretCounter:
    """Counts, per format (its index in CLEAR_FORMATS), the secrets in clear in the lines it is shown."""

    def __init__(self) -> None:
        self.counts: dict[int, int] = {}

    def scan(self, line: str) -> None:
        lowered = line.lower()
        for index, (fmt, pattern) in enumerate(zip(CLEAR_FORMATS, _compiled(), strict=True)):
            if any(word in lowered for word in fmt.probe):
                found = (
                    _assignments(lowered, pattern)
                    if fmt.after_key
                    else sum(1 for _ in pattern.finditer(line))
                )
                if found:
                    self.counts[index] = self.counts.get(index, 0) + found

    def as_pairs(self) -> tuple[tuple[int, int], ...]:
        return tuple(sorted(self.counts.items()))


def add_counts(pairs: Iterable[tuple[int, int]], into: dict[int, int]) -> None:
    for index, count in pairs:
        into[index] = into.get(index, 0) + count


def labelled(counts: Mapping[int, int]) -> dict[str, int]:
    """{format label: count}, in CLEAR_FORMATS order, zero counts left out."""
    return {CLEAR_FORMATS[i].label: counts[i] for i in sorted(counts) if counts[i] and i < len(CLEAR_FORMATS)}


def summary(counts: Mapping[int, int]) -> str:
    """`3 secrets in clear: Stripe webhook secrets (`whsec_`) 2, ...` (short labels), or ""."""
    total = sum(counts.values())
    if not total:
        return ""
    parts = [f"{label.split(' (')[0]} {count}" for label, count in labelled(counts).items()]
    return f"{total} secret{'s' if total != 1 else ''} in clear ({', '.join(parts)})"
