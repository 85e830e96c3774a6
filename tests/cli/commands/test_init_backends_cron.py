"""A cron job never ends silently when nothing was warmed (issue 29): `init-backends -q` prints one line
on stderr, `init-backends: no agent could be warmed: <why>; <what to do>`, and exits with a code a cron
wrapper tells from success; `-q` stays silent when the agents are armed or fresh."""

from __future__ import annotations

import json
from pathlib import Path

from memwarm_cli.exitcodes import ExitCode
from tests.backends.support import SEARCH_OFF, fake_scenario
from tests.conftest import RunCli

HEAD = "init-backends: no agent could be warmed: "


def _one_line(stderr: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(HEAD), stderr
    return lines[0]


def _config(tmp_path: Path, data: dict[str, object]) -> str:
    path = tmp_path / "openclaw.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def _empty_path(tmp_path: Path) -> str:
    """A PATH with nothing on it: no openclaw or qmd of this machine leaks in."""
    empty = tmp_path / "empty-bin"
    empty.mkdir(exist_ok=True)
    return str(empty)


def test_no_config_anywhere(run_cli: RunCli, tmp_path: Path) -> None:
    result = run_cli(["init-backends", "-q"], env={"PATH": _empty_path(tmp_path)})
    assert (result.returncode, result.stdout) == (ExitCode.NOTHING_WARMED, "")
    line = _one_line(result.stderr)
    assert "no config file found" in line and "--config or OPENCLAW_CONFIG_PATH" in line
    # Without -q the summary says it (every agent skipped), with the same exit code.
    loud = run_cli(["init-backends"], env={"PATH": _empty_path(tmp_path)})
    assert loud.returncode == ExitCode.NOTHING_WARMED and HEAD not in loud.stderr


def test_a_2026_9_6_config_without_qmd_keys_left_cold(run_cli: RunCli, tmp_path: Path) -> None:
    """The builtin index, but no openclaw here to build it: every agent stays cold (exit 1)."""
    config = _config(tmp_path, {"agents": {"ownership": "explicit", "entries": {"main": {}}}})
    result = run_cli(["--config", config, "init-backends", "-q"], env={"PATH": _empty_path(tmp_path)})
    assert (result.returncode, result.stdout) == (ExitCode.FINDINGS, "")
    line = _one_line(result.stderr)
    assert '1 cold ("main")' in line and "OpenClaw is not installed" in line and "npm install" in line


def test_a_2026_9_6_config_with_qmd_keys_is_retired(run_cli: RunCli, tmp_path: Path) -> None:
    config = _config(tmp_path, {"memory": {"backend": "qmd"}})
    args = ["--config", config, "--openclaw", "2026.9.6", "init-backends", "-q"]
    result = run_cli(args, env={"PATH": _empty_path(tmp_path)})
    assert (result.returncode, result.stdout) == (ExitCode.RETIRED, "")
    line = _one_line(result.stderr)
    assert "OpenClaw 2026.9.6 (P3) has no qmd backend" in line and "openclaw doctor --fix" in line


def test_a_config_the_release_refuses(run_cli: RunCli, tmp_path: Path) -> None:
    config = _config(tmp_path, {"agents": {"entries": {"main": {"nonsense": 1}}}})
    result = run_cli(["--config", config, "init-backends", "-q"], env={"PATH": _empty_path(tmp_path)})
    assert result.returncode == ExitCode.CONFIG and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("memwarm: error: ") and "refuses this config" in line


def test_every_agent_skipped(run_cli: RunCli, tmp_path: Path) -> None:
    config = _config(
        tmp_path, {"agents": {"list": [{"id": "main"}, {"id": "ops", "memorySearch": {"enabled": False}}]}}
    )
    result = run_cli(["--config", config, "init-backends", "-q"], env={"PATH": _empty_path(tmp_path)})
    assert (result.returncode, result.stdout) == (ExitCode.NOTHING_WARMED, "")
    line = _one_line(result.stderr)
    assert 'builtin: "main"; memory search disabled: "ops"' in line and 'memory.backend to "qmd"' in line
    # A dry run plans; it is no run that warmed nothing.
    planned = run_cli(["--config", config, "init-backends", "-q", "--dry-run"])
    assert planned.returncode == ExitCode.OK and planned.stderr == ""


def test_quiet_stays_silent_when_agents_are_armed_or_fresh(tmp_path: Path) -> None:
    scenario, state = fake_scenario(tmp_path, agents=("main", "off"), entries=SEARCH_OFF)
    env = {"FAKE_QMD_DIR": str(state)}
    armed = scenario.run(["-q"], extra_env=env)  # main armed, off skipped
    assert (armed.returncode, armed.stderr) == (ExitCode.OK, "")
    fresh = scenario.run(["-q"], extra_env=env)  # nothing changed: main fresh
    assert (fresh.returncode, fresh.stderr) == (ExitCode.OK, "")
    _, report = scenario.run_json([], extra_env=env)
    assert [a["status"] for a in report["agents"]] == ["fresh", "skipped"]


def test_the_installed_command_says_it_too(tmp_path: Path) -> None:
    scenario, _ = fake_scenario(tmp_path)
    scenario.config["memory"]["backend"] = "builtin"
    scenario.write_config()
    result = scenario.run(["-q"], process=True)
    assert result.returncode == ExitCode.NOTHING_WARMED
    assert _one_line(result.stderr).endswith("or remove this job")
