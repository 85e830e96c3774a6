"""A config that does not parse: one line naming the file, line and column, and what to fix (exit 3),
through the real command."""

from __future__ import annotations

from pathlib import Path

import pytest

from memwarm_cli.exitcodes import ExitCode
from tests.conftest import RunCli


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{\n  agents: { defaults: { userTimezone: "Europe/Berlin\n  } }\n}\n',
            "2:53: JSON5: invalid character '\\n' (unterminated string starting at 2:39)",
        ),
        (
            "{ agents: { list: [ { id: 'bob's' } ] } }",
            "1:32: JSON5: invalid character 's' (a ' inside a '-quoted string ends it: put a backslash "
            'before it, or quote the string with ")',
        ),
        ("{ a: 1 b: 2 }", "1:8: JSON5: invalid character 'b' (missing comma before it?)"),
    ],
)
def test_a_json5_error_says_what_to_fix(run_cli: RunCli, tmp_path: Path, text: str, message: str) -> None:
    config = tmp_path / "openclaw.json5"
    config.write_text(text, encoding="utf-8")
    result = run_cli(["--config", str(config), "config", "path"])
    assert result.returncode == ExitCode.CONFIG and result.stdout == ""
    assert result.stderr == f"memwarm: error: {config}:{message}\n"
