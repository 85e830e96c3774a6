"""`memwarm config path | check | show` through the installed CLI."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memwarm_cli.configview.show_view import drop_nulls
from tests.conftest import RunCli

CONFIG = """// two agents, qmd
{
  agents: {
    defaults: {
      workspace: "~/ws",
      userTimezone: "America/Chicago",
      startupContext: {dailyMemoryDays: 30, maxFileChars: 500},
    },
    list: [
      {id: "main", default: true},
      {id: "ops", workspace: "~/ops", memorySearch: {extraPaths: ["notes"]}},
    ],
  },
  memory: {backend: "qmd", qmd: {command: "sh", paths: [{path: "docs", name: "Docs"}]}},
}
"""


@pytest.fixture
def setup(home_dir: Path) -> Path:
    for ws in ("ws", "ops"):
        (home_dir / ws / "memory").mkdir(parents=True)
    cfg = home_dir / "openclaw.json5"
    cfg.write_text(CONFIG)
    return cfg


# -- path ------------------------------------------------------------------------------------------------


def test_path_text_and_json(run_cli: RunCli, setup: Path, home_dir: Path) -> None:
    result = run_cli(["--config", str(setup), "config", "path"])
    assert result.returncode == 0, result.stderr
    assert f"config:     {setup} (--config; exists)" in result.stdout
    assert f"state dir:  {home_dir / '.openclaw'} (default)" in result.stdout
    assert "agent main (default)" in result.stdout and "agent ops\n" in result.stdout
    data = json.loads(run_cli(["--config", str(setup), "config", "path", "--json"]).stdout)
    assert data["config"] == {"path": str(setup), "reason": "--config", "exists": True, "explicit": True}
    assert [a["agentId"] for a in data["agents"]] == ["main", "ops"]
    ops = data["agents"][1]
    assert ops["workspace"] == str(home_dir / "ops") and ops["workspaceExists"] is True
    assert ops["backend"] == "qmd"
    assert ops["indexPath"] == str(home_dir / ".openclaw/agents/ops/qmd/xdg-cache/qmd/index.sqlite")


def test_path_by_environment(run_cli: RunCli, home_dir: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    data = json.loads(run_cli(["config", "path", "--json"], env={"OPENCLAW_STATE_DIR": str(state)}).stdout)
    assert data["config"]["path"] == str(state / "openclaw.json")
    assert data["config"]["reason"] == "state dir (OPENCLAW_STATE_DIR)" and data["config"]["exists"] is False
    assert data["stateDir"] == {"path": str(state), "reason": "OPENCLAW_STATE_DIR"}
    assert data["agents"][0]["workspace"] == str(home_dir / ".openclaw" / "workspace")


def test_path_explicit_missing_is_exit_3(run_cli: RunCli, tmp_path: Path) -> None:
    missing = tmp_path / "nope.json"
    result = run_cli(["config", "path"], env={"OPENCLAW_CONFIG_PATH": str(missing)})
    assert result.returncode == 3
    assert result.stderr.strip().splitlines() == [
        f"memwarm: error: {missing}: config file not found (given by OPENCLAW_CONFIG_PATH)"
    ]
    assert result.stdout == ""


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_path_config_error_leaves_stdout_empty(run_cli: RunCli, tmp_path: Path, json_flag: list[str]) -> None:
    cfg = tmp_path / "bad.json5"
    cfg.write_text("{a: }")
    result = run_cli(["--config", str(cfg), "config", "path", *json_flag])
    assert result.returncode == 3
    assert result.stdout == ""
    assert result.stderr == f"memwarm: error: {cfg}:1:5: JSON5: invalid character '}}'\n"


# -- check -----------------------------------------------------------------------------------------------


def test_check_findings_and_exit_1(run_cli: RunCli, setup: Path) -> None:
    result = run_cli(["--config", str(setup), "config", "check"])
    assert result.returncode == 1
    assert result.stdout == (
        f"{setup}:7:24: error: agents.defaults.startupContext.dailyMemoryDays: "
        "30 is out of range: must be between 1 and 14\n"
    )
    assert result.stderr == f"memwarm: {setup}: 1 error, 0 warnings\n"
    quiet = run_cli(["--config", str(setup), "config", "check", "-q"])
    assert quiet.stderr == "" and quiet.stdout == result.stdout


def test_check_json(run_cli: RunCli, setup: Path) -> None:
    result = run_cli(["--config", str(setup), "config", "check", "--json"])
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert (data["errors"], data["warnings"], data["ok"], data["strict"]) == (1, 0, False, False)
    assert data["findings"] == [
        {
            "file": str(setup),
            "line": 7,
            "column": 24,
            "severity": "error",
            "path": "agents.defaults.startupContext.dailyMemoryDays",
            "message": "30 is out of range: must be between 1 and 14",
        }
    ]


def test_check_warnings_and_strict(run_cli: RunCli, home_dir: Path) -> None:
    cfg = home_dir / "c.yaml"
    cfg.write_text("agents:\n  list:\n    - id: Ops Team\n      workspace: ~/ops\n")
    (home_dir / "ops" / "memory").mkdir(parents=True)
    result = run_cli(["--config", str(cfg), "config", "check"])
    assert result.returncode == 0
    assert result.stdout == f'{cfg}:3:7: warning: agents.list[0].id: id "Ops Team" is used as "ops-team"\n'
    strict = run_cli(["--config", str(cfg), "config", "check", "--strict"])
    assert strict.returncode == 1 and strict.stdout == result.stdout
    data = json.loads(run_cli(["--config", str(cfg), "config", "check", "--strict", "--json"]).stdout)
    assert (data["ok"], data["warnings"], data["strict"]) == (False, 1, True)


def test_check_clean_is_exit_0(run_cli: RunCli, home_dir: Path) -> None:
    (home_dir / ".openclaw" / "workspace" / "memory").mkdir(parents=True)
    cfg = home_dir / ".openclaw" / "openclaw.json"
    cfg.write_text('{"agents": {"defaults": {"userTimezone": "UTC"}}}')
    result = run_cli(["config", "check", "--strict"])
    assert (result.returncode, result.stdout) == (0, "")
    assert result.stderr == f"memwarm: {cfg}: 0 errors, 0 warnings\n"


def test_check_without_config(run_cli: RunCli, home_dir: Path) -> None:
    result = run_cli(["config", "check"])
    assert result.returncode == 0 and result.stdout == ""
    assert "no config file" in result.stderr


BROKEN = {
    "c.json5": ("{\n  agents: {\n    list: [\n      {id: 'a'}\n      {id: 'b'},\n    ],\n  },\n}\n", 5, 7),
    "c.json": ('{\n  "agents": {\n    "list": [1, 2,, 3]\n  }\n}\n', 3, 19),
    "c.yaml": ("agents:\n  list:\n    - id: a\n  defaults: [\n", 5, 1),
    "c.toml": ("[agents]\nlist = [\n  { id = 'a' },\n  { id = }\n]\n", 4, 10),
}


@pytest.mark.parametrize("name", list(BROKEN))
@pytest.mark.parametrize("command", [["config", "check"], ["config", "show"], ["config", "path", "--json"]])
def test_broken_file_is_exit_3_with_position(
    run_cli: RunCli, home_dir: Path, name: str, command: list[str]
) -> None:
    text, line, column = BROKEN[name]
    cfg = home_dir / name
    cfg.write_text(text)
    result = run_cli(["--config", str(cfg), *command])
    assert result.returncode == 3, result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert lines[0].startswith(f"memwarm: error: {cfg}:{line}:{column}: ")
    assert result.stdout == ""


def test_include_errors_are_findings(run_cli: RunCli, home_dir: Path) -> None:
    (home_dir / ".openclaw" / "workspace" / "memory").mkdir(parents=True)
    cfg = home_dir / "c.json5"
    cfg.write_text("{\n  agents: {$include: 'missing.json5'},\n}\n")
    result = run_cli(["--config", str(cfg), "config", "check"])
    assert result.returncode == 1
    assert result.stdout == (
        f"{cfg}:2:12: error: agents.$include: Failed to read include file: missing.json5 "
        f"(resolved: {home_dir / 'missing.json5'})\n"
    )


def test_include_error_elsewhere_is_exit_3(run_cli: RunCli, home_dir: Path) -> None:
    cfg = home_dir / "c.json5"
    cfg.write_text("{\n  agents: {$include: 'missing.json5'},\n}\n")
    result = run_cli(["--config", str(cfg), "config", "show"])
    assert result.returncode == 3
    assert result.stderr == (
        f"memwarm: error: {cfg}:2:12: Failed to read include file: missing.json5 "
        f"(resolved: {home_dir / 'missing.json5'})\n"
    )


# -- show ------------------------------------------------------------------------------------------------


def _show(run_cli: RunCli, cfg: Path, *args: str) -> str:
    result = run_cli(["--config", str(cfg), "config", "show", *args])
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_show_formats_round_trip(run_cli: RunCli, setup: Path) -> None:
    as_json = json.loads(_show(run_cli, setup, "--format", "json"))
    assert json.loads(_show(run_cli, setup, "--json")) == as_json
    as_yaml = yaml.safe_load(_show(run_cli, setup, "--format", "yaml"))
    assert yaml.safe_load(_show(run_cli, setup)) == as_yaml
    as_toml = tomllib.loads(_show(run_cli, setup, "--format", "toml"))
    assert as_yaml == as_json
    assert as_toml == drop_nulls(as_json)
    assert "null" not in _show(run_cli, setup, "--format", "toml")


def test_show_content(run_cli: RunCli, setup: Path, home_dir: Path) -> None:
    data: dict[str, Any] = json.loads(_show(run_cli, setup, "--json"))
    main, ops = data["agents"]
    assert (main["agentId"], main["default"], main["workspace"]) == ("main", True, str(home_dir / "ws"))
    assert main["timezone"] == {
        "configured": "America/Chicago",
        "used": "America/Chicago",
        "fellBack": False,
        "reason": None,
    }
    limits = main["startupContext"]["limits"]
    assert limits["dailyMemoryDays"] == {
        "value": 14,
        "source": "clamped",
        "configured": 30,
        "note": "clamped from 30",
    }
    assert limits["maxFileChars"]["value"] == 500 and limits["maxFileChars"]["source"] == "config"
    assert limits["maxTotalChars"] == {"value": 2800, "source": "default", "configured": None, "note": None}
    assert main["startupContext"]["applies"] == {"new": True, "reset": True}
    assert main["backend"]["backend"] == "qmd" and main["backend"]["source"] == "memory.backend"
    assert ops["memorySearch"]["extraPaths"] == ["notes"]
    names = [c["name"] for c in ops["qmd"]["collections"]]
    assert names == ["memory-root-ops", "memory-dir-ops", "docs-ops", "custom-2-ops"]
    assert ops["qmd"]["command"] == "sh"
    assert ops["qmdPaths"]["indexPath"] == str(
        home_dir / ".openclaw/agents/ops/qmd/xdg-cache/qmd/index.sqlite"
    )


def test_show_one_agent_and_unknown_agent(run_cli: RunCli, setup: Path) -> None:
    data = json.loads(_show(run_cli, setup, "--json", "--agent", "OPS"))
    assert [a["agentId"] for a in data["agents"]] == ["ops"]
    result = run_cli(["--config", str(setup), "config", "show", "--agent", "nobody"])
    assert result.returncode == 2
    assert result.stderr == 'memwarm: error: unknown agent "nobody" (known agents: main, ops)\n'


def test_show_bad_format_is_usage_error(run_cli: RunCli, setup: Path) -> None:
    result = run_cli(["--config", str(setup), "config", "show", "--format", "xml"])
    assert result.returncode == 2
    assert result.stderr == 'memwarm: error: --format must be one of yaml, json, toml, not "xml"\n'


@pytest.mark.parametrize("fmt", ["yaml", "toml", " YAML "])
def test_show_json_with_another_format_is_usage_error(run_cli: RunCli, setup: Path, fmt: str) -> None:
    result = run_cli(["--config", str(setup), "config", "show", "--json", "--format", fmt])
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr == "memwarm: error: --json and --format exclude each other\n"


def test_show_json_with_format_json_is_json(run_cli: RunCli, setup: Path) -> None:
    result = run_cli(["--config", str(setup), "config", "show", "--json", "--format", "json"])
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(_show(run_cli, setup, "--json"))


def test_show_odd_values_round_trip(run_cli: RunCli, home_dir: Path) -> None:
    cfg = home_dir / "c.json5"
    cfg.write_text(
        "{agents: {defaults: {userTimezone: 5, startupContext: {dailyMemoryDays: NaN, maxFileBytes: '5'}},"
        " list: [{id: 'a', memorySearch: {enabled: false}}]}}"
    )
    as_json = json.loads(_show(run_cli, cfg, "--json"))
    agent = as_json["agents"][0]
    assert agent["memorySearch"] is None and agent["qmd"] is None and agent["backend"]["backend"] is None
    assert agent["startupContext"]["limits"]["dailyMemoryDays"]["configured"] == "NaN"
    assert yaml.safe_load(_show(run_cli, cfg, "--format", "yaml")) == as_json
    assert tomllib.loads(_show(run_cli, cfg, "--format", "toml")) == drop_nulls(as_json)


# -- never a traceback -----------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=15,
)


def _assert_clean(result: Any) -> None:
    assert "Traceback" not in result.stderr
    if result.returncode == 3:
        assert len(result.stderr.splitlines()) == 1 and result.stderr.startswith("memwarm: error: ")
        return
    assert result.returncode in (0, 1), result.stderr
    for line in result.stdout.splitlines():
        assert ": error: " in line or ": warning: " in line


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=120), st.sampled_from(["c.json5", "c.yaml", "c.toml"]))
def test_random_bytes_through_the_cli(run_cli: RunCli, home_dir: Path, data: bytes, name: str) -> None:
    cfg = home_dir / name
    cfg.write_bytes(data)
    _assert_clean(run_cli(["--config", str(cfg), "config", "check"]))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(json_values | st.fixed_dictionaries({"agents": json_values, "memory": json_values}))
def test_random_json_through_the_cli(run_cli: RunCli, home_dir: Path, value: Any) -> None:
    cfg = home_dir / "c.json"
    cfg.write_text(json.dumps(value))
    _assert_clean(run_cli(["--config", str(cfg), "config", "check"]))
    show = run_cli(["--config", str(cfg), "config", "show", "--format", "toml"])
    assert "Traceback" not in show.stderr and show.returncode in (0, 3), show.stderr


# -- numbers JS reads as Infinity --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "template", "check_rc", "read_rc"),
    [
        ("c.json5", "{{agents: {{defaults: {{startupContext: {{maxFileChars: {n}}}}}}}}}", 1, 0),
        ("c.yaml", "agents:\n  defaults:\n    startupContext:\n      maxFileChars: {n}\n", 1, 0),
        ("c.toml", "[agents.defaults.startupContext]\nmaxFileChars = {n}\n", 3, 3),
    ],
)
def test_integer_too_long_for_python_int(
    run_cli: RunCli, tmp_path: Path, name: str, template: str, check_rc: int, read_rc: int
) -> None:
    cfg = tmp_path / name
    cfg.write_text(template.format(n="1" + "0" * 5000))
    for args, rc in (
        (["prelude", "--at", "2026-04-11T18:00:00Z"], read_rc),
        (["scan", "--at", "2026-04-11T18:00:00Z"], read_rc),
        (["config", "check"], check_rc),
        (["config", "show", "--format", "toml"], read_rc),
    ):
        result = run_cli(["--config", str(cfg), *args])
        assert result.returncode == rc, (args, result.stderr)
        assert "Traceback" not in result.stderr
        if rc == 3:
            assert result.stderr.splitlines() == [
                f"memwarm: error: {cfg}:2:16: TOML: integer too large (more than 4300 digits)"
            ]
        elif args[0] == "config" and args[1] == "check":
            assert "maxFileChars: expected an integer, got Infinity" in result.stdout
        elif args[0] == "config":
            limit = tomllib.loads(result.stdout)["agents"][0]["startupContext"]["limits"]["maxFileChars"]
            assert limit["configured"] == "Infinity" and limit["source"] == "default"


@pytest.mark.parametrize("name", ["c.json5", "c.toml"])
def test_integer_beyond_a_double_is_infinity(run_cli: RunCli, tmp_path: Path, name: str) -> None:
    cfg = tmp_path / name
    n = "1" + "0" * 400
    if name == "c.toml":
        cfg.write_text(f"[agents.defaults.startupContext]\nmaxFileChars = {n}\ndailyMemoryDays = {2**60}\n")
    else:
        cfg.write_text(
            f"{{agents: {{defaults: {{startupContext: {{maxFileChars: {n}, dailyMemoryDays: {2**60}}}}}}}}}"
        )
    result = run_cli(["--config", str(cfg), "config", "check"])
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "maxFileChars: expected an integer, got Infinity" in result.stdout
    # Zod's int() takes safe integers only (|n| <= 2^53 - 1): 2^60 is refused as such, not as too big.
    assert f"dailyMemoryDays: expected a safe integer (at most 2^53 - 1 either side of 0), got {2**60}" in (
        result.stdout
    )
    for args in (["prelude", "--at", "2026-04-11T18:00:00Z"], ["scan", "--at", "2026-04-11T18:00:00Z"]):
        result = run_cli(["--config", str(cfg), *args])
        assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    result = run_cli(["--config", str(cfg), "config", "show", "--format", "toml"])
    assert result.returncode == 0, result.stderr
    limits = tomllib.loads(result.stdout)["agents"][0]["startupContext"]["limits"]
    assert limits["maxFileChars"]["configured"] == "Infinity"
    assert limits["dailyMemoryDays"] == {
        "value": 14,
        "source": "clamped",
        "configured": float(2**60),
        "note": limits["dailyMemoryDays"]["note"],
    }


# -- paths the OS refuses to look at ----------------------------------------------------------------


def _too_long(tmp_path: Path) -> str:
    return str(tmp_path / ("a" * 5000))  # ENAMETOOLONG: Path.exists() raises on Python 3.11


def test_too_long_config_flag_is_a_config_error(run_cli: RunCli, tmp_path: Path) -> None:
    long_path = _too_long(tmp_path) + ".json"
    for args in (["config", "path"], ["config", "check"], ["config", "show"], ["prelude"], ["scan"]):
        for how in ("flag", "env"):
            if how == "flag":
                result = run_cli(["--config", long_path, *args])
                given = "--config"
            else:
                result = run_cli(args, env={"OPENCLAW_CONFIG_PATH": long_path})
                given = "OPENCLAW_CONFIG_PATH"
            assert result.returncode == 3, (args, how, result.stderr[-300:])
            assert result.stderr.splitlines() == [
                f"memwarm: error: {long_path}: cannot read config file: File name too long (given by {given})"
            ]


def test_too_long_state_dir_is_a_missing_default(run_cli: RunCli, tmp_path: Path, home_dir: Path) -> None:
    state = _too_long(tmp_path)
    env = {"OPENCLAW_STATE_DIR": state}
    result = run_cli(["config", "path", "--json"], env=env)
    assert result.returncode == 0, result.stderr[-300:]
    data = json.loads(result.stdout)
    assert data["config"]["path"] == state + "/openclaw.json" and data["config"]["exists"] is False
    assert data["stateDir"] == {"path": state, "reason": "OPENCLAW_STATE_DIR"}
    result = run_cli(["config", "check"], env=env)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr[-300:]
    for args in (["prelude", "--at", "2026-04-11T18:00:00Z"], ["config", "show"]):
        result = run_cli(args, env=env)
        assert result.returncode == 0 and "Traceback" not in result.stderr, (args, result.stderr[-300:])


def test_too_long_workspace(run_cli: RunCli, tmp_path: Path) -> None:
    workspace = _too_long(tmp_path)
    cfg = tmp_path / "c.json5"
    cfg.write_text(json.dumps({"agents": {"defaults": {"workspace": workspace}}}))
    result = run_cli(["--config", str(cfg), "config", "path", "--json"])
    assert result.returncode == 0, result.stderr[-300:]
    agent = json.loads(result.stdout)["agents"][0]
    assert agent["workspace"] == workspace and agent["workspaceExists"] is False
    result = run_cli(["--config", str(cfg), "config", "show", "--json"])
    assert result.returncode == 0, result.stderr[-300:]
    assert json.loads(result.stdout)["agents"][0]["workspaceExists"] is False
    result = run_cli(["--config", str(cfg), "config", "check"])
    assert result.returncode == 0, result.stderr[-300:]
    assert result.stdout.splitlines() == [
        f'{cfg}:1:26: warning: agents.defaults.workspace: workspace of agent "main" cannot be checked '
        f"(File name too long): {workspace}"
    ]


# -- a config that is not a regular file ------------------------------------------------------------


def test_fifo_config_is_a_config_error_not_a_hang(run_cli: RunCli, tmp_path: Path, home_dir: Path) -> None:
    import os

    fifo = tmp_path / "openclaw.json"
    os.mkfifo(fifo)
    expected = [f"memwarm: error: {fifo}: is a FIFO, not a regular file: cannot read it as a config"]
    for args in (["config", "check"], ["config", "show"], ["config", "path"], ["prelude"], ["scan"]):
        # Without a writer, a blocking open() would wait forever: the timeout fails the test instead.
        result = run_cli(["--config", str(fifo), *args], timeout=20)
        assert result.returncode == 3, (args, result.stderr)
        assert result.stderr.splitlines() == expected
    # Found as the default config in the state dir, too.
    state = home_dir / ".openclaw"
    state.mkdir()
    os.mkfifo(state / "openclaw.json")
    result = run_cli(["config", "check"], timeout=20)
    assert result.returncode == 3
    assert "is a FIFO, not a regular file" in result.stderr


def test_character_device_config_is_a_config_error(run_cli: RunCli) -> None:
    result = run_cli(["--config", "/dev/zero", "config", "check"], timeout=20)
    assert result.returncode == 3
    assert result.stderr.splitlines() == [
        "memwarm: error: /dev/zero: is a character device, not a regular file: cannot read it as a config"
    ]


def test_profile_selects_only_the_default_workspace(run_cli: RunCli, home_dir: Path) -> None:
    profile_state = home_dir / ".openclaw-work"
    profile_state.mkdir()
    (profile_state / "openclaw.json").write_text('{agents: {defaults: {workspace: "/elsewhere"}}}')
    result = run_cli(["config", "path", "--json"], env={"OPENCLAW_PROFILE": "work"})
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["config"]["path"] == str(home_dir / ".openclaw" / "openclaw.json")
    assert data["config"]["reason"] == "default" and data["config"]["exists"] is False
    assert data["stateDir"] == {"path": str(home_dir / ".openclaw"), "reason": "default"}
    assert data["agents"][0]["workspace"] == str(home_dir / ".openclaw" / "workspace-work")
    assert data["agents"][0]["indexPath"].startswith(str(home_dir / ".openclaw" / "agents" / "main"))


def test_clawdbot_state_dir_pins_the_config(run_cli: RunCli, home_dir: Path, tmp_path: Path) -> None:
    (home_dir / ".openclaw").mkdir()
    (home_dir / ".openclaw" / "openclaw.json").write_text("{}")
    state = tmp_path / "state"
    result = run_cli(["config", "path", "--json"], env={"CLAWDBOT_STATE_DIR": str(state)})
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["config"]["path"] == str(state / "openclaw.json") and data["config"]["exists"] is False
    assert data["config"]["reason"] == "state dir (CLAWDBOT_STATE_DIR)"
    assert data["stateDir"] == {"path": str(state), "reason": "CLAWDBOT_STATE_DIR"}


def test_path_backend_per_agent(run_cli: RunCli, home_dir: Path) -> None:
    cfg = home_dir / "c.json5"
    cfg.write_text(
        "{memory: {backend: 'qmd'}, agents: {list: [{id: 'main'},"
        " {id: 'off', memorySearch: {enabled: false}}, {id: 'b', memorySearch: {backend: 'builtin'}}]}}"
    )
    result = run_cli(["--config", str(cfg), "config", "path", "--json"])
    assert result.returncode == 0, result.stderr
    backends = {a["agentId"]: a["backend"] for a in json.loads(result.stdout)["agents"]}
    # The backend is memory.backend for every agent (6.35 has no per-agent one and refuses the key).
    assert backends == {"main": "qmd", "off": "none (memory search disabled)", "b": "qmd"}
    text = run_cli(["--config", str(cfg), "config", "path"]).stdout
    assert "  backend:    none (memory search disabled)\n" in text


def test_a_config_too_deep_for_the_toml_writer_is_one_error_line(tmp_path: Path, run_cli: RunCli) -> None:
    """The reader takes a few hundred levels; tomli_w recursed deeper per level and ended in a traceback."""
    depth = 280
    config = tmp_path / "deep.json5"
    config.write_text("{memory: {qmd: {update: {interval: " + "{a:" * depth + "1" + "}" * depth + "}}}}")
    result = run_cli(["--config", str(config), "config", "show", "--format", "toml"])
    assert result.returncode == 3, result.stderr
    assert result.stderr == f"memwarm: error: {config}: the config is nested too deeply to write as TOML\n"
    assert result.stdout == ""
    shown = run_cli(["--config", str(config), "config", "show", "--json"])
    assert shown.returncode == 0 and json.loads(shown.stdout), shown.stderr


@pytest.mark.parametrize("runner", ["run_cli", "run_cli_process"])
def test_the_cli_loads_dotenv_files_as_openclaw_does(
    tmp_path: Path, runner: str, request: pytest.FixtureRequest
) -> None:
    """A memwarm process is the real-process.env case of spec config.md §6.3: `./.env`, then
    `<stateDir>/.env`, fill variables the environment lacks. The CLI passed its environment explicitly,
    which skipped both, so `${MYWS}` stayed unresolved."""
    run: RunCli = request.getfixturevalue(runner)
    state, work = tmp_path / "state", tmp_path / "work"
    state.mkdir()
    work.mkdir()
    (state / "openclaw.json").write_text('{"agents": {"defaults": {"workspace": "${MYWS}/${MYSUB}"}}}')
    (state / ".env").write_text(f"MYWS={tmp_path}\nMYSUB=from-state\n")
    (work / ".env").write_text("MYSUB=from-cwd\n")  # ./.env first; the state dir's never overrides
    env = {"OPENCLAW_STATE_DIR": str(state)}
    result = run(["config", "path", "--json"], env=env, cwd=work)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["agents"][0]["workspace"] == f"{tmp_path}/from-cwd"
    shell = run(["config", "path", "--json"], env={**env, "MYSUB": "shell"}, cwd=work)
    assert json.loads(shell.stdout)["agents"][0]["workspace"] == f"{tmp_path}/shell"


# -- a config the release refuses, and one that does not parse --------------------------------------------


def test_check_json_on_a_config_that_does_not_parse(run_cli: RunCli, home_dir: Path) -> None:
    """`--json` prints its object all the same, the parse error an error finding with line and column
    (the text says where a comma is likely missing); exit 3 as before."""
    cfg = home_dir / "c.json5"
    cfg.write_text("{\n  memory: {backend: 'qmd'}\n  agents: {}\n}\n")
    result = run_cli(["--config", str(cfg), "config", "check", "--json"])
    assert result.returncode == 3, result.stderr
    data = json.loads(result.stdout)
    assert isinstance(data["schema"], int) and data["unreadable"] is True and data["ok"] is False
    assert data["findings"] == [
        {
            "file": str(cfg),
            "line": 3,
            "column": 3,
            "severity": "error",
            "path": "",
            "message": "JSON5: invalid character 'a' (missing comma before it?)",
        }
    ]
    text = run_cli(["--config", str(cfg), "config", "check"])
    assert (text.returncode, text.stdout) == (3, "")
    assert (
        text.stderr == f"memwarm: error: {cfg}:3:3: JSON5: invalid character 'a' (missing comma before it?)\n"
    )


def test_a_backslash_in_a_json5_error_is_escaped_once(run_cli: RunCli, home_dir: Path) -> None:
    cfg = home_dir / "c.json5"
    cfg.write_text("{a: \\}")
    text = run_cli(["--config", str(cfg), "config", "check"])
    assert text.stderr == f"memwarm: error: {cfg}:1:5: JSON5: invalid character '\\\\'\n"  # as npm's json5
    data = json.loads(run_cli(["--config", str(cfg), "config", "check", "--json"]).stdout)
    assert data["findings"][0]["message"] == "JSON5: invalid character '\\'"  # the one character, raw


QMDD = "{memory: {backend: 'qmdd'}, agents: {list: [{id: 'main', workspace: '~/ws'}]}}"


@pytest.mark.parametrize(
    "args",
    [
        ["init-backends"],
        ["init-backends", "-q"],
        ["init-backends", "--json"],
        ["status"],
        ["search", "zebra"],
    ],
)
def test_commands_refuse_a_config_the_release_refuses(
    run_cli: RunCli, home_dir: Path, args: list[str]
) -> None:
    """`memory.backend: "qmdd"` made init-backends skip every agent as builtin and exit 0 (with -q, in
    silence); the release refuses the config, so its gateway would run no memory at all."""
    (home_dir / "ws" / "memory").mkdir(parents=True)
    cfg = home_dir / "c.json5"
    cfg.write_text(QMDD)
    result = run_cli(["--config", str(cfg), *args])
    assert result.returncode == 3, result.stderr
    assert result.stdout == ""
    assert result.stderr.splitlines() == [
        f'memwarm: error: {cfg}:1:11: memory.backend: "qmdd" is not one of "builtin", "qmd" (did you mean '
        '"qmd"?) (OpenClaw 2026.6.35 refuses this config; chosen by config shape (agents.list, the 2026.6.35 '
        "shape); --openclaw VERSION or MEMWARM_OPENCLAW names another; `memwarm config check` lists every "
        "error)"
    ]
    check = json.loads(run_cli(["--config", str(cfg), "config", "check", "--json"]).stdout)
    assert [(f["path"], f["severity"]) for f in check["findings"] if f["severity"] == "error"] == [
        ("memory.backend", "error")
    ]


def test_an_unknown_key_in_a_list_entry_is_refused_and_reported(run_cli: RunCli, home_dir: Path) -> None:
    (home_dir / "ws" / "memory").mkdir(parents=True)
    cfg = home_dir / "c.json5"
    cfg.write_text(
        "{memory: {backend: 'qmd'},\n agents: {list: [{id: 'main', workspace: '~/ws', workspce: 1}]}}"
    )
    check = run_cli(["--config", str(cfg), "config", "check"])
    assert check.returncode == 1
    assert (
        f'{cfg}:2:50: error: agents.list[0].workspce: unknown key (did you mean "workspace"?)' in check.stdout
    )
    result = run_cli(["--config", str(cfg), "init-backends", "-q"])
    assert result.returncode == 3 and "agents.list[0].workspce: unknown key" in result.stderr


def test_a_valid_config_is_not_refused(run_cli: RunCli, home_dir: Path) -> None:
    """rerank, searchTool and extraCollections are the release's keys: init-backends goes on (and finds
    no qmd here: its own failure, exit 1, not a config error)."""
    cfg = home_dir / "c.json5"
    cfg.write_text(
        "{memory: {backend: 'qmd', qmd: {command: '/nonexistent/qmd', rerank: false, searchTool: 'q'}},"
        " agents: {defaults: {memorySearch: {qmd: {extraCollections: [{path: '/srv', name: 'srv'}]}}}}}"
    )
    result = run_cli(["--config", str(cfg), "init-backends", "--json"])
    assert result.returncode not in (0, 3), result.stderr
    assert json.loads(result.stdout)["agents"][0]["status"] == "failed"
