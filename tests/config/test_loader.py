"""load_config: formats, errors with positions, top-level values, env section, substitution warnings."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memwarm_cli.config import load_config
from memwarm_cli.errors import ConfigError
from memwarm_cli.exitcodes import ExitCode

SAMPLE = {
    "agents": {
        "defaults": {"workspace": "~/ws", "startupContext": {"dailyMemoryDays": 3, "applyOn": ["new"]}},
        "list": [{"id": "main", "default": True}, {"id": "ops"}],
    }
}


def env_for(tmp_path: Path, **extra: str) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {"HOME": str(home), **extra}


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "openclaw.json5",
            """// comment
{
  agents: {
    defaults: {workspace: '~/ws', startupContext: {dailyMemoryDays: 3, applyOn: ['new',],},},
    list: [{id: "main", default: true}, {id: "ops"},],
  },
}
""",
        ),
        (
            "openclaw.json",
            '{"agents": {"defaults": {"workspace": "~/ws", "startupContext": {"dailyMemoryDays": 3, '
            '"applyOn": ["new"]}}, "list": [{"id": "main", "default": true}, {"id": "ops"}]}}',
        ),
        (
            "openclaw.yaml",
            """agents:
  defaults:
    workspace: ~/ws
    startupContext: {dailyMemoryDays: 3, applyOn: [new]}
  list:
    - id: main
      default: true
    - id: ops
""",
        ),
        (
            "openclaw.yml",
            "agents: {defaults: {workspace: ~/ws, startupContext: {dailyMemoryDays: 3, applyOn: [new]}},"
            " list: [{id: main, default: true}, {id: ops}]}\n",
        ),
        (
            "openclaw.toml",
            """[agents.defaults]
workspace = "~/ws"
startupContext = { dailyMemoryDays = 3, applyOn = ["new"] }

[[agents.list]]
id = "main"
default = true

