"""Lone surrogates in config strings (valid JSON5 and YAML: `"\\ud800"`) are handled as Node handles them.

Node keeps a lone surrogate in a JS string and writes it as U+FFFD wherever the string reaches the OS (a
file name, a spawned command's argv or env). memwarm reads config strings that way from the start, so no
path, include target, qmd argument or env value is ever unencodable; `config check` warns at the value.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.config import load_config
from memwarm_cli.configview.check import check_config
from memwarm_cli.profiles.releases import P0
from tests.backends.support import real_qmd_scenario
from tests.conftest import RunCli
from tests.profiles.support import choose

LONE = "\ud800"
REPLACED = "\ufffd"
AT = "2026-04-11T12:00:00Z"


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")  # json.dumps writes "\ud800" as an escape
    return path


def workspace_with_note(parent: Path, name: str) -> Path:
    workspace = parent / name
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "2026-04-11.md").write_text("note in the replaced workspace", encoding="utf-8")
    return workspace


@pytest.mark.parametrize(
    "config",
    [
        {"agents": {"defaults": {"workspace": "WS"}}},
        {"agents": {"list": [{"id": "a", "workspace": "WS"}]}},
    ],
    ids=["defaults.workspace", "list.workspace"],
)
@pytest.mark.parametrize("command", [["prelude"], ["scan", "--format", "plain"], ["scan", "--json"]])
def test_workspace_with_a_lone_surrogate_is_read_where_node_reads_it(
    run_cli: RunCli, tmp_path: Path, config: dict[str, Any], command: list[str]
) -> None:
    workspace_with_note(tmp_path, f"w{REPLACED}")
    text = json.dumps(config).replace("WS", str(tmp_path / "w") + "\\ud800")
    cfg = tmp_path / "c.json5"
    cfg.write_text(text, encoding="utf-8")
    result = run_cli(["--config", str(cfg), *command, "--at", AT])
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    if command[-1] == "plain":
        assert "\tmemory/2026-04-11.md\tincluded\t" in result.stdout
    else:
        assert "note in the replaced workspace" in result.stdout


PATH_CONFIGS: dict[str, Any] = {
    "qmd.paths": {"memory": {"backend": "qmd", "qmd": {"paths": [{"path": "d" + LONE, "name": "n" + LONE}]}}},
    "qmd.pattern": {
        "memory": {"backend": "qmd", "qmd": {"paths": [{"path": "/tmp", "pattern": "*" + LONE}]}}
    },
    "extraPaths": {"agents": {"defaults": {"memorySearch": {"extraPaths": ["/x" + LONE]}}}},
    "command": {"memory": {"backend": "qmd", "qmd": {"command": "/x/q" + LONE + " --flag"}}},
    "store.path": {"agents": {"defaults": {"memorySearch": {"store": {"path": "~/s" + LONE}}}}},
    "exportDir": {"memory": {"backend": "qmd", "qmd": {"sessions": {"enabled": True, "exportDir": LONE}}}},
    "env.vars": {"env": {"vars": {"SOME_VAR": "v" + LONE}}, "memory": {"backend": "qmd"}},
    "userTimezone": {"agents": {"defaults": {"userTimezone": "Europe/" + LONE}}},
    "key": {"memory": {"qmd": {LONE: 1}}},
}


@pytest.mark.parametrize("name", sorted(PATH_CONFIGS))
def test_every_command_reads_lone_surrogates_without_a_traceback(
    run_cli: RunCli, tmp_path: Path, name: str
) -> None:
    cfg = write_json(tmp_path / "c.json", PATH_CONFIGS[name])
    for command in (
        ["config", "path", "--json"],
        ["config", "check"],
        ["config", "show", "--format", "toml"],
        ["prelude", "--json", "--at", AT],
        ["init-backends", "--dry-run", "--json"],
    ):
        result = run_cli(["--config", str(cfg), *command])
        # init-backends refuses a config OpenClaw 2026.6.35 refuses (an unknown key, store.path): one line
        refused = command[0] == "init-backends" and result.returncode == 3 and result.stderr.count("\n") == 1
        assert "Traceback" not in result.stderr and (result.returncode in (0, 1) or refused), (
            command,
            result.stderr,
        )
        assert LONE not in result.stdout.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


def test_dry_run_plans_the_replaced_pattern_and_env(run_cli: RunCli, tmp_path: Path) -> None:
    workspace = workspace_with_note(tmp_path, "ws")
    config = {
        "env": {"vars": {"SOME_VAR": "v" + LONE}},
        "agents": {"defaults": {"workspace": str(workspace)}},
        "memory": {
            "backend": "qmd",
            "qmd": {"command": "sh", "paths": [{"path": str(workspace), "pattern": "*" + LONE}]},
        },
    }
    cfg = write_json(tmp_path / "c.json", config)
    result = run_cli(["--config", str(cfg), "init-backends", "--dry-run", "--json"])
    assert result.returncode == 0, result.stderr
    (agent,) = json.loads(result.stdout)["agents"]
    patterns = [c["pattern"] for c in agent["collections"]]
    assert "*" + REPLACED in patterns


def test_include_target_with_a_lone_surrogate(tmp_path: Path) -> None:
    (tmp_path / f"part{REPLACED}.json5").write_text("{agents: {defaults: {userTimezone: 'UTC'}}}")
    cfg = tmp_path / "c.json5"
    cfg.write_text('{$include: "part\\ud800.json5"}')
    loaded = load_config(str(cfg), {"HOME": str(tmp_path)})
    assert loaded.data == {"agents": {"defaults": {"userTimezone": "UTC"}}}


@pytest.mark.parametrize(
    ("name", "text", "line", "column"),
    [
        ("c.json5", '{\n  agents: {defaults: {workspace: "/w\\ud800"}},\n}', 2, 23),
        ("c.yaml", 'agents:\n  defaults:\n    workspace: "/w\\ud800"\n', 3, 5),
    ],
)
def test_config_check_warns_at_the_value(
    tmp_path: Path, name: str, text: str, line: int, column: int
) -> None:
    cfg = tmp_path / name
    cfg.write_text(text, encoding="utf-8")
    report = check_config(str(cfg), {"HOME": str(tmp_path)}, host_zone="UTC", choose_release=choose(P0))
    (finding,) = [f for f in report.findings if "lone surrogate" in f.message]
    assert (finding.severity, finding.path) == ("warning", "agents.defaults.workspace")
    assert (finding.file, finding.line, finding.column) == (str(cfg), line, column)
    assert "\\ud800" in finding.message and "U+FFFD" in finding.message
    data = load_config(str(cfg), {"HOME": str(tmp_path)}).data
    assert data["agents"]["defaults"]["workspace"] == "/w" + REPLACED


def test_surrogate_pairs_still_form_one_character(tmp_path: Path) -> None:
    cfg = tmp_path / "c.json5"
    cfg.write_text('{a: "\\ud83d\\ude00", "\\ud83d\\ude01": 1}')
    report = check_config(str(cfg), {"HOME": str(tmp_path)}, host_zone="UTC", choose_release=choose(P0))
    assert not [f for f in report.findings if "lone surrogate" in f.message]
    assert load_config(str(cfg), {"HOME": str(tmp_path)}).data == {"a": "😀", "😁": 1}


@pytest.mark.qmd
def test_real_qmd_gets_the_replaced_pattern_and_env(tmp_path: Path) -> None:
    scenario = real_qmd_scenario(
        tmp_path,
        {"main": {"memory/2026-01-01.md": "# Day\nQuokka notes.\n", f"notes/a{REPLACED}.md": "# A\nx\n"}},
        {
            "env": {"vars": {"SOME_VAR": "v" + LONE}},
            "memory": {
                "backend": "qmd",
                "qmd": {"paths": [{"path": "notes", "pattern": "*" + LONE + ".md"}]},
            },
        },
    )
    result, report = scenario.run_json(["--no-embed"])
    assert result.returncode == 0, result.stderr
    (agent,) = report["agents"]
    assert agent["status"] == "armed", agent
    custom = [c for c in agent["collections"] if c["kind"] == "custom"]
    assert [(c["pattern"], c["action"]) for c in custom] == [("*" + REPLACED + ".md", "added")]
