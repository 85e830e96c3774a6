"""Build a golden case's workspace exactly as ../shared/parity/README.md describes."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any

from tests.conftest import SHARED_DIR

CASES_DIR = SHARED_DIR / "parity" / "cases"


def load_cases() -> list[dict[str, Any]]:
    cases = []
    for path in sorted(CASES_DIR.glob("*.json")):
        with path.open(encoding="utf-8") as handle:
            cases.append(json.load(handle))
    return cases


def _locate(entry_path: str, workspace: Path, outside: Path) -> Path:
    prefix = "@outside/"
    if entry_path.startswith(prefix):
        return outside / entry_path[len(prefix) :]
    return workspace / entry_path


def _content_bytes(entry: dict[str, Any]) -> bytes | None:
    if "contentB64" in entry:
        return base64.b64decode(entry["contentB64"])
    if "content" in entry:
        return str(entry["content"]).encode("utf-8")
    return None


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
    for entry in entries:
        location = _locate(entry["path"], workspace, outside)
        location.parent.mkdir(parents=True, exist_ok=True)
        data = _content_bytes(entry)
        if entry.get("dir"):
            location.mkdir()
        elif "symlinkTo" in entry:
            target = _locate(entry["symlinkTo"], workspace, outside)
            if data is not None:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(data)
            os.symlink(target, location)
        elif "hardlinkTo" in entry:
            os.link(workspace / entry["hardlinkTo"], location)
        else:
            location.write_bytes(data or b"")
        if "mode" in entry:
            os.chmod(location, entry["mode"])
    for entry in entries:
        if "mtimeMs" in entry:
            location = _locate(entry["path"], workspace, outside)
            ns = int(entry["mtimeMs"]) * 1_000_000
            os.utime(location, ns=(ns, ns), follow_symlinks="symlinkTo" not in entry)
    return workspace
