"""YAML scalars: text where OpenClaw (JSON5) has no type; a value a tag cannot convert is a positioned error.

PyYAML turns `2026-02-30` into a date, `1:30` into 90 and `!!int ~` into an exception from deep inside its
constructor. OpenClaw has no dates and no sexagesimal numbers, so such plain scalars stay text as written;
an explicit tag whose value does not convert is one error line at the value, exit 3, on every command.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memwarm_cli.config import load_config
from memwarm_cli.errors import ConfigError
from memwarm_cli.exitcodes import ExitCode
from tests.conftest import RunCli

SEXAGESIMAL_5000 = "1" + ":59" * 2500  # 5,000 digits once converted from base 60
HUGE_SEXAGESIMAL_HEAD = "9" * 5000 + ":30"


def load_yaml(tmp_path: Path, text: str) -> dict[str, object]:
    cfg = tmp_path / "c.yaml"
    cfg.write_text(text)
    return load_config(str(cfg), {"HOME": str(tmp_path)}).data


@pytest.mark.parametrize(
    ("scalar", "kept"),
    [
        ("2026-02-30", "2026-02-30"),  # no such day: a date constructor raises
        ("2026-01-02", "2026-01-02"),
        ("2026-01-02 10:00:00", "2026-01-02 10:00:00"),  # kept as written, not re-formatted as ISO
        ("2026-01-02T10:00:00.5Z", "2026-01-02T10:00:00.5Z"),
        ("1:30", "1:30"),  # YAML 1.1 sexagesimal; JSON5 has none
        ("-1:30.5", "-1:30.5"),
        (SEXAGESIMAL_5000, SEXAGESIMAL_5000),
        (HUGE_SEXAGESIMAL_HEAD, HUGE_SEXAGESIMAL_HEAD),
        ("=", "="),  # YAML 1.1's "value" key: no constructor exists for it
    ],
)
def test_plain_scalars_json5_has_no_type_for_stay_text(tmp_path: Path, scalar: str, kept: str) -> None:
    as_key = f"{scalar}: key\n" if len(scalar) < 1024 else ""  # YAML caps simple keys at 1024 characters
    expected = {"a": kept, "b": [kept]} | ({kept: "key"} if as_key else {})
    assert load_yaml(tmp_path, f"a: {scalar}\nb: [{scalar}]\n{as_key}") == expected


def test_json5_types_are_still_read(tmp_path: Path) -> None:
    text = "a: 12\nb: -0x1f\nc: 1.5e+3\nd: .inf\ne: ~\nf: true\ng: 'x'\nh: !!str 12\ni: !!float 2\n"
    data = load_yaml(tmp_path, text)
    assert data == {
        "a": 12,
        "b": -31,
        "c": 1500.0,
        "d": float("inf"),
        "e": None,
        "f": True,
        "g": "x",
        "h": "12",
        "i": 2.0,
    }


@pytest.mark.parametrize(
    ("line", "column", "text"),
    [
        (2, 4, "ok: 1\nx: !!int ~\n"),
        (1, 11, "a: [1, 2, !!bool ~]\n"),
        (1, 4, "x: !!float ~\n"),
        (1, 4, "x: !!timestamp nope\n"),
        (1, 4, "x: !!timestamp 2026-02-30\n"),
        (1, 4, f"x: !!int {HUGE_SEXAGESIMAL_HEAD}\n"),
        (1, 3, "? !!int ~\n: v\n"),  # a key
        (3, 8, "a:\n  b:\n    c: !!int 12abc\n"),
    ],
)
def test_a_tag_that_cannot_convert_its_value_is_an_error_at_the_value(
    tmp_path: Path, line: int, column: int, text: str
) -> None:
    with pytest.raises(ConfigError) as info:
        load_yaml(tmp_path, text)
    assert (info.value.line, info.value.column) == (line, column)
    assert info.value.exit_code == ExitCode.CONFIG
    assert info.value.detail.startswith("YAML: ")
    assert len(str(info.value)) < 300  # a 5,000-digit value is not copied into the message


@pytest.mark.parametrize(
    ("command", "text"),
    [
        (["config", "path"], "agents:\n  defaults:\n    userTimezone: !!int ~\n"),
        (["config", "check"], "x: !!bool ~\n"),
        (["config", "show"], "x: !!timestamp 2026-02-30\n"),
        (["prelude"], "x: !!float ~\n"),
        (["scan"], f"x: !!int {HUGE_SEXAGESIMAL_HEAD}\n"),
        (["init-backends", "--dry-run"], "x: !!timestamp nope\n"),
    ],
)
def test_every_command_gives_one_line_and_exit_3(
    run_cli: RunCli, home_dir: Path, command: list[str], text: str
) -> None:
    cfg = home_dir / "c.yaml"
    cfg.write_text(text)
    result = run_cli(["--config", str(cfg), *command])
    assert result.returncode == ExitCode.CONFIG, result.stderr
    assert result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"memwarm: error: {cfg}:") and ": YAML: " in line


def test_date_like_workspace_is_a_path(run_cli: RunCli, home_dir: Path) -> None:
    cfg = home_dir / "c.yaml"
    cfg.write_text("agents:\n  defaults:\n    workspace: 2026-02-30\n")
    result = run_cli(["--config", str(cfg), "config", "path", "--json"], cwd=home_dir)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["agents"][0]["workspace"] == str(home_dir / "2026-02-30")
