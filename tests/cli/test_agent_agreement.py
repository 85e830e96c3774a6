"""Every command that lists agents lists the same ids with the same workspaces (issue 29).

One resolution of agents and workspaces per run, by the run's release: `config path`, `config show`,
`config check` (its workspace findings), `scan --all-agents`, `prelude`, `context`, `status`,
`init-backends --dry-run`, bash completion of `--agent` and `search` (which accepts the same ids) must
agree, in this process and through the installed command. The expected workspaces are 2026.9.6's
`resolveAgentWorkspaceDir` (dist/agent-scope-config-*.mjs): an agent's own `workspace`; else, for the
legacy data owner (the unique `default: true` entry unless `agents.ownership` is "explicit", else the
sole agent), `agents.defaults.workspace`; else `agents.defaults.workspace/<id>`. 2026.6.35 gives the
default agent (first marked, else first) `agents.defaults.workspace`, the others `<it>/<id>`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.exitcodes import ExitCode
from tests.conftest import CliResult, RunCli

# A config of one shape, and the workspace 2026.9.6 (or 2026.6.35 for the list) gives each agent, in order.
Shape = Callable[[Path], tuple[dict[str, Any], dict[str, Path]]]


def _explicit(tmp: Path) -> tuple[dict[str, Any], dict[str, Path]]:
    """2026.9.6, ownership "explicit": the system agent `main` has no workspace of its own, and with
    three agents no one inherits agents.defaults.workspace: main's is `<it>/main`."""
    shared = tmp / "ws"
    config = {
        "agents": {
            "ownership": "explicit",
            "defaults": {"workspace": str(shared), "systemAgent": {"agentId": "main"}},
            "entries": {
                "main": {},
                "coder": {"workspace": str(tmp / "coder-ws")},
                "ops": {"memory": {"search": {"enabled": False}}},
            },
        }
    }
    return config, {"main": shared / "main", "coder": tmp / "coder-ws", "ops": shared / "ops"}


def _implicit(tmp: Path) -> tuple[dict[str, Any], dict[str, Path]]:
    """2026.9.6 without explicit ownership: the one `default: true` entry owns agents.defaults.workspace."""
    shared = tmp / "ws"
    config = {
        "agents": {
            "defaults": {"workspace": str(shared)},
            "entries": {
                "ops": {"memory": {"search": {"enabled": False}}},
                "main": {"default": True},
                "coder": {"workspace": str(tmp / "coder-ws")},
            },
        }
    }
    return config, {"ops": shared / "ops", "main": shared, "coder": tmp / "coder-ws"}


def _explicit_sole(tmp: Path) -> tuple[dict[str, Any], dict[str, Path]]:
    """Explicit ownership with one agent: the sole agent still owns agents.defaults.workspace."""
    shared = tmp / "ws"
    config = {
        "agents": {
            "ownership": "explicit",
            "defaults": {"workspace": str(shared), "systemAgent": {"agentId": "solo"}},
            "entries": {"solo": {}},
        }
    }
    return config, {"solo": shared}


def _listed(tmp: Path) -> tuple[dict[str, Any], dict[str, Path]]:
    """The 2026.6.35 shape: `agents.list`, the marked default agent inherits agents.defaults.workspace."""
    shared = tmp / "ws"
    config = {
        "agents": {
            "defaults": {"workspace": str(shared)},
            "list": [
                {"id": "coder", "workspace": str(tmp / "coder-ws")},
                {"id": "main", "default": True},
                {"id": "ops", "memorySearch": {"enabled": False}},
            ],
        },
        "memory": {"backend": "qmd"},
    }
    return config, {"coder": tmp / "coder-ws", "main": shared, "ops": shared / "ops"}


SHAPES: dict[str, Shape] = {
    "entries-explicit": _explicit,
    "entries-implicit": _implicit,
    "entries-explicit-sole": _explicit_sole,
    "list-2026.6": _listed,
}


def _json(result: CliResult, *codes: int) -> Any:
    assert result.returncode in (codes or (ExitCode.OK,)), result.stderr
    return json.loads(result.stdout)


def _pairs(agents: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(agent["agentId"], agent["workspace"]) for agent in agents]


_CHECK_WORKSPACE = re.compile(
    r'^workspace of agent "([^"]+)" does not exist: (.+?)(?:; agent .*)?$'
    r'|^agent "([^"]+)" has no memory/ directory in its workspace: (.+)/memory$'
)


def _listings(run: RunCli, config: Path, ids: list[str]) -> dict[str, list[tuple[str, str]]]:
    """What every command says: (id, workspace) in its order (completion: the ids with no workspace)."""
    base = ["--config", str(config)]
    out: dict[str, list[tuple[str, str]]] = {}
    out["config path"] = _pairs(_json(run([*base, "config", "path", "--json"]))["agents"])
    out["config show"] = _pairs(_json(run([*base, "config", "show", "--format", "json"]))["agents"])
    check = _json(run([*base, "config", "check", "--json"]))
    found = []
    for finding in check["findings"]:
        match = _CHECK_WORKSPACE.match(finding["message"])
        if match is not None:
            agent, workspace = (match.group(1), match.group(2)) if match.group(1) else match.groups()[2:]
            found.append((agent, workspace))
    out["config check"] = found
    out["scan"] = _pairs(_json(run([*base, "scan", "--all-agents", "--json"]))["agents"])
    out["status"] = _pairs(_json(run([*base, "status", "--json"]), *range(0, 7))["agents"])
    init = run([*base, "init-backends", "--dry-run", "--json"])
    out["init-backends"] = _pairs(_json(init, *range(0, 7))["agents"])
    for command in ("prelude", "context"):
        rows = [_json(run([*base, command, "--agent", agent, "--json"])) for agent in ids]
        out[command] = _pairs(rows)
    words = f"memwarm --config {config} prelude --agent "
    completion = run([], env={"_MEMWARM_COMPLETE": "bash_complete", "COMP_WORDS": words, "COMP_CWORD": "5"})
    assert completion.returncode == ExitCode.OK, completion.stderr
    out["completion"] = [(line.removeprefix("plain,"), "") for line in completion.stdout.splitlines()]
    return out


