"""`trimBootstrapContent`: one bootstrap file cut to its limit with a truncation marker (spec §5.1, §5.2).

A file over its limit keeps a head and a tail (75%/25% of what the marker leaves) around a marker that
names the file; AGENTS.md instead keeps 45% head, a policy digest of up to 35% and a 15% tail. The head
and tail are raw UTF-16 slices, so either can end or start with a lone surrogate, as in OpenClaw
2026.6.35; from 2026.7.33 (`profile.surrogate_safe_cuts`) they are surrogate-safe slices, which can be
one unit shorter, while the marker still counts the units asked for.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from memwarm_cli.bootstrap.agents_digest import policy_digest
from memwarm_cli.jsstring import js_length, js_slice, js_trim_end, slice_utf16_safe, truncate_utf16_safe
from memwarm_cli.profiles.releases import Profile

# typing.TYPE_CHECKING without importing typing: ~2.5 ms of `context`'s start (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, NamedTuple

    CutStyle = Literal["full", "compact", "digest"]
else:
    from memwarm_cli.named_tuples import NamedTuple

MIN_FULL_MARKER_ROOM = 16


class Trimmed(NamedTuple):
    text: str
    raw_chars: int  # length after trimEnd
    style: CutStyle | None = None  # None: not cut
    head: int = 0  # units kept from the start
    tail: int = 0  # units kept from the end
    digest_chars: int = 0  # AGENTS.md: units of policy digest
    digest_omitted: int = 0  # AGENTS.md: candidate policy lines left out

    @property
    def cut(self) -> bool:
        return self.style is not None


def _head_tail(text: str, length: int, head: int, tail: int, safe: bool) -> tuple[str, str]:
    if safe:
        return slice_utf16_safe(text, 0, head), slice_utf16_safe(text, -tail) if tail > 0 else ""
    return js_slice(text, 0, head), js_slice(text, length - tail) if tail > 0 else ""


def _trim_generic(text: str, length: int, name: str, limit: int, safe: bool) -> Trimmed:
    def full(h: int, k: int) -> str:
        return (
            f"\n[...truncated, read {name} for full content...]\n"
            f"\u2026(truncated {name}: kept {h}+{k} chars of {length})\u2026\n"
        )

    def compact(h: int, k: int) -> str:
        return f"[\u2026truncated {h}+{k}/{length}]"

    def separators(h: int, k: int, marker: str) -> int:
        return (h > 0) + (k > 0) if "\n" in marker else 0

    template: Callable[[int, int], str] = (
        full if limit - js_length(full(0, 0)) - 2 >= MIN_FULL_MARKER_ROOM else compact
    )
    head = tail = 0
    marker = template(0, 0)
    for _ in range(3):
        room = max(0, limit - js_length(marker) - separators(head, tail, marker))
        new_head, new_tail = math.floor(room * 0.75), math.floor(room * 0.25)
        new_marker = template(new_head, new_tail)
        if new_head == head and new_tail == tail and js_length(new_marker) == js_length(marker):
            break
        head, tail, marker = new_head, new_tail, new_marker
    total = head + tail + js_length(marker) + separators(head, tail, marker)
    while total > limit and (tail > 0 or head > 0):
        over = total - limit
        if tail > 0:
            tail = max(0, tail - over)
        else:
            head = max(0, head - over)
        marker = template(head, tail)
        total = head + tail + js_length(marker) + separators(head, tail, marker)
    if head == 0 and tail == 0 and length > 0:
        one = template(1, 0)
        if 1 + js_length(one) + separators(1, 0, one) <= limit:
            head, marker = 1, one
    head_text, tail_text = _head_tail(text, length, head, tail, safe)
    joiner = "\n" if "\n" in marker else ""
    out = joiner.join(part for part in (head_text, marker, tail_text) if part)
    if js_length(out) > limit:
        out = truncate_utf16_safe(out, limit)
    style: CutStyle = "full" if template is full else "compact"
    return Trimmed(out, length, style, head, tail)


def _trim_agents(text: str, length: int, limit: int, profile: Profile) -> Trimmed:
    head, tail, digest_budget = math.floor(limit * 0.45), math.floor(limit * 0.15), math.floor(limit * 0.35)
    safe, prose = profile.surrogate_safe_cuts, profile.policy_digest == "with-prose"
    digest = policy_digest(text, digest_budget, prose)

    def render() -> str:
        digest_chars = js_length(digest.text)
        head_text, tail_text = _head_tail(text, length, head, tail, safe)
        parts = [
            head_text,
            "[...truncated, read AGENTS.md for full content...]",
            "[Policy digest from AGENTS.md]" if digest.text else "",
            digest.text,
            f"[...{digest.omitted} more policy lines omitted...]" if digest.omitted > 0 else "",
            f"\u2026(truncated AGENTS.md: kept {head}+policy {digest_chars}+{tail} chars of {length})\u2026",
            tail_text,
        ]
        return "\n".join(part for part in parts if part)

    out = render()
    while js_length(out) > limit and (tail > 0 or head > 1 or digest_budget > 0):
        over = js_length(out) - limit
        if tail > 0:
            tail = max(0, tail - over)
        elif head > 1:
            head = max(1, head - over)
        else:
            digest_budget = max(0, digest_budget - over)
            digest = policy_digest(text, digest_budget, prose)
        out = render()
    if js_length(out) > limit:
        out = truncate_utf16_safe(out, limit)
    return Trimmed(out, length, "digest", head, tail, js_length(digest.text), digest.omitted)


def trim_bootstrap_content(content: str, name: str, limit: int, *, profile: Profile) -> Trimmed:
    """The file's text as OpenClaw injects it under a per-file `limit` (before the total-budget clamp)."""
    text = js_trim_end(content)
    length = js_length(text)
    if length <= limit:
        return Trimmed(text, length)
    if name.lower() == "agents.md":
        return _trim_agents(text, length, limit, profile)
    return _trim_generic(text, length, name, limit, profile.surrogate_safe_cuts)
