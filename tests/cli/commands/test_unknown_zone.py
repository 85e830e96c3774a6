"""A userTimezone that names no zone: OpenClaw falls back to the host zone without a word, which moves the
prelude's window of days; memwarm's prelude, scan and context say so on stderr, with the nearest zone
name, and `config check` offers the same "did you mean"."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memwarm_cli.exitcodes import ExitCode
from memwarm_cli.startup.prelude_settings import closest_zone_name
from tests.conftest import REPO_ROOT, RunCli, write_memory_note

AT = "2026-04-11T18:00:00Z"
WARNING = (
    'memwarm: warning: agents.defaults.userTimezone "America/Los_Angles" is not a time zone OpenClaw '
    'knows (did you mean "America/Los_Angeles"?); it falls back to the host zone (UTC)'
)


def _config(tmp_path: Path, zone: object) -> str:
    workspace = tmp_path / "ws"
    write_memory_note(workspace, "2026-04-11.md", "today\n")
    config = tmp_path / "openclaw.json"
    defaults = {} if zone is None else {"userTimezone": zone}
    config.write_text(
        json.dumps({"agents": {"defaults": defaults, "list": [{"id": "main", "workspace": str(workspace)}]}}),
        encoding="utf-8",
    )
    return str(config)


@pytest.mark.parametrize("command", [["prelude"], ["prelude", "--json"], ["scan"], ["context"]])
def test_a_misspelt_zone_is_named_with_the_nearest_one(
    run_cli: RunCli, tmp_path: Path, command: list[str]
) -> None:
    config = _config(tmp_path, "America/Los_Angles")
    result = run_cli(["--config", config, *command, "--at", AT])
    assert result.returncode == ExitCode.OK, result.stderr
    assert result.stderr.splitlines().count(WARNING) == 1, result.stderr
    assert "2026-04-11" in result.stdout  # the prelude is still what OpenClaw would give (host zone)
    quiet = run_cli(["--config", config, *command, "--at", AT, "-q"])
    assert "userTimezone" not in quiet.stderr and quiet.stdout == result.stdout


@pytest.mark.parametrize("zone", [None, "America/Los_Angeles", "america/los_angeles", "+05:30"])
def test_no_warning_for_a_known_or_missing_zone(run_cli: RunCli, tmp_path: Path, zone: str | None) -> None:
    result = run_cli(["--config", _config(tmp_path, zone), "prelude", "--at", AT])
    assert result.returncode == ExitCode.OK and "userTimezone" not in result.stderr, result.stderr


def test_a_zone_with_nothing_near_gets_no_guess(run_cli: RunCli, tmp_path: Path) -> None:
    result = run_cli(["--config", _config(tmp_path, "Mars/Olympus"), "prelude", "--at", AT])
    assert (
        'memwarm: warning: agents.defaults.userTimezone "Mars/Olympus" is not a time zone OpenClaw knows; '
        "it falls back to the host zone (UTC)"
    ) in result.stderr.splitlines()


def test_config_check_offers_the_same_guess(run_cli: RunCli, tmp_path: Path) -> None:
    result = run_cli(["--config", _config(tmp_path, "America/Los_Angles"), "config", "check"])
    assert (
        'agents.defaults.userTimezone: "America/Los_Angles" is not a time zone OpenClaw knows '
        '(did you mean "America/Los_Angeles"?); it falls back to the host zone (UTC)'
    ) in result.stdout, result.stdout


@pytest.mark.parametrize(
    ("typed", "meant"),
    [
        ("America/Los_Angles", "America/Los_Angeles"),
        ("europe/berlln", "Europe/Berlin"),
        ("Los_Angeles", "America/Los_Angeles"),  # the city alone
        ("Tokio", "Asia/Tokyo"),
        ("Mars/Olympus", None),
    ],
)
def test_closest_zone_name(typed: str, meant: str | None) -> None:
    assert closest_zone_name(typed) == meant


def test_the_zone_list_is_read_only_on_the_error_path() -> None:
    """A prelude with a well-spelt zone imports neither difflib nor lists the system's zones."""
    code = (
        "import sys\n"
        "from memwarm_cli.startup.prelude_settings import resolve_user_timezone, _zone_names_by_folded_name\n"
        "zone = resolve_user_timezone('America/Los_Angeles', 'UTC')\n"
        "from memwarm_cli.startup.prelude_settings import unknown_zone_warning\n"
        "assert unknown_zone_warning(zone) is None\n"
        "print('difflib' in sys.modules, _zone_names_by_folded_name.cache_info().currsize)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "0"]