[[agents.list]]
id = "ops"
""",
        ),
    ],
)
def test_each_format(tmp_path: Path, name: str, text: str) -> None:
    cfg = tmp_path / name
    cfg.write_text(text)
    loaded = load_config(str(cfg), env_for(tmp_path))
    assert loaded.data == SAMPLE
    assert loaded.source.path == str(cfg) and loaded.source.reason == "--config"
    assert loaded.warnings == []


@pytest.mark.parametrize(
    ("name", "text", "line", "column", "fragment"),
    [
        (
            "c.json5",
            '{\n  agents: {\n    list: [\n      {id: "a"}\n      {id: "b"},\n',
            5,
            7,
            "JSON5: invalid",
        ),
        ("c.json", '{"a": 1,\n "b": }', 2, 7, "JSON5: invalid character '}'"),
        ("c.yaml", "agents:\n  list:\n    - id: a\n   bad: [\n", 4, 4, "YAML:"),
        ("c.yml", "a: 1\na: [1, 2\n", 3, 1, "YAML:"),
        ("c.toml", "[agents]\nlist = 3\nlist = 4\n", 3, 9, "TOML:"),
        ("c.toml", 'a = "x\n', 1, 7, "TOML:"),
    ],
)
def test_parse_errors_have_positions(
    tmp_path: Path, name: str, text: str, line: int, column: int, fragment: str
) -> None:
    cfg = tmp_path / name
    cfg.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_config(str(cfg), env_for(tmp_path))
    err = info.value
    assert err.exit_code == ExitCode.CONFIG
    assert (err.file, err.line, err.column) == (str(cfg), line, column)
    assert fragment in err.detail
    assert str(err).startswith(f"{cfg}:{line}:{column}: ")
    assert "\n" not in str(err)


def test_invalid_utf8_position(tmp_path: Path) -> None:
    cfg = tmp_path / "c.json5"
    cfg.write_bytes(b'{\n  a: "\xff"}')
    with pytest.raises(ConfigError) as info:
        load_config(str(cfg), env_for(tmp_path))
    assert (info.value.line, info.value.column) == (2, 7)
    assert "invalid UTF-8 byte 0xff" in info.value.detail


def test_explicit_missing_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(str(tmp_path / "nope.json"), env_for(tmp_path))
    assert "not found" in str(info.value)
    with pytest.raises(ConfigError):
        load_config(None, env_for(tmp_path, OPENCLAW_CONFIG_PATH=str(tmp_path / "nope.json")))


def test_default_missing_is_empty(tmp_path: Path) -> None:
    loaded = load_config(None, env_for(tmp_path))
    assert loaded.data == {} and not loaded.source.exists and loaded.warnings == []
    assert loaded.state_dir == str(tmp_path / "home" / ".openclaw")


def test_directory_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(str(tmp_path), env_for(tmp_path))
    assert "directory" in str(info.value)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads everything")
def test_unreadable_is_an_error(tmp_path: Path) -> None:
    cfg = tmp_path / "c.json"
    cfg.write_text("{}")
    cfg.chmod(0)
    with pytest.raises(ConfigError) as info:
        load_config(str(cfg), env_for(tmp_path))
    assert "permission denied" in str(info.value)


@pytest.mark.parametrize("text", ["null", "42", "'text'", "true", "", "   "])
def test_top_level_scalars_give_empty_config(tmp_path: Path, text: str) -> None:
    cfg = tmp_path / "c.json5"
    cfg.write_text(text)
    if not text.strip():
        with pytest.raises(ConfigError):
            load_config(str(cfg), env_for(tmp_path))
        return
    assert load_config(str(cfg), env_for(tmp_path)).data == {}


def test_empty_yaml_is_empty_config(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("# nothing\n")
    assert load_config(str(cfg), env_for(tmp_path)).data == {}


def test_top_level_array_is_an_error(tmp_path: Path) -> None:
    cfg = tmp_path / "c.json5"
    cfg.write_text("\n  [1, 2]")
    with pytest.raises(ConfigError) as info:
        load_config(str(cfg), env_for(tmp_path))
    assert (info.value.line, info.value.column) == (2, 3)
    assert "array" in info.value.detail


def test_deep_nesting_is_a_config_error(tmp_path: Path) -> None:
    cfg = tmp_path / "c.json5"
    cfg.write_text("{a:" * 5000)
    with pytest.raises(ConfigError) as info:
        load_config(str(cfg), env_for(tmp_path))
    assert "nested too deeply" in str(info.value)


def test_yaml_recursive_alias_and_expansion(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("a: &x [*x]\n")
    with pytest.raises(ConfigError) as info:
        load_config(str(cfg), env_for(tmp_path))
    assert "recursive alias" in str(info.value)
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join(['*a' + str(i - 1)] * 10)}]" for i in range(1, 8)]
    cfg.write_text("\n".join(lines) + "\n")
    with pytest.raises(ConfigError) as info:
        load_config(str(cfg), env_for(tmp_path))
    assert "too many values" in str(info.value)


def test_yaml_odd_keys_and_dates(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("1: a\ntrue: b\n~: c\nd: 2026-01-02\nbase: &b {x: 1}\nmerged: {<<: *b, y: 2}\n")
    data = load_config(str(cfg), env_for(tmp_path)).data
    assert data == {
        "1": "a",
        "true": "b",
        "null": "c",
        "d": "2026-01-02",
        "base": {"x": 1},
        "merged": {"x": 1, "y": 2},
    }


BIG = "1" + "0" * 400  # above the largest double: JS reads Infinity
HUGE = "1" + "0" * 5000  # more digits than Python's int() accepts


@pytest.mark.parametrize(
    ("name", "template"),
    [
        ("c.json5", "{{a: {n}, b: {m}}}"),
        ("c.yaml", "a: {n}\nb: {m}\nk: {{{n}: 1, {m}: 2}}\n"),
        ("c.toml", "a = {n}\nb = {m}\n[k]\n"),
    ],
)
def test_integers_are_js_doubles_in_every_format(tmp_path: Path, name: str, template: str) -> None:
    cfg = tmp_path / name
    cfg.write_text(template.format(n=2**60 + 1, m=-(2**53 + 1)))
    data = load_config(str(cfg), env_for(tmp_path)).data
    assert data["a"] == float(2**60) and isinstance(data["a"], float)
    assert data["b"] == -float(2**53) and isinstance(data["b"], float)
    if name == "c.yaml":
        # Keys are String(number): 2**60 + 1 as a double prints as 2**60.
        assert data["k"] == {str(2**60): 1, str(-(2**53)): 2}


@pytest.mark.parametrize("name", ["c.json5", "c.yaml"])
@pytest.mark.parametrize("digits", [BIG, HUGE])
def test_huge_integers_are_infinity(tmp_path: Path, name: str, digits: str) -> None:
    cfg = tmp_path / name
    cfg.write_text(
        f"{{a: {digits}, b: -{digits}}}" if name.endswith("json5") else f"a: {digits}\nb: -{digits}\n"
    )
    data = load_config(str(cfg), env_for(tmp_path)).data
    assert data == {"a": float("inf"), "b": float("-inf")}


def test_toml_huge_integers(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.write_text(f"a = {BIG}\n")
    assert load_config(str(cfg), env_for(tmp_path)).data == {"a": float("inf")}
    cfg.write_text(f'# {"9" * 4400}\ns = "x"\nb = {HUGE}\n')
    with pytest.raises(ConfigError) as info:
        load_config(str(cfg), env_for(tmp_path))
    assert (info.value.line, info.value.column) == (3, 5)
    assert info.value.detail == "TOML: integer too large (more than 4300 digits)"


def test_yaml_custom_tag_is_a_parse_error(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("a: 1\nb: !!python/object:os.system x\n")
    with pytest.raises(ConfigError) as info:
        load_config(str(cfg), env_for(tmp_path))
    assert info.value.line == 2


def test_env_vars_applied_without_overwriting(tmp_path: Path) -> None:
    cfg = tmp_path / "c.json5"
    cfg.write_text(
        """{
  env: {
    vars: {FROM_VARS: "v", EMPTY_ALREADY: "filled", KEEP: "config", ZERO: 0, NUM: 5, REF: "${OTHER}"},
    TOP: "top",
    shellEnv: {enabled: true},
    BLANK: "  ",
  },
  a: "${FROM_VARS}-${TOP}-${KEEP}-${EMPTY_ALREADY}-${NUM}",
}"""
    )
    env = env_for(tmp_path, KEEP="shell", EMPTY_ALREADY="")
    before = dict(env)
    loaded = load_config(str(cfg), env)
    assert env == before  # the caller's mapping is never mutated
    assert loaded.data["a"] == "v-top-shell-filled-5"
    assert loaded.env["FROM_VARS"] == "v" and loaded.env["KEEP"] == "shell"
    assert "ZERO" not in loaded.env and "BLANK" not in loaded.env and "REF" not in loaded.env
    assert {name: loaded.env[name] for name in ("EMPTY_ALREADY", "NUM", "TOP")} == {
        "EMPTY_ALREADY": "filled",
        "NUM": "5",
        "TOP": "top",
    }


def test_os_environ_is_not_mutated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = tmp_path / "c.json5"
    cfg.write_text('{env: {vars: {MEMWARM_TEST_ONLY_VAR: "x"}}}')
    monkeypatch.delenv("MEMWARM_TEST_ONLY_VAR", raising=False)
    loaded = load_config(str(cfg))
    assert loaded.env["MEMWARM_TEST_ONLY_VAR"] == "x"
    assert "MEMWARM_TEST_ONLY_VAR" not in os.environ


def test_missing_var_warning_has_path_and_position(tmp_path: Path) -> None:
    cfg = tmp_path / "c.json5"
    cfg.write_text('{\n  agents: {list: [\n    {id: "a", workspace: "${NOPE}/x"},\n  ]},\n}')
    loaded = load_config(str(cfg), env_for(tmp_path), track=True)
    assert loaded.data["agents"]["list"][0]["workspace"] == "${NOPE}/x"
    (warning,) = loaded.warnings
    assert warning.message == (
        f'Config ({cfg}): missing env var "NOPE" at agents.list[0].workspace - '
        "feature using this value will be unavailable"
    )
    assert warning.dotted_path == "agents.list[0].workspace"
    assert (warning.file, warning.line, warning.column) == (str(cfg), 3, 15)
    untracked = load_config(str(cfg), env_for(tmp_path))
    assert untracked.warnings[0].line is None and untracked.positions is None


def test_positions_for_yaml(tmp_path: Path) -> None:
    cfg = tmp_path / "c.yaml"
    cfg.write_text("agents:\n  list:\n    - id: a\n      workspace: x\n")
    loaded = load_config(str(cfg), env_for(tmp_path), track=True)
    assert loaded.positions is not None
    ws = loaded.positions.child("agents").child("list").child(0).child("workspace")  # type: ignore[union-attr]
    assert ws is not None and (ws.loc.line, ws.loc.column) == (4, 7)


def test_dotenv_files_only_with_the_real_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / ".openclaw").mkdir(parents=True)
    (home / ".openclaw" / ".env").write_text("MW_FROM_STATE=state\nMW_BOTH=state\n")
    work = tmp_path / "work"
    work.mkdir()
    (work / ".env").write_text(
        '# comment\nexport MW_BOTH=cwd\nMW_QUOTED="a\\nb"  # trailing\nMW_SET=dotenv\n'
    )
    cfg = work / "c.json5"
    cfg.write_text("{a: '${MW_FROM_STATE}-${MW_BOTH}-${MW_SET}'}")
    monkeypatch.chdir(work)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("MW_SET", "shell")
    for name in ("MW_FROM_STATE", "MW_BOTH", "MW_QUOTED", "OPENCLAW_STATE_DIR", "OPENCLAW_HOME"):
        monkeypatch.delenv(name, raising=False)
    loaded = load_config(str(cfg))
    assert loaded.data == {"a": "state-cwd-shell"}
    assert loaded.env["MW_QUOTED"] == "a\nb"
    assert "MW_BOTH" not in os.environ
    explicit = load_config(str(cfg), {"HOME": str(home)})
    assert explicit.data == {"a": "${MW_FROM_STATE}-${MW_BOTH}-${MW_SET}"}


def test_parse_dotenv() -> None:
    from memwarm_cli.config.dotenv import parse_dotenv

    text = (
        "A=1\nB = two words \nC='single # kept'\nD=\"x\\ny\"\nE=`tick`\n# F=no\nexport G=g\nH=\nI=val # c\n"
    )
    assert parse_dotenv(text) == {
        "A": "1",
        "B": "two words",
        "C": "single # kept",
        "D": "x\ny",
        "E": "tick",
        "G": "g",
        "H": "",
        "I": "val",
    }


def test_size_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memwarm_cli.config import loader

    monkeypatch.setattr(loader, "MAX_CONFIG_BYTES", 1024 * 1024)
    cfg = tmp_path / "c.json5"
    cfg.write_text("{a: '" + "x" * (1024 * 1024) + "'}")
    with pytest.raises(ConfigError) as info:
        load_config(str(cfg), env_for(tmp_path))
    assert "larger than 1 MiB" in str(info.value)


@pytest.mark.parametrize(
    ("error", "message"),
    [
        (PermissionError(13, "Permission denied"), "cannot read config file: permission denied"),
        (OSError(5, "Input/output error"), "cannot read config file: Input/output error"),
    ],
)
def test_read_failures_are_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: OSError, message: str
) -> None:
    from memwarm_cli import safe_files

    cfg = tmp_path / "c.json"
    cfg.write_text("{}")

    def failing_read(*args: object, **kwargs: object) -> None:
        raise error

    monkeypatch.setattr(safe_files, "read_available", failing_read)
    with pytest.raises(ConfigError) as info:
        load_config(str(cfg), env_for(tmp_path))
    assert str(info.value) == f"{cfg}: {message}"
