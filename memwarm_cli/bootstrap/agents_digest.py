"""The AGENTS.md policy digest: the rule-like lines kept when AGENTS.md is cut (spec §5.2, `digest`).

OpenClaw matches keywords with a JavaScript `/iu` regex: simple case folding, under which `ſ` (U+017F)
is an `s` and the Kelvin sign (U+212A) a `k`, both also word characters for `\\b`, while `İ` and `ı`
are not `i` (Python's IGNORECASE would match those). Lines are folded first (ASCII upper case, `ſ`,
`K`) and searched for lower-case keywords with explicit boundary checks. No regex: compiling these
patterns cost `context` several milliseconds of start-up (bench/bench_context.py), and after
whitespace normalisation the line shapes need only string tests.
"""

from __future__ import annotations

from typing import NamedTuple

from memwarm_cli.jsstring import JS_WHITESPACE, js_length, truncate_utf16_safe

MAX_DIGEST_LINE = 240
_ELLIPSIS = "\u2026"
_FOLD = str.maketrans(
    {**{chr(c): chr(c + 32) for c in range(ord("A"), ord("Z") + 1)}, "\u017f": "s", "\u212a": "k"}
)
_TO_SPACE = str.maketrans(dict.fromkeys(JS_WHITESPACE, " "))
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_")  # after folding
_DIGITS = frozenset("0123456789")

HIGH_PRIORITY_WORDS = (
    "agents.md",
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


class Digest(NamedTuple):
    text: str
    omitted: int  # candidate lines that did not fit


def _normalized_line(line: str) -> str:
    """JS-trimmed, each whitespace run one space, capped at 240 units with an ellipsis."""
    line = " ".join(part for part in line.translate(_TO_SPACE).split(" ") if part)
    if js_length(line) > MAX_DIGEST_LINE:
        return truncate_utf16_safe(line, MAX_DIGEST_LINE - 1) + _ELLIPSIS
    return line


def _rule_shaped(line: str) -> bool:
    """`^(?:#{1,6}|\\s*[-*+]|\\s*\\d+[.)])\\s+\\S` on a normalised line: a marker, one space, text."""
    marker, space, rest = line.partition(" ")
    if not space or not rest:
        return False
    if marker[0] == "#":
        return len(marker) <= 6 and marker == "#" * len(marker)
    if marker in ("-", "*", "+"):
        return True
    return len(marker) > 1 and marker[-1] in ".)" and all(ch in _DIGITS for ch in marker[:-1])


def _has_word(folded: str, words: tuple[str, ...]) -> bool:
    """Any of `words` between word boundaries (JS `\\b` with `/iu`) in an already folded line."""
    for word in words:
        start = folded.find(word)
        while start != -1:
            end = start + len(word)
            before_ok = start == 0 or folded[start - 1] not in _WORD_CHARS
            if before_ok and (end == len(folded) or folded[end] not in _WORD_CHARS):
                return True
            start = folded.find(word, start + 1)
    return False


def _lines(text: str) -> list[str]:
    """`text.split(/\\r?\\n/)`."""
    pieces = text.split("\n")
    return [piece[:-1] if piece.endswith("\r") else piece for piece in pieces[:-1]] + pieces[-1:]


def policy_digest(text: str, budget: int) -> Digest:
    """The candidate lines that fit `budget` (high-priority ones first), in file order."""
    if budget <= 0:
        return Digest("", 0)
    candidates: list[str] = []
    high: set[int] = set()
    for raw in _lines(text):
        line = _normalized_line(raw)
        if not line:
            continue
        folded = line.translate(_FOLD)
        if _rule_shaped(line) or _has_word(folded, POLICY_WORDS):
            if _has_word(folded, HIGH_PRIORITY_WORDS):
                high.add(len(candidates))
            candidates.append(line)
    order = sorted(high) + [i for i in range(len(candidates)) if i not in high]
    taken: set[int] = set()
    used = 0
    for index in order:
        cost = (1 if taken else 0) + js_length(candidates[index])
        if used + cost <= budget:
            taken.add(index)
            used += cost
    return Digest("\n".join(candidates[i] for i in sorted(taken)), len(candidates) - len(taken))
