"""The environment is read as Node reads it: a byte that is not UTF-8 is U+FFFD. qmd (Node) decoded a
state dir `/tmp/x\\xff` as `/tmp/x\\ufffd` and built the index there, while memwarm kept its records
under the raw path: every run `armed`, `status` `failed` for good."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memwarm_cli.cli.terminal.invocation import node_environment
from tests.conftest import RunCli


def test_only_an_environment_holding_undecodable_bytes_is_copied() -> None:
    plain = {"HOME": "/home/é", "PATH": "/usr/bin"}
    assert node_environment(plain) is plain
    assert node_environment({"S\udcff": "/tmp/a\udcffb\udce9", "T": "x\ud800"}) == {
        "S\ufffd": "/tmp/a\ufffdb\ufffd",
        "T": "x\ufffd",
    }


@pytest.mark.parametrize("runner", ["run_cli", "run_cli_process"])
def test_the_state_dir_is_where_node_puts_it(
    tmp_path: Path, runner: str, request: pytest.FixtureRequest
) -> None:
    run: RunCli = request.getfixturevalue(runner)
    raw = f"{tmp_path}/state-\udcff"  # the byte 0xff, as os.environ holds it
    result = run(["config", "path", "--json"], env={"OPENCLAW_STATE_DIR": raw})
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["stateDir"] == {
        "path": f"{tmp_path}/state-\ufffd",
        "reason": "OPENCLAW_STATE_DIR",
    }
