"""File locks."""

from __future__ import annotations

from pathlib import Path

from memwarm_cli.backends.state.locks import FileLock
from memwarm_cli.backends.state.state_files import StatePath


def test_file_lock_excludes_a_second_holder(tmp_path: Path) -> None:
    path = StatePath.of(tmp_path, tmp_path / "x" / "lock")
    first, second = FileLock(path), FileLock(path)
    assert first.try_acquire()
    assert not second.try_acquire()
    first.release()
    assert second.try_acquire()
    second.release()
