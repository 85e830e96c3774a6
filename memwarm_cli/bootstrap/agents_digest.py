"""The AGENTS.md policy digest: the rule-like lines kept when AGENTS.md is cut (spec §5.2, `digest`).

From 2026.9.4 (`profile.policy_digest == "with-prose"`) each candidate line carries the prose line just
before it (joined by a newline, costing the joined length); a blank line, a code fence and a candidate
reset that remembered line; fence lines are never candidates; and Chinese prohibition words and U+1F534
are policy (and some high-priority) words too, matched without word boundaries (research B.9).

OpenClaw matches keywords with a JavaScript `/iu` regex: simple case folding, under which `ſ` (U+017F)
is an `s` and the Kelvin sign (U+212A) a `k`, both also word characters for `\\b`, while `İ` and `ı`
are not `i` (Python's IGNORECASE would match those). Lines are folded first (ASCII upper case, `ſ`,
`K`) and searched for lower-case keywords with explicit boundary checks. No regex: compiling these
patterns cost `context` several milliseconds of start-up (bench/bench_context.py), and after
whitespace normalisation the line shapes need only string tests.
"""

from __future__ import annotations

from memwarm_cli.jsstring import JS_WHITESPACE, js_length, truncate_utf16_safe

# typing.TYPE_CHECKING without importing typing: ~2.5 ms of `context`'s start (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from memwarm_cli.named_tuples import NamedTuple

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
# 2026.9.4+: matched as plain substrings (the release's alternatives carry no `\b`).
HIGH_PRIORITY_MARKS = ("\U0001f534", "禁止", "嚴禁", "不得", "絕不", "絕對不", "切勿")
POLICY_MARKS = (*HIGH_PRIORITY_MARKS, "必須", "務必", "一律", "紅線")
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


def _is_fence(line: str) -> bool:
    r"""`/^\s*(?:`{3,}|~{3,})/` on a normalised (trimmed) line."""
    return line.startswith(("```", "~~~"))


def _candidates(text: str, prose: bool) -> list[tuple[str, bool]]:
    """(candidate text, high priority) in file order."""
    candidates: list[tuple[str, bool]] = []
    last_prose: str | None = None
    for raw in _lines(text):
        line = _normalized_line(raw)
        if not line:
            last_prose = None
            continue
        if prose and _is_fence(line):
            last_prose = None
            continue
        folded = line.translate(_FOLD)
        marked = prose and any(mark in line for mark in POLICY_MARKS)
        if _rule_shaped(line) or marked or _has_word(folded, POLICY_WORDS):
            high = _has_word(folded, HIGH_PRIORITY_WORDS) or (
                prose and any(mark in line for mark in HIGH_PRIORITY_MARKS)
            )
            candidates.append((line if last_prose is None else f"{last_prose}\n{line}", high))
            last_prose = None
        elif prose:
            last_prose = line
    return candidates


def policy_digest(text: str, budget: int, prose: bool = False) -> Digest:
    """The candidate lines that fit `budget` (high-priority ones first), in file order; with `prose`
    (2026.9.4+) each with the prose line before it."""
    if budget <= 0:
        return Digest("", 0)
    candidates = _candidates(text, prose)
    order = [i for i, (_, high) in enumerate(candidates) if high]
    order += [i for i, (_, high) in enumerate(candidates) if not high]
    taken: set[int] = set()
    used = 0
    for index in order:
        cost = (1 if taken else 0) + js_length(candidates[index][0])
        if used + cost <= budget:
            taken.add(index)
            used += cost
    return Digest("\n".join(candidates[i][0] for i in sorted(taken)), len(candidates) - len(taken))
