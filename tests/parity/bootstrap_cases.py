"""Build a bootstrap golden case's workspace at its fixed root, exactly as
../shared/parity/bootstrap/README.md describes (paths in the expectations contain the root literally)."""

from __future__ import annotations

import base64
import contextlib
import fcntl
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.conftest import SHARED_DIR

BOOTSTRAP_CASES_DIR = SHARED_DIR / "parity" / "bootstrap" / "cases"
# Every case root lives under /tmp/mwbs/; one lock keeps two test runs from building the same root at once.
_LOCK_FILE = Path("/tmp/mwbs.lock")


def load_bootstrap_cases() -> list[dict[str, Any]]:
    cases = []
    for path in sorted(BOOTSTRAP_CASES_DIR.glob("*.json")):
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
    if not any(key in entry for key in ("content", "fill", "tail")):
        return None
    fill = entry.get("fill") or {}
    text = entry.get("content", "") + fill.get("unit", "") * fill.get("count", 0) + entry.get("tail", "")
    return str(text).encode("utf-8")


def build_workspace(case: dict[str, Any]) -> Path:
    """Steps 1-2 of the README: a fresh `root/ws` and `root/outside`, entries in list order."""
    root = Path(case["root"])
    shutil.rmtree(root, ignore_errors=True)
    workspace, outside = root / "ws", root / "outside"
    workspace.mkdir(parents=True)
    outside.mkdir()
    for entry in case["files"]:
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
    return workspace


@contextlib.contextmanager
def case_roots_locked() -> Iterator[None]:
    """No other test process (another worker, another checkout) builds or removes a case root meanwhile."""
    with _LOCK_FILE.open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@contextlib.contextmanager
def all_case_workspaces(cases: list[dict[str, Any]]) -> Iterator[dict[str, Path]]:
    """Every case's workspace at its fixed root (by case name), all removed afterwards (step 4)."""
    with case_roots_locked():
        try:
            yield {case["name"]: build_workspace(case) for case in cases}
        finally:
            for case in cases:
                shutil.rmtree(case["root"], ignore_errors=True)
            for parent in {Path(case["root"]).parent for case in cases}:
                with contextlib.suppress(OSError):
                    parent.rmdir()  # /tmp/mwbs, once no other root is left in it


@contextlib.contextmanager
def case_workspace(case: dict[str, Any]) -> Iterator[Path]:
    """One case's workspace at its fixed root, removed afterwards."""
    with all_case_workspaces([case]) as workspaces:
        yield workspaces[case["name"]]
