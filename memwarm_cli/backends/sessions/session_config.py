"""What the session export checks about its configuration before it touches anything.

- `sessions_config_error`: the release validates the whole runtime config while it lists the
  transcripts (`getRuntimeConfig()`), after creating the export dir and before any read, write or
  delete; `memory.qmd.sessions` is the strict object `{enabled?: boolean, exportDir?: string,
  retentionDays?: safe integer >= 0}`. An invalid one fails the pass with `INVALID_CONFIG` (e.g. a
  fractional or negative `retentionDays`) and `qmd update` does not run. memwarm checks that object.
- `export_dir_refusal`: export dirs memwarm refuses although the release uses them, because stale
  cleanup deletes every `*.md` directly in the export dir: the transcripts' dir or the workspace, its
  `memory/` dir or another collection's dir, anything containing one of them (an ancestor of the
  workspace), anything inside `memory/` (`memory/projects` holds the user's notes), and the home dir or
  an ancestor of it. Paths are compared as real paths, so `~`, relative paths, trailing slashes and
  symlinks on the way all land on what they name.
- `CLEAR_TEXT_SECRET_FORMATS`: the secret formats memwarm recognises that the release's redaction leaves
  in clear (clear_secrets.py counts them in each export).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from memwarm_cli.backends.sessions.redaction.clear_secrets import CLEAR_FORMATS, UNCOUNTED_FORMATS

INVALID_CONFIG = "INVALID_CONFIG"
MAX_SAFE_INTEGER = 2**53 - 1
_SESSION_KEYS = ("enabled", "exportDir", "retentionDays")

# The release's redaction (2026.6.35) masks none of these; memwarm keeps its output (parity) and says so.
CLEAR_TEXT_SECRET_FORMATS = (*(fmt.label for fmt in CLEAR_FORMATS), *UNCOUNTED_FORMATS)
CLEAR_TEXT_NOTICE = (
    "session export keeps OpenClaw 2026.6.35's redaction, which leaves these in clear in the exports "
    f"and the index: {'; '.join(CLEAR_TEXT_SECRET_FORMATS)}"
)


def _is_safe_non_negative_integer(value: Any) -> bool:
    """zod `number().int().nonnegative()`: a JSON number that is a safe integer >= 0 (bool is not)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        number = float(value)
    except OverflowError:
        return False
    return math.isfinite(number) and number.is_integer() and 0 <= number <= MAX_SAFE_INTEGER


def sessions_config_error(sessions: Any, where: str = "memory.qmd.sessions") -> str | None:
    """Why `memory.qmd.sessions` (the raw config value; absent is None) fails the release's schema, as
    its one-line message (`<path>: Invalid input`), or None when it is valid."""
    if sessions is None:
        return None
    if not isinstance(sessions, dict):
        return f"{where}: Invalid input: expected object"
    problems: list[str] = []
    for key in sessions:
        if key not in _SESSION_KEYS:
            problems.append(f'{where}: Unrecognized key: "{key}"')
    if "enabled" in sessions and not isinstance(sessions["enabled"], bool):
        problems.append(f"{where}.enabled: Invalid input: expected boolean")
    if "exportDir" in sessions and not isinstance(sessions["exportDir"], str):
        problems.append(f"{where}.exportDir: Invalid input: expected string")
    if "retentionDays" in sessions and not _is_safe_non_negative_integer(sessions["retentionDays"]):
        problems.append(f"{where}.retentionDays: Invalid input (a whole number of days, 0 or more)")
    return "; ".join(problems) or None


def _real(path: Path | str) -> str:
    return os.path.realpath(path)


def _is_within(inner: str, outer: str) -> bool:
    """`inner` is `outer` or below it (real paths)."""
    return inner == outer or inner.startswith(outer.rstrip(os.sep) + os.sep)


def export_dir_refusal(
    export_dir: Path,
    *,
    sessions_dir: Path,
    protected_dirs: Sequence[Path] = (),
    notes_dirs: Sequence[Path] = (),
    homes: Sequence[Path] = (),
) -> str | None:
    """Why memwarm will not use `export_dir` (one line), or None.

    `protected_dirs` may be neither the export dir nor inside it (the workspace, its memory dir, the other
    collections; the sessions dir always); `notes_dirs` may not hold it either (the workspace's memory
    dir); no home dir in `homes` may be it or inside it.
    """
    real_export = _real(export_dir)
    why = (
        "stale-export cleanup deletes every *.md directly in the export dir, so it must be a directory "
        "of its own (memory.qmd.sessions.exportDir)"
    )
    for protected in (sessions_dir, *protected_dirs):
        if _is_within(_real(protected), real_export):
            return f"export dir {export_dir} is or contains {protected}; {why}"
    for notes in notes_dirs:
        if _is_within(real_export, _real(notes)):
            return f"export dir {export_dir} is inside {notes}, where the user's notes are; {why}"
    for home in homes:
        if _is_within(_real(home), real_export):
            return f"export dir {export_dir} is or contains the home directory {home}; {why}"
    return None
