"""Small things a newcomer trips over in the plain views and option errors, through the real command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memwarm_cli.errors import InstantError
from memwarm_cli.exitcodes import ExitCode
from memwarm_cli.startup.clock import parse_instant
from tests.conftest import RunCli, write_memory_note


def _config(tmp_path: Path, memory: dict[str, object] | None = None) -> str:
    workspace = tmp_path / "ws"
    write_memory_note(workspace, "2026-04-11.md", "today\n")
    data: dict[str, object] = {"agents": {"list": [{"id": "main", "workspace": str(workspace)}]}}
    if memory is not None:
        data["memory"] = memory
    config = tmp_path / "openclaw.json"
    config.write_text(json.dumps(data), encoding="utf-8")
    return str(config)


@pytest.mark.parametrize(("memory", "shown"), [(None, False), ({"backend": "qmd"}, True)])
def test_config_path_shows_a_qmd_index_only_for_an_agent_on_qmd(
    run_cli: RunCli, tmp_path: Path, memory: dict[str, object] | None, shown: bool
) -> None:
    config = _config(tmp_path, memory)
    result = run_cli(["--config", config, "config", "path"])
    assert result.returncode == ExitCode.OK, result.stderr
    assert ("  qmd index:  " in result.stdout) is shown, result.stdout
    data = json.loads(run_cli(["--config", config, "config", "path", "--json"]).stdout)
    assert data["agents"][0]["indexPath"].endswith("index.sqlite")  # JSON keeps the path either way


def test_max_age_names_the_forms_it_takes(run_cli: RunCli, tmp_path: Path) -> None:
    result = run_cli(["--config", _config(tmp_path, {"backend": "qmd"}), "status", "--max-age", "2x"])
    assert result.returncode == ExitCode.USAGE
    assert result.stderr == (
        "memwarm: error: --max-age: invalid duration: 2x; use a number with a unit, ms, s, m, h or d (30m, "
        "1.5h, 2d), or a bare number of minutes\n"
    )


@pytest.mark.parametrize("command", ["prelude", "scan", "context"])
def test_a_date_alone_for_at_says_what_it_lacks(run_cli: RunCli, tmp_path: Path, command: str) -> None:
    result = run_cli(["--config", _config(tmp_path), command, "--at", "2026-12-05"])
    assert result.returncode == ExitCode.USAGE and result.stdout == ""
    assert result.stderr == (
        'memwarm: error: --at: the instant "2026-12-05" is a date without a time: the notes picked depend '
        "on the instant (the agent's local dates and the UTC date); give a time with an offset: "
        "2026-12-05T12:00:00Z\n"
    )
    suggested = run_cli(["--config", _config(tmp_path), command, "--at", "2026-12-05T12:00:00Z"])
    assert suggested.returncode == ExitCode.OK, suggested.stderr


def test_the_core_words_a_bad_value_and_the_cli_names_its_option(run_cli: RunCli, tmp_path: Path) -> None:
    """The core's error says what is wrong in words (a library caller has no --at); the CLI puts the
    option that gave the value in front."""
    with pytest.raises(InstantError) as raised:
        parse_instant("soon")
    assert str(raised.value).startswith('cannot read the instant "soon"')
    missing = tmp_path / "no-such-workspace"
    result = run_cli(["--config", _config(tmp_path), "prelude", "--workspace", str(missing)])
    assert result.returncode == ExitCode.USAGE
    assert result.stderr == f"memwarm: error: --workspace: the workspace {missing} is not a directory\n"
