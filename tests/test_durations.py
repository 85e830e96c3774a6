"""Duration strings (memory-backends.md §1.3)."""

from __future__ import annotations

import pytest

from memwarm_cli.durations import parse_duration_ms


def test_durations() -> None:
    assert parse_duration_ms("5", "m") == 300000
    assert parse_duration_ms("1.5s") == 1500
    assert parse_duration_ms("0") == 0
    with pytest.raises(ValueError, match="empty"):
        parse_duration_ms(" ")
    with pytest.raises(ValueError, match="too small"):
        parse_duration_ms("0.1ms")
