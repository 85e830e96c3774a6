"""Running qmd commands: timeouts."""

from __future__ import annotations

from pathlib import Path

from memwarm_cli.backends import process


def test_run_command_clamps_a_timeout_poll_would_refuse(tmp_path: Path) -> None:
    """Above 2**31-1 ms poll() raised "timeout is too large"; Node's setTimeout caps there too."""
    assert process.clamp_timeout_ms(3e9) == process.clamp_timeout_ms(float("inf")) == 2**31 - 1
    assert process.clamp_timeout_ms(0.2) == 1
    assert process.timeout_ms_from_seconds(1e308) == 2**31 - 1
    assert process.timeout_ms_from_seconds(0.3) == 300
    result = process.run_command(
        "true",
        [],
        env={"PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        timeout_ms=10**15,
        token=process.CancelToken(),
    )
    assert (result.exit_code, result.timeout_ms) == (0, 2**31 - 1)
