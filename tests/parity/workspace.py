"""Build a golden case's workspace exactly as tests/golden/README.md describes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import GOLDEN_DIR
from tests.parity.case_files import create_entries, load_json_cases

CASES_DIR = GOLDEN_DIR / "cases"


def load_cases() -> list[dict[str, Any]]:
    return load_json_cases(CASES_DIR)


def build_case_workspace(case: dict[str, Any], base: Path) -> Path:
    """Create `base/ws` (returned) and `base/outside` for `case`; `base` must be canonical."""
    workspace, outside = base / "ws", base / "outside"
    workspace.mkdir()
    outside.mkdir()
    entries: list[dict[str, Any]] = case["files"]
    if case.get("memoryIsFile"):
        (workspace / "memory").write_bytes(b"not a directory")
    elif not any(entry["path"] == "memory" for entry in entries):
        (workspace / "memory").mkdir()
    create_entries(entries, workspace, outside)
    return workspace
