"""What the golden-case formats share: loading a directory of cases, and creating a case's `files`
entries in a workspace and its `outside` directory.

The startup cases (tests/golden/README.md, workspace.py) and the bootstrap cases
(tests/golden/bootstrap/README.md, bootstrap_cases.py) describe their entries alike: `path`
(`@outside/...` for the outside directory), `content`/`contentB64` (bootstrap adds `fill` and `tail`),
at most one of `dir`, `symlinkTo`, `hardlinkTo`, then `mode`, and `mtimeMs` applied after all entries
exist (only the startup cases have it).
"""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path
from typing import Any


class GoldenSetMissing(RuntimeError):
    """A golden-case set is absent from tests/golden/: collecting its tests fails (an empty parameter set
    would only skip them)."""


def load_json_cases(directory: Path) -> list[dict[str, Any]]:
    """Every `*.json` case in `directory`, by file name; GoldenSetMissing when there is none."""
    paths = sorted(directory.glob("*.json"))
    if not paths:
        raise GoldenSetMissing(f"no golden cases in {directory}: run `python3 scripts/golden.py copy`")
    cases = []
    for path in paths:
        with path.open(encoding="utf-8") as handle:
            cases.append(json.load(handle))
    return cases


def _locate(entry_path: str, workspace: Path, outside: Path) -> Path:
    prefix = "@outside/"
    if entry_path.startswith(prefix):
        return outside / entry_path[len(prefix) :]
    return workspace / entry_path


def _content_bytes(entry: dict[str, Any]) -> bytes | None:
    """The entry's bytes: `contentB64`, else `content + fill.unit * fill.count + tail` (missing parts
    empty), None when it has none of them."""
    if "contentB64" in entry:
        return base64.b64decode(entry["contentB64"])
    if not any(key in entry for key in ("content", "fill", "tail")):
        return None
    fill = entry.get("fill") or {}
    text = entry.get("content", "") + fill.get("unit", "") * fill.get("count", 0) + entry.get("tail", "")
    return str(text).encode("utf-8")


def create_entries(entries: list[dict[str, Any]], workspace: Path, outside: Path) -> None:
    """Create `entries` in list order, then apply their `mtimeMs` in list order (a symlink's own times)."""
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
            os.link(_locate(entry["hardlinkTo"], workspace, outside), location)
        else:
            location.write_bytes(data or b"")
        if "mode" in entry:
            os.chmod(location, entry["mode"])
    for entry in entries:
        if "mtimeMs" in entry:
            location = _locate(entry["path"], workspace, outside)
            ns = int(entry["mtimeMs"]) * 1_000_000
            os.utime(location, ns=(ns, ns), follow_symlinks="symlinkTo" not in entry)
