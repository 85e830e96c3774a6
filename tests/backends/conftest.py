"""Fixtures shared by the state-file tests (test_state_files.py, test_state_faults.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

OUTSIDE_TEXT = "precious user data\n"


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    """A user's file outside the state dir, where planted symlinks point: it must stay as it is, and
    nothing may be created beside it."""
    path = tmp_path / "outside" / "user-file"
    path.parent.mkdir()
    path.write_text(OUTSIDE_TEXT)
    yield path
    assert path.read_text() == OUTSIDE_TEXT
    assert sorted(p.name for p in path.parent.iterdir()) == ["user-file"], "memwarm created a file outside"
