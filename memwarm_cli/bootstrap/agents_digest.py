"""The AGENTS.md policy digest: the rule-like lines kept when AGENTS.md is cut (spec §5.2, `digest`).

OpenClaw's regexes run with JavaScript's `/iu` flags. Python's IGNORECASE also folds `İ` and `ı` to
`i`, which JS simple case folding does not, so the keywords are spelled as explicit character classes:
each letter matches its two cases, `s` also `ſ` (U+017F) and `k` also the Kelvin sign (U+212A). Those
two count as word characters for `\\b` under `/iu`, so the boundaries are written out the same way.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from memwarm_cli.bootstrap.utf16_cuts import truncate_utf16_safe
from memwarm_cli.jsstring import JS_WHITESPACE, js_length, js_trim

MAX_DIGEST_LINE = 240
_ELLIPSIS = "\u2026"

_WS = "[" + re.escape(JS_WHITESPACE) + "]"
_NOT_WS = "[^" + re.escape(JS_WHITESPACE) + "]"
_WS_RUN = re.compile(_WS + "+")
_LINE_BREAK = re.compile("\r?\n")
_RULE_SHAPED = re.compile(rf"^(?:#{{1,6}}|{_WS}*[-*+]|{_WS}*[0-9]+[.)]){_WS}+{_NOT_WS}")

_FOLDS = {"s": "sS\u017f", "k": "kK\u212a"}
_WORD = "A-Za-z0-9_\u017f\u212a"


def _spelled(word: str) -> str:
    out = []
    for ch in word:
        if ch.isascii() and ch.isalpha():
            out.append("[" + _FOLDS.get(ch.lower(), ch.lower() + ch.upper()) + "]")
        else:
            out.append(re.escape(ch))
    return "".join(out)


def _keywords(words: tuple[str, ...]) -> re.Pattern[str]:
    alternatives = "|".join(_spelled(word) for word in words)
    return re.compile(rf"(?<![{_WORD}])(?:{alternatives})(?![{_WORD}])")


HIGH_PRIORITY_WORDS = (
    "AGENTS.md",
    "scoped",
    "required",
    "must",
    "never",
    "do not",
    "before subtree",
    "read scoped",
    "security",
    "secret",
    "credential",
)
POLICY_WORDS = (
    *HIGH_PRIORITY_WORDS,
    "owner",
    "test",
    "validation",
    "command",
    "commit",
    "push",
    "github",
    "pr",
)
_HIGH_PRIORITY = _keywords(HIGH_PRIORITY_WORDS)
_POLICY = _keywords(POLICY_WORDS)


class Digest(NamedTuple):
    text: str
    omitted: int  # candidate lines that did not fit


def _normalized_line(line: str) -> str:
    line = _WS_RUN.sub(" ", js_trim(line))
    if js_length(line) > MAX_DIGEST_LINE:
        return truncate_utf16_safe(line, MAX_DIGEST_LINE - 1) + _ELLIPSIS
    return line


def policy_digest(text: str, budget: int) -> Digest:
    """The candidate lines that fit `budget` (high-priority ones first), in file order."""
    if budget <= 0:
        return Digest("", 0)
    candidates = [
        line
        for line in map(_normalized_line, _LINE_BREAK.split(text))
        if line and (_RULE_SHAPED.search(line) or _POLICY.search(line))
    ]
    first_pass = [i for i, line in enumerate(candidates) if _HIGH_PRIORITY.search(line)]
    high = set(first_pass)
    second_pass = [i for i in range(len(candidates)) if i not in high]
    taken: set[int] = set()
    used = 0
    for index in first_pass + second_pass:
        cost = (1 if taken else 0) + js_length(candidates[index])
        if used + cost <= budget:
            taken.add(index)
            used += cost
    return Digest("\n".join(candidates[i] for i in sorted(taken)), len(candidates) - len(taken))
