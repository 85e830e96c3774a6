"""The README's exit-code table and the ExitCode enum are the same table."""

from __future__ import annotations

import re

from memwarm_cli.exitcodes import ExitCode
from tests.conftest import REPO_ROOT


def test_readme_table_matches_enum() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Exit codes", 1)[1].split("\n## ", 1)[0]
    documented = {int(code) for code in re.findall(r"^\| (\d+) \|", section, flags=re.MULTILINE)}
    assert documented == {int(code) for code in ExitCode}


def test_every_code_is_distinct() -> None:
    # An IntEnum member reusing a value becomes a silent alias (OUTPUT = 4 would be DEGRADED).
    assert len(ExitCode.__members__) == len(list(ExitCode))


def test_an_unwritable_stdout_has_its_own_code() -> None:
    from memwarm_cli.errors import OutputError

    assert int(ExitCode.OUTPUT) == 5
    assert OutputError("x").exit_code is ExitCode.OUTPUT
