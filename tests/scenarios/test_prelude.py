"""`memwarm prelude` as a process: streams, exit codes, JSON shape, gate and error handling."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memwarm_cli.exitcodes import ExitCode
from tests.conftest import REPO_ROOT, RunCli

AT = "2026-04-11T18:00:00Z"


def write_config(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path]:
    """A JSON5 config with two agents (ops is the default) and their workspaces."""
    ops = tmp_path / "ops-ws"
    (ops / "memory").mkdir(parents=True)
    (ops / "memory" / "2026-04-11.md").write_text("ops today", encoding="utf-8")
    (ops / "memory" / "2026-04-10.md").write_text("ops yesterday", encoding="utf-8")
    dev = tmp_path / "dev-ws"
    (dev / "memory").mkdir(parents=True)
    (dev / "memory" / "2026-04-11.md").write_text("dev today", encoding="utf-8")
    config = write_config(
        tmp_path / "openclaw.json5",
        f"""// comments and trailing commas, as OpenClaw writes them
{{
  agents: {{
    defaults: {{ userTimezone: "America/Chicago", }},
    list: [
      {{ id: "Dev", workspace: "{dev}" }},
      {{ id: "ops", default: true, workspace: "{ops}" }},
    ],
  }},
}}
""",
    )
    return config, tmp_path


def test_default_agent_prelude_exact_text(run_cli: RunCli, setup: tuple[Path, Path]) -> None:
    config, _ = setup
    result = run_cli(["--config", str(config), "prelude", "--at", AT])
    assert result.returncode == 0
    assert result.stdout.startswith("[Startup context loaded by runtime]\n")
    assert (
        "ops today" in result.stdout and "ops yesterday" in result.stdout and "dev today" not in result.stdout
    )
    assert result.stdout.endswith("END_QUOTED_NOTES"), "nothing added when stdout is not a terminal"
    assert result.stderr == ""


def test_agent_option_normalises_the_id(run_cli: RunCli, setup: tuple[Path, Path]) -> None:
    config, _ = setup
    result = run_cli(["--config", str(config), "prelude", "--agent", "DEV", "--at", AT, "--json"])
    report = json.loads(result.stdout)
    assert result.returncode == 0
    assert report["agentId"] == "dev" and report["schema"] == 1
    assert "dev today" in report["prelude"]


def test_json_report_shape(run_cli: RunCli, setup: tuple[Path, Path]) -> None:
    config, tmp = setup
    result = run_cli(
        ["--config", str(config), "prelude", "--at", "1775930400000", "--action", "reset", "--json"]
    )
    report = json.loads(result.stdout)
    assert set(report) == {
        "schema",
        "openclaw",
        "agentId",
        "workspace",
        "at",
        "timezone",
        "action",
        "applied",
        "reason",
        "prelude",
    }
    assert report["at"] == "2026-04-11T18:00:00.000Z"
    assert report["timezone"] == "America/Chicago"
    assert (report["action"], report["applied"], report["reason"]) == ("reset", True, None)
    assert report["workspace"] == str(tmp / "ops-ws")


def test_unknown_agent_is_a_usage_error_listing_known_ones(run_cli: RunCli, setup: tuple[Path, Path]) -> None:
    config, _ = setup
    result = run_cli(["--config", str(config), "prelude", "--agent", "nobody", "--at", AT])
    assert result.returncode == ExitCode.USAGE
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]
    assert "nobody" in result.stderr and "dev" in result.stderr and "ops" in result.stderr


@pytest.mark.parametrize("bad_at", ["yesterday", "2026-04-11T18:00:00", "2026-13-01T00:00Z"])
def test_bad_at_is_a_usage_error(run_cli: RunCli, setup: tuple[Path, Path], bad_at: str) -> None:
    config, _ = setup
    result = run_cli(["--config", str(config), "prelude", "--at", bad_at])
    assert result.returncode == ExitCode.USAGE
    assert "--at" in result.stderr and "Traceback" not in result.stderr


def test_at_accepts_offsets(run_cli: RunCli, setup: tuple[Path, Path]) -> None:
    config, _ = setup
    result = run_cli(["--config", str(config), "prelude", "--at", "2026-04-11T13:00:00-05:00", "--json"])
    assert json.loads(result.stdout)["at"] == "2026-04-11T18:00:00.000Z"


def test_gate_not_applied_prints_nothing_and_says_why(run_cli: RunCli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "2026-04-11.md").write_text("x", encoding="utf-8")
    config = write_config(
        tmp_path / "c.json", '{"agents": {"defaults": {"startupContext": {"applyOn": ["new"]}}}}'
    )
    reset = run_cli(["--config", str(config), "prelude", "-w", str(ws), "--at", AT, "--action", "reset"])
    assert (reset.returncode, reset.stdout) == (0, "")
    assert "applyOn" in reset.stderr and "reset" in reset.stderr
    new = run_cli(["--config", str(config), "prelude", "-w", str(ws), "--at", AT, "--action", "new"])
    assert new.returncode == 0 and "x" in new.stdout


def test_no_memory_note_on_stderr_unless_quiet(run_cli: RunCli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    config = write_config(tmp_path / "c.json", "{}")
    loud = run_cli(["--config", str(config), "prelude", "-w", str(ws), "--at", AT])
    assert (loud.returncode, loud.stdout) == (0, "")
    assert "no daily memory" in loud.stderr and "2026-04-11" in loud.stderr
    quiet = run_cli(["--config", str(config), "prelude", "-w", str(ws), "--at", AT, "-q"])
    assert (quiet.returncode, quiet.stdout, quiet.stderr) == (0, "", "")


def test_missing_workspace_option_is_a_usage_error(run_cli: RunCli, tmp_path: Path) -> None:
    config = write_config(tmp_path / "c.json", "{}")
    result = run_cli(["--config", str(config), "prelude", "-w", str(tmp_path / "nope"), "--at", AT])
    assert result.returncode == ExitCode.USAGE and "not a directory" in result.stderr


def test_missing_configured_workspace_warns_and_exits_zero(run_cli: RunCli, tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "c.json", json.dumps({"agents": {"defaults": {"workspace": str(tmp_path / "gone")}}})
    )
    result = run_cli(["--config", str(config), "prelude", "--at", AT])
    assert (result.returncode, result.stdout) == (0, "")
    assert "does not exist" in result.stderr


@pytest.mark.parametrize(
    "content",
    [b"\x00\xff\xfe garbage \x80", b"{ agents: { list: [ }", b"[1, 2, 3]", b"\xef\xbb\xbf{ broken"],
    ids=["random-bytes", "unbalanced", "top-level-array", "bom-broken"],
)
def test_broken_config_is_exit_3_one_line(run_cli: RunCli, tmp_path: Path, content: bytes) -> None:
    config = tmp_path / "openclaw.json"
    config.write_bytes(content)
    result = run_cli(["--config", str(config), "prelude", "--at", AT])
    assert result.returncode == ExitCode.CONFIG
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("memwarm: error: ") and str(config) in lines[0]
    assert "Traceback" not in result.stderr


def test_parse_error_has_line_and_column(run_cli: RunCli, tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "openclaw.json5", '{\n  agents: {\n    defaults: { userTimezone: "UTC" ]\n  }\n}\n'
    )
    result = run_cli(["--config", str(config), "prelude", "--at", AT])
    assert result.returncode == ExitCode.CONFIG
    assert result.stderr.startswith(f"memwarm: error: {config}:3:")


def test_directory_as_config_and_missing_explicit_config(run_cli: RunCli, tmp_path: Path) -> None:
    as_dir = run_cli(["--config", str(tmp_path), "prelude", "--at", AT])
    assert as_dir.returncode == ExitCode.CONFIG and "Traceback" not in as_dir.stderr
    missing = run_cli(["--config", str(tmp_path / "none.json5"), "prelude", "--at", AT])
    assert missing.returncode == ExitCode.CONFIG and "none.json5" in missing.stderr


def test_missing_default_config_means_defaults(run_cli: RunCli, tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    result = run_cli(["prelude", "--at", AT, "--json"], env={"OPENCLAW_STATE_DIR": str(state)})
    report = json.loads(result.stdout)
    assert result.returncode == 0
    assert report["agentId"] == "main" and report["timezone"] == "UTC"


def test_bad_action_is_a_usage_error(run_cli: RunCli, setup: tuple[Path, Path]) -> None:
    config, _ = setup
    result = run_cli(["--config", str(config), "prelude", "--action", "restart", "--at", AT])
    assert result.returncode == ExitCode.USAGE


def test_lone_surrogate_text_vs_json(run_cli: RunCli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "2026-04-11.md").write_text("x" * 79 + "🚀tail", encoding="utf-8")
    config = write_config(
        tmp_path / "c.json",
        '{"agents": {"defaults": {"userTimezone": "UTC", "startupContext": {"maxFileChars": 80}}}}',
    )
    text = run_cli(["--config", str(config), "prelude", "-w", str(ws), "--at", AT])
    assert (
        text.stdout_bytes.count("\ufffd".encode()) == 1
        and "x" * 79 + "\ufffd\n...[truncated]..." in text.stdout
    )
    as_json = run_cli(["--config", str(config), "prelude", "-w", str(ws), "--at", AT, "--json"])
    assert "\\ud83d\\n...[truncated]..." in as_json.stdout
    assert json.loads(as_json.stdout)["prelude"].count("\ud83d") == 1


def test_python_dash_m_works(setup: tuple[Path, Path], tmp_path: Path) -> None:
    import subprocess
    import sys

    config, _ = setup
    env = {**os.environ, "HOME": str(tmp_path)}
    proc = subprocess.run(
        [sys.executable, "-m", "memwarm_cli", "--config", str(config), "prelude", "--at", AT],
        capture_output=True,
        text=True,
        env=env,
        cwd=REPO_ROOT,
    )
    assert proc.returncode == 0 and "ops today" in proc.stdout


@pytest.mark.parametrize(
    "at",
    [
        "9999999999999999",
        "-9999999999999999",
        "253402300800000",
        "0001-01-01T00:00:00+05:00",
        "9999-12-31T23:59:59-05:00",
        "8640000000000001",
        "1" * 400,
    ],
)
def test_out_of_range_at_is_a_usage_error(run_cli: RunCli, setup: tuple[Path, Path], at: str) -> None:
    config, _ = setup
    for command in ("prelude", "scan"):
        result = run_cli(["--config", str(config), command, "--at", at])
        assert result.returncode == ExitCode.USAGE, result.stderr
        assert "out of range" in result.stderr and "Traceback" not in result.stderr


def test_overlong_workspace_paths_do_not_crash(run_cli: RunCli, tmp_path: Path) -> None:
    long_dir = "/" + "a" * 5000
    config = write_config(tmp_path / "c.json", json.dumps({"agents": {"defaults": {"workspace": long_dir}}}))
    configured = run_cli(["--config", str(config), "prelude", "--at", AT])
    assert (configured.returncode, configured.stdout) == (0, "")
    assert "does not exist" in configured.stderr and "Traceback" not in configured.stderr
    flag = run_cli(["--config", str(config), "scan", "--at", AT, "-w", long_dir])
    assert flag.returncode == ExitCode.USAGE and "Traceback" not in flag.stderr


def test_host_zone_comes_from_the_configs_environment(run_cli: RunCli, tmp_path: Path) -> None:
    config = write_config(
        tmp_path / "c.json",
        json.dumps(
            {"env": {"vars": {"TZ": "Asia/Tokyo"}}, "agents": {"defaults": {"userTimezone": "Mars/Olympus"}}}
        ),
    )
    ws = tmp_path / "ws"
    ws.mkdir()
    # env.vars never override a non-empty variable, so the harness's TZ=UTC is emptied here.
    args = ["--config", str(config), "prelude", "-w", str(ws), "--at", AT, "--json"]
    assert json.loads(run_cli(args, env={"TZ": ""}).stdout)["timezone"] == "Asia/Tokyo"
    assert json.loads(run_cli(args).stdout)["timezone"] == "UTC"
