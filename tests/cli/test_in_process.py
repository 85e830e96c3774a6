"""`cli.main.run`, the in-process entry most CLI tests use, behaves as a `memwarm` process does: the same
exit code, stdout bytes and stderr for the same arguments, environment and working directory. It reads
the environment and streams it is given, never the process's own, and leaves the process as it found it.
"""

from __future__ import annotations

import ast
import io
import json
import os
import re
import signal
from pathlib import Path
from typing import Any

import pytest

import memwarm_cli
from memwarm_cli.cli.main import run
from memwarm_cli.exitcodes import ExitCode
from tests.conftest import CliResult, isolated_env, run_memwarm, run_memwarm_process, write_memory_note

AT = "2026-04-11T18:00:00Z"


@pytest.fixture
def setup(tmp_path: Path, home_dir: Path) -> dict[str, Any]:
    """A config (in cwd, so it can be named relatively), a workspace with notes, a qmd that exists."""
    workspace = tmp_path / "ws"
    write_memory_note(workspace, "2026-04-11.md", "today: caf\u00e9 \U0001f600\n")
    write_memory_note(workspace, "2026-04-10-plans.md", "yesterday's plans\n")
    qmd = tmp_path / "bin" / "qmd"
    qmd.parent.mkdir()
    qmd.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    qmd.chmod(0o755)
    config = {
        "agents": {
            "defaults": {"userTimezone": "America/Chicago"},
            "list": [{"id": "main", "workspace": "ws"}],
        },
        "memory": {"backend": "qmd", "qmd": {"command": str(qmd)}},
    }
    (tmp_path / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    state = tmp_path / "state"
    state.mkdir()
    return {"cwd": tmp_path, "env": isolated_env(home_dir, {"OPENCLAW_STATE_DIR": str(state)})}


_SAME_EITHER_WAY = [
    pytest.param(["-c", "openclaw.json", "prelude", "--at", AT], id="prelude-fast-path"),
    pytest.param(["-c", "openclaw.json", "prelude", "--at", AT, "--json"], id="prelude-json"),
    pytest.param(["-c", "openclaw.json", "prelude", "-amain", "--at", AT], id="prelude-through-typer"),
    pytest.param(["-c", "openclaw.json", "scan", "--at", AT, "--all"], id="scan-plain"),
    pytest.param(["-c", "openclaw.json", "scan", "--at", AT, "--json"], id="scan-json"),
    pytest.param(["-c", "openclaw.json", "scan", "--at", AT, "--format", "table"], id="scan-table-in-a-pipe"),
    pytest.param(["-c", "openclaw.json", "context", "--at", AT], id="context-fast-path"),
    pytest.param(["-c", "openclaw.json", "context", "--at", AT, "-fplain"], id="context-through-typer"),
    pytest.param(["-c", "openclaw.json", "context", "--at", AT, "--json"], id="context-json"),
    pytest.param(["-c", "openclaw.json", "config", "path"], id="config-path"),
    pytest.param(["-c", "openclaw.json", "config", "check"], id="config-check"),
    pytest.param(["-c", "openclaw.json", "config", "show", "--format", "toml"], id="config-show"),
    pytest.param(["config", "path", "--json"], id="config-from-the-state-dir"),
    pytest.param(["-c", "openclaw.json", "init-backends", "--dry-run"], id="init-backends-dry-run"),
    pytest.param(["-c", "missing.json", "scan"], id="config-error"),
    pytest.param(["-c", "openclaw.json", "prelude", "--agent", "nobody"], id="unknown-agent"),
    pytest.param(["scan", "--at"], id="usage-error"),
    pytest.param(["config"], id="group-without-subcommand"),
    pytest.param(["--help"], id="help"),
    pytest.param(["init-backends", "-h"], id="subcommand-help"),
    pytest.param(["--version"], id="version"),
]


def _comparable(result: CliResult) -> tuple[int, bytes, str]:
    # init-backends' summary line says how long the run took.
    return result.returncode, result.stdout_bytes, re.sub(r" in \d+\.\d+s", " in Ns", result.stderr)


@pytest.mark.parametrize("args", _SAME_EITHER_WAY)
def test_in_process_equals_a_process(args: list[str], setup: dict[str, Any]) -> None:
    in_process = run_memwarm(args, setup["env"], cwd=setup["cwd"])
    process = run_memwarm_process(args, setup["env"], cwd=setup["cwd"])
    assert _comparable(in_process) == _comparable(process)
    assert "Traceback" not in process.stderr


def test_the_environment_is_the_one_given(
    tmp_path: Path, home_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Config discovery, the host zone (TZ) and Rich's width (COLUMNS) come from `env`, not os.environ."""
    workspace = tmp_path / "ws"
    write_memory_note(workspace, "2026-04-11.md", "note\n")
    for name, zone in (("given", "Asia/Tokyo"), ("process", "Europe/Paris")):
        state = tmp_path / name
        state.mkdir()
        (state / "openclaw.json").write_text(
            json.dumps({"agents": {"defaults": {"workspace": str(workspace)}}})
        )
        monkeypatch.setenv("OPENCLAW_STATE_DIR", str(state))  # the last one stays in os.environ
        monkeypatch.setenv("TZ", zone)
    monkeypatch.setenv("COLUMNS", "200")
    env = isolated_env(home_dir, {"OPENCLAW_STATE_DIR": str(tmp_path / "given"), "TZ": "Asia/Tokyo"})

    def call(args: list[str], **extra: str) -> str:
        stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
        code = run(args, env={**env, **extra}, stdout=stdout, stderr=io.StringIO())
        assert code == ExitCode.OK
        stdout.flush()
        return stdout.buffer.getvalue().decode()

    path = json.loads(call(["config", "path", "--json"]))
    assert path["config"]["path"] == str(tmp_path / "given" / "openclaw.json")
    show = json.loads(call(["config", "show", "--json"]))
    assert show["agents"][0]["timezone"]["used"] == "Asia/Tokyo"
    table = ["scan", "--at", AT, "--format", "table"]
    narrow, wide = call(table, COLUMNS="60"), call(table, COLUMNS="150")
    assert max(len(line) for line in narrow.splitlines()) <= 60 and "modified" not in narrow
    assert max(len(line) for line in wide.splitlines()) > 60 and "modified" in wide  # from 120 columns on


def test_a_run_leaves_cwd_and_signal_handlers_as_it_found_them(setup: dict[str, Any]) -> None:
    def sentinel(_signum: int, _frame: object) -> None:
        raise AssertionError("not a handler a run should leave behind")

    before_cwd = os.getcwd()
    # Sentinels for all three, not what the test run has: nohup or a CI runner may have them ignored,
    # and memwarm rightly leaves an ignored one alone, which would test nothing.
    handled = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    previous = {sig: signal.signal(sig, sentinel) for sig in handled}
    try:
        # init-backends installs its own SIGINT/SIGTERM/SIGHUP handlers for the run.
        result = run_memwarm(
            ["-c", "openclaw.json", "init-backends", "--dry-run"], setup["env"], cwd=setup["cwd"]
        )
        assert result.returncode == ExitCode.OK, result.stderr
        assert all(signal.getsignal(sig) is sentinel for sig in handled)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    assert os.getcwd() == before_cwd


def test_closed_streams_in_process(setup: dict[str, Any]) -> None:
    args, env, cwd = ["-c", "openclaw.json", "config", "check"], setup["env"], setup["cwd"]
    stderr = io.StringIO()
    assert run(args, env=env, stdout=None, stderr=stderr, cwd=cwd) == ExitCode.OK  # nothing for stdout
    code = run([*args[:-1], "path"], env=env, stdout=None, stderr=stderr, cwd=cwd)
    assert code == ExitCode.OUTPUT
    assert stderr.getvalue().endswith("memwarm: error: cannot write to stdout: it is closed\n")
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    assert run([*args[:-1], "path"], env=env, stdout=stdout, stderr=None, cwd=cwd) == ExitCode.OK


# Process state memwarm may read only where an invocation is made from it (the console script's main)
# or as the default of an `env=None` parameter; anywhere else it would bypass what `run` was given.
_PROCESS_STATE = {("sys", "stdout"), ("sys", "stderr"), ("sys", "stdin"), ("sys", "argv"), ("os", "environ")}
_ENTRY_POINTS = {("cli/terminal/invocation.py", "process_invocation"), ("cli/main.py", "main")}


def test_only_the_entry_points_read_process_state() -> None:
    package = Path(memwarm_cli.__file__).parent
    offenders = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        allowed: set[int] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and (rel, node.name) in _ENTRY_POINTS:
                allowed |= {id(n) for n in ast.walk(node)}
            # `os.environ if env is None else env`: the default for callers outside the CLI.
            if isinstance(node, ast.IfExp) and "is None" in ast.unparse(node.test):
                allowed.add(id(node.body))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "print":
                offenders.append(f"{rel}:{node.lineno}: print()")
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and (node.value.id, node.attr) in _PROCESS_STATE
                and id(node) not in allowed
            ):
                offenders.append(f"{rel}:{node.lineno}: {node.value.id}.{node.attr}")
    assert offenders == []
