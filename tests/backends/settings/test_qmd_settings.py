"""The resolved qmd block (memory-backends.md §4)."""

from __future__ import annotations

import pytest

from memwarm_cli.backends.settings.qmd_settings import split_command
from memwarm_cli.durations import parse_duration_ms
from tests.backends.support import resolve


def test_qmd_defaults_and_collections() -> None:
    settings = resolve({"memory": {"backend": "qmd"}})
    qmd = settings.qmd
    assert qmd is not None
    assert qmd.command == "qmd"
    assert qmd.search_mode == "search"
    assert qmd.update.command_timeout_ms == 30000
    assert qmd.update.update_timeout_ms == 120000
    assert qmd.update.embed_timeout_ms == 120000
    assert qmd.update.interval_ms == 300000
    assert [(c.name, str(c.path), c.pattern) for c in qmd.collections] == [
        ("memory-root-main", "/ws/main", "MEMORY.md"),
        ("memory-dir-main", "/ws/main/memory", "**/*.md"),
    ]


def test_commands_keep_their_first_token() -> None:
    assert split_command('"/opt/my qmd/qmd" --x') == "/opt/my qmd/qmd"
    assert split_command("qmd 'unclosed") == "qmd"


@pytest.mark.parametrize("raw", ["9" * 400, "9" * 305 + "d", "1" + "0" * 308 + "m"])
def test_overflowing_duration_is_a_parse_error_and_falls_back(raw: str) -> None:
    """A run of digits too large for a double must not crash (math.floor(inf) raised OverflowError)."""
    with pytest.raises(ValueError, match="too large"):
        parse_duration_ms(raw, "m")
    cfg = {"memory": {"backend": "qmd", "qmd": {"update": {"interval": raw, "embedInterval": raw}}}}
    qmd = resolve(cfg).qmd
    assert (qmd.update.interval_ms, qmd.update.embed_interval_ms) == (300_000, 3_600_000)
