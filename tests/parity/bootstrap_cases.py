"""Build a bootstrap golden case's workspace at its fixed root, exactly as
tests/golden/bootstrap/README.md describes (paths in the expectations contain the root literally)."""

from __future__ import annotations

import contextlib
import fcntl
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from tests.conftest import GOLDEN_DIR
from tests.parity.case_files import create_entries, load_json_cases

BOOTSTRAP_CASES_DIR = GOLDEN_DIR / "bootstrap" / "cases"
# Every case root lives under /tmp/mwbs/; one lock keeps two test runs from building the same root at once.
_LOCK_FILE = Path("/tmp/mwbs.lock")


def load_bootstrap_cases() -> list[dict[str, Any]]:
    return load_json_cases(BOOTSTRAP_CASES_DIR)


def build_workspace(case: dict[str, Any]) -> Path:
    """Steps 1-2 of the README: a fresh `root/ws` and `root/outside`, entries in list order."""
    root = Path(case["root"])
    shutil.rmtree(root, ignore_errors=True)
    workspace, outside = root / "ws", root / "outside"
    workspace.mkdir(parents=True)
    outside.mkdir()
    create_entries(case["files"], workspace, outside)
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
