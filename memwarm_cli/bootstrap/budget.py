"""The budget loop: each bootstrap file cut to its limit, all of them to the total budget (spec §4.2).

Files are placed in load order. A missing file becomes a marker clamped to what is left; a present file
needs at least 64 units left and is cut at min(maxChars, remaining); an empty or blank file uses nothing.
From 2026.8.1 (`profile.user_md_cap`) USER.md's own limit is at most 4,000 units.
"""

from __future__ import annotations

from memwarm_cli.bootstrap.candidates import BootstrapFile
from memwarm_cli.bootstrap.trimming import Trimmed, trim_bootstrap_content
from memwarm_cli.jsstring import clamp_to_budget, js_length
from memwarm_cli.profiles.releases import Profile

# typing.TYPE_CHECKING without importing typing: ~2.5 ms of `context`'s start (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, NamedTuple

    Outcome = Literal["placed", "empty", "budget-exhausted"]
    LimitCause = Literal["per-file", "total budget", "USER.md cap"]
else:
    from memwarm_cli.named_tuples import NamedTuple

MIN_PRESENT_FILE_BUDGET = 64
MISSING_MARKER_PREFIX = "[MISSING] Expected at: "


class Placement(NamedTuple):
    file: BootstrapFile
    outcome: Outcome
    content: str | None  # the context file's content (unsanitised), when placed
    remaining_before: int  # budget left when this file's turn came
    limit: int | None  # the per-file cut applied to a present file: min(maxChars[, cap], remaining)
    limit_cause: LimitCause | None  # which was smallest (per-file, then the cap, when equal)
    trimmed: Trimmed | None  # present files that were trimmed
    marker_clamped: bool = False  # a missing marker, or a text, shortened to what was left

    @property
    def chars(self) -> int:
        return js_length(self.content) if self.content is not None else 0


def missing_marker(path: str) -> str:
    return MISSING_MARKER_PREFIX + path


def _file_budget(name: str, max_chars: int, profile: Profile) -> tuple[int, LimitCause]:
    cap = profile.user_md_cap
    if cap is not None and name.lower() == "user.md" and cap < max_chars:
        return cap, "USER.md cap"
    return max_chars, "per-file"


def place_files(
    files: list[BootstrapFile], max_chars: int, total_max_chars: int, *, profile: Profile
) -> list[Placement]:
    """One placement per file, in order; after the loop stops, every later file is budget-exhausted."""
    remaining = max(1, total_max_chars)
    placements: list[Placement] = []
    stopped = False
    for file in files:
        if stopped or remaining <= 0:
            stopped = True
            placements.append(Placement(file, "budget-exhausted", None, remaining, None, None, None))
            continue
        if file.content is None:
            marker = missing_marker(file.path)
            clamped = clamp_to_budget(marker, remaining)
            if not clamped:
                stopped = True
                placements.append(Placement(file, "budget-exhausted", None, remaining, None, None, None))
                continue
            placements.append(
                Placement(file, "placed", clamped, remaining, None, None, None, clamped != marker)
            )
            remaining = max(0, remaining - js_length(clamped))
            continue
        if remaining < MIN_PRESENT_FILE_BUDGET:
            stopped = True
            placements.append(Placement(file, "budget-exhausted", None, remaining, None, None, None))
            continue
        budget, cause = _file_budget(file.name, max_chars, profile)
        limit = max(1, min(budget, remaining))
        if budget > remaining:
            cause = "total budget"
        trimmed = trim_bootstrap_content(file.content, file.name, limit, profile=profile)
        clamped = clamp_to_budget(trimmed.text, remaining)
        if not clamped:
            placements.append(Placement(file, "empty", None, remaining, limit, cause, trimmed))
            continue
        placements.append(
            Placement(file, "placed", clamped, remaining, limit, cause, trimmed, clamped != trimmed.text)
        )
        remaining -= js_length(clamped)
    return placements
