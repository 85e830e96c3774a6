"""The workspace's setup state (spec bootstrap-context.md §3.3 step 2) is read without ever blocking."""

from __future__ import annotations

import os
from pathlib import Path

from memwarm_cli.bootstrap.workspace_state import LEGACY_STATE_FILE, STATE_FILE, read_setup_state


def test_completed_setup_is_read(tmp_path: Path) -> None:
    (tmp_path / STATE_FILE).write_text('{"setupCompletedAt": "2026-11-30T10:00:00Z"}')
    state = read_setup_state(str(tmp_path))
    assert state.completed and state.source == STATE_FILE and state.marker == "2026-11-30T10:00:00Z"


def test_a_fifo_or_directory_state_file_is_a_read_error_not_a_hang(tmp_path: Path) -> None:
    """A plain open() of a FIFO waits for a writer forever; it must count as a read error (not
    completed, decided by that file), as a directory does."""
    os.mkfifo(tmp_path / STATE_FILE)
    (tmp_path / LEGACY_STATE_FILE).parent.mkdir()
    (tmp_path / LEGACY_STATE_FILE).write_text('{"setupCompletedAt": "2026-11-30T10:00:00Z"}')
    assert read_setup_state(str(tmp_path)) == (False, STATE_FILE, None)
    os.unlink(tmp_path / STATE_FILE)
    (tmp_path / STATE_FILE).mkdir()
    assert read_setup_state(str(tmp_path)) == (False, STATE_FILE, None)


def test_an_oversized_state_file_is_a_read_error(tmp_path: Path) -> None:
    (tmp_path / STATE_FILE).write_text('{"setupCompletedAt": "x"}' + " " * (1024 * 1024))
    assert read_setup_state(str(tmp_path)) == (False, STATE_FILE, None)