def _agree(run: RunCli, tmp_path: Path, shape: str) -> None:
    config_data, expected = SHAPES[shape](tmp_path)
    (tmp_path / "coder-ws").mkdir(exist_ok=True)  # one workspace that exists, the others do not
    config = tmp_path / "openclaw.json"
    config.write_text(json.dumps(config_data), encoding="utf-8")
    ids = list(expected)
    listings = _listings(run, config, ids)
    want = [(agent, str(workspace)) for agent, workspace in expected.items()]
    for command, listed in listings.items():
        if command == "completion":
            assert [agent for agent, _ in listed] == ids, command
        elif command == "config check":  # its findings are sorted by position, not in roster order
            assert sorted(listed) == sorted(want), command
        else:
            assert listed == want, command
    for agent in ids:  # search knows the same agents (it may refuse to search: not with "unknown agent")
        searched = run(["--config", str(config), "search", "--agent", agent, "hello"])
        assert searched.returncode != ExitCode.USAGE and "unknown agent" not in searched.stderr
    unknown = run(["--config", str(config), "search", "--agent", "nosuch", "hello"])
    assert unknown.returncode == ExitCode.USAGE and f"known agents: {', '.join(ids)}" in unknown.stderr


@pytest.mark.parametrize("shape", SHAPES)
def test_every_command_lists_the_same_agents_and_workspaces(
    run_cli: RunCli, tmp_path: Path, shape: str
) -> None:
    _agree(run_cli, tmp_path, shape)


@pytest.mark.parametrize("shape", ["entries-explicit", "list-2026.6"])
def test_the_installed_command_agrees_too(run_cli_process: RunCli, tmp_path: Path, shape: str) -> None:
    _agree(run_cli_process, tmp_path, shape)


def test_the_workspace_rule_is_said_where_it_applies(run_cli: RunCli, tmp_path: Path) -> None:
    """2026.8.1+ with explicit ownership: main's workspace is agents.defaults.workspace/main. config path,
    config show, config check and the missing-workspace warning say why in one line, with the fix."""
    config_data, expected = _explicit(tmp_path)
    (tmp_path / "coder-ws").mkdir()
    config = tmp_path / "openclaw.json"
    config.write_text(json.dumps(config_data), encoding="utf-8")
    base = ["--config", str(config)]
    rule = (
        'agent "main" has no workspace of its own, so OpenClaw 2026.8.1+ uses agents.defaults.workspace/main '
        '(with agents.ownership "explicit" no agent inherits it itself); to use another directory, set '
        "agents.entries.main.workspace"
    )
    text = run_cli([*base, "config", "path"]).stdout.splitlines()
    assert text[text.index(f"  workspace:  {expected['main']} (missing)") + 1] == f"  why:        {rule}"
    assert sum(line.startswith("  why: ") for line in text) == 2  # main and ops; coder has its own
    for args in (["config", "path", "--json"], ["config", "show", "--format", "json"]):
        rules = {a["agentId"]: a["workspaceRule"] for a in _json(run_cli([*base, *args]))["agents"]}
        assert rules["main"] == rule and rules["coder"] is None and rules["ops"] is not None, args
    findings = [f["message"] for f in _json(run_cli([*base, "config", "check", "--json"]))["findings"]]
    assert f'workspace of agent "main" does not exist: {expected["main"]}; {rule}' in findings
    prelude = run_cli([*base, "prelude"])
    assert f'memwarm: warning: workspace of agent "main" does not exist: {expected["main"]}; {rule}' in (
        prelude.stderr.splitlines()
    )
    # The owner of agents.defaults.workspace (implicit ownership, default: true) has no such line.
    config_data, _ = _implicit(tmp_path)
    config.write_text(json.dumps(config_data), encoding="utf-8")
    rules = {
        a["agentId"]: a["workspaceRule"]
        for a in _json(run_cli([*base, "config", "path", "--json"]))["agents"]
    }
    assert rules["main"] is None and "only the one agent with default: true" in rules["ops"]


@pytest.mark.parametrize("shape", ["entries-explicit", "entries-implicit"])
def test_memory_search_off_is_read_where_the_release_keeps_it(
    run_cli: RunCli, tmp_path: Path, shape: str
) -> None:
    """`agents.entries.ops.memory.search.enabled: false` (2026.8.1+): config path and config show say
    ops has no index, as status does; the others use the builtin index."""
    config_data, _ = SHAPES[shape](tmp_path)
    config = tmp_path / "openclaw.json"
    config.write_text(json.dumps(config_data), encoding="utf-8")
    base = ["--config", str(config)]
    listed = {a["agentId"]: a for a in _json(run_cli([*base, "config", "path", "--json"]))["agents"]}
    assert listed["ops"]["backend"] == "none (memory search disabled)"
    assert listed["main"]["backend"] == "builtin"
    shown = {a["agentId"]: a for a in _json(run_cli([*base, "config", "show", "--format", "json"]))["agents"]}
    assert shown["ops"]["backend"]["backend"] is None and shown["main"]["backend"]["backend"] == "builtin"
    status = {a["agentId"]: a for a in _json(run_cli([*base, "status", "--json"]), *range(0, 8))["agents"]}
    assert status["ops"]["status"] == "skipped" and status["main"]["status"] != "skipped"
