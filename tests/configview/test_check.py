"""config check (core): each finding, with where it stands, for every format."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memwarm_cli.backends.qmd.qmd_diagnosis import resolve_executable
from memwarm_cli.configview.check import CheckReport, Finding, check_config
from memwarm_cli.errors import ConfigError
from memwarm_cli.profiles.releases import P0
from memwarm_cli.textsafe import escape_text
from tests.profiles.support import choose
from tests.terminal_safety import assert_one_safe_line


def _which_none(command: str, env: Mapping[str, str], cwd: Path) -> str | None:
    return None


def _which_all(command: str, env: Mapping[str, str], cwd: Path) -> str | None:
    return "/usr/bin/" + command


def run_check(home_dir: Path, name: str, text: str, **kw: Any) -> CheckReport:
    cfg = home_dir.parent / name
    cfg.write_text(text)
    kw.setdefault("find_executable", _which_all)
    kw.setdefault("host_zone", "UTC")
    kw.setdefault("choose_release", choose(P0))
    return check_config(str(cfg), {"HOME": str(home_dir), "PATH": "/nonexistent"}, **kw)


def only(report: CheckReport, path: str) -> Finding:
    matches = [f for f in report.findings if f.path == path]
    assert len(matches) == 1, report.findings
    return matches[0]


def make_workspace(home_dir: Path, *parts: str) -> Path:
    ws = home_dir.joinpath(*parts)
    (ws / "memory").mkdir(parents=True)
    return ws


def test_clean_config_has_no_findings(home_dir: Path) -> None:
    make_workspace(home_dir, "ws")
    report = run_check(
        home_dir,
        "c.json5",
        "{agents: {defaults: {workspace: '~/ws', userTimezone: 'Europe/Berlin',"
        " startupContext: {enabled: true, applyOn: ['new'], dailyMemoryDays: 14, maxFileBytes: 65536,"
        " maxFileChars: 10000, maxTotalChars: 50000}}, list: [{id: 'main', default: true}]},"
        " memory: {backend: 'builtin', citations: 'auto'}, gateway: {anything: [1, 2]}}",
    )
    assert report.findings == []
    assert not report.failed(strict=True)


def test_missing_default_config_is_clean(home_dir: Path) -> None:
    report = check_config(None, {"HOME": str(home_dir)}, choose_release=choose(P0))
    assert report.findings == [] and not report.source.exists


# -- errors, each at the position of its key, in each format ---------------------------------------------

RANGE_CASES = {
    "c.json5": ("{\n  agents: {defaults: {startupContext: {\n    dailyMemoryDays: 15,\n  }}},\n}\n", 3, 5),
    "c.json": ('{"agents": {"defaults": {"startupContext":\n  {"dailyMemoryDays": 15}}}}', 2, 4),
    "c.yaml": ("agents:\n  defaults:\n    startupContext:\n      dailyMemoryDays: 15\n", 4, 7),
    "c.toml": ("[agents.defaults.startupContext]\n# days\n  dailyMemoryDays = 15\n", 3, 3),
}


@pytest.mark.parametrize("name", list(RANGE_CASES))
def test_out_of_range_position_in_each_format(home_dir: Path, name: str) -> None:
    text, line, column = RANGE_CASES[name]
    report = run_check(home_dir, name, text)
    finding = only(report, "agents.defaults.startupContext.dailyMemoryDays")
    assert (finding.file, finding.line, finding.column) == (str(home_dir.parent / name), line, column)
    assert finding.severity == "error"
    assert finding.message == "15 is out of range: must be between 1 and 14"
    assert report.failed()


@pytest.mark.parametrize(
    ("snippet", "path", "message"),
    [
        ("agents: {defaults: {workspace: 5}}", "agents.defaults.workspace", "expected a string, got number"),
        (
            "agents: {defaults: {userTimezone: null}}",
            "agents.defaults.userTimezone",
            "expected a string, got null",
        ),
        (
            "agents: {defaults: {startupContext: []}}",
            "agents.defaults.startupContext",
            "expected an object, got array",
        ),
        (
            "agents: {defaults: {startupContext: {enabled: 'false'}}}",
            "agents.defaults.startupContext.enabled",
            "expected a boolean (true or false), got string",
        ),
        (
            "agents: {defaults: {startupContext: {applyOn: ['new', 'rest']}}}",
            "agents.defaults.startupContext.applyOn[1]",
            '"rest" is not one of "new", "reset" (did you mean "reset"?)',
        ),
        (
            "agents: {defaults: {startupContext: {maxFileChars: 2.5}}}",
            "agents.defaults.startupContext.maxFileChars",
            "expected an integer, got 2.5",
        ),
        (
            "agents: {defaults: {startupContext: {maxTotalChars: 0}}}",
            "agents.defaults.startupContext.maxTotalChars",
            "0 is out of range: must be between 1 and 50000",
        ),
        (
            "agents: {defaults: {startupContext: {maxFileBytes: Infinity}}}",
            "agents.defaults.startupContext.maxFileBytes",
            "expected an integer, got Infinity",
        ),
        (
            "agents: {defaults: {startupContext: {dailyMemoryDay: 3}}}",
            "agents.defaults.startupContext.dailyMemoryDay",
            'unknown key (did you mean "dailyMemoryDays"?)',
        ),
        (
            "agents: {defaults: {startupContext: {zzz: 3}}}",
            "agents.defaults.startupContext.zzz",
            "unknown key",
        ),
        (
            "agents: {defaults: {memorySearch: {provider: 7}}}",
            "agents.defaults.memorySearch.provider",
            "expected a string, got number",
        ),
        (
            "agents: {defaults: {memorySearch: {remote: {apiKey: {source: 'vault', provider: 'a', id: "
            "'X'}}}}}",
            "agents.defaults.memorySearch.remote.apiKey",
            'a secret reference\'s source must be "env", "file" or "exec", got "vault"',
        ),
        (
            "agents: {defaults: {memorySearch: {remote: {apiKey: {source: 'env', provider: 'Bad', id: "
            "'X'}}}}}",
            "agents.defaults.memorySearch.remote.apiKey.provider",
            '"Bad" is not a provider alias matching /^[a-z][a-z0-9_-]{0,63}$/',
        ),
        (
            "agents: {defaults: {memorySearch: {remote: {apiKey: {source: 'file', provider: 'a', id: "
            "'rel'}}}}}",
            "agents.defaults.memorySearch.remote.apiKey.id",
            '"rel" is not an absolute JSON pointer (such as "/providers/openai/apiKey") or "value"',
        ),
        (
            "agents: {defaults: {memorySearch: {local: {contextSize: 0}}}}",
            "agents.defaults.memorySearch.local.contextSize",
            'expected an integer or "auto", got 0',
        ),
        (
            "agents: {defaults: {memorySearch: {store: {path: '/x'}}}}",
            "agents.defaults.memorySearch.store.path",
            "unknown key: OpenClaw 2026.6.35 refuses the config with memorySearch.store.path; the builtin "
            "index is <stateDir>/agents/<agentId>/agent/openclaw-agent.sqlite",
        ),
        (
            "agents: {defaults: {memorySearch: {sync: {watchh: true}}}}",
            "agents.defaults.memorySearch.sync.watchh",
            'unknown key (did you mean "watch"?)',
        ),
        (
            "agents: {defaults: {bootstrapMaxChars: 1e20}}",
            "agents.defaults.bootstrapMaxChars",
            "expected a safe integer (at most 2^53 - 1 either side of 0), got 100000000000000000000",
        ),
        (
            "memory: {qmd: {searchTool: '   '}}",
            "memory.qmd.searchTool",
            '"   " is too short: at least 1 character (blank once trimmed)',
        ),
        (
            "memory: {qmd: {rerank: 'no'}}",
            "memory.qmd.rerank",
            "expected a boolean (true or false), got string",
        ),
        (
            "memory: {qmd: {scope: {default: 'maybe'}}}",
            "memory.qmd.scope.default",
            '"maybe" is not one of "allow", "deny"',
        ),
        (
            "memory: {qmd: {scope: {rules: [{}]}}}",
            "memory.qmd.scope.rules[0].action",
            'required key "action" is missing',
        ),
        ("env: {FOO: 1}", "env.FOO", "expected a string, got number"),
        (
            "session: {reset: {atHour: 24}}",
            "session.reset.atHour",
            "24 is out of range: must be between 0 and 23",
        ),
        ("agentz: 1", "agentz", 'unknown key (did you mean "agents"?)'),
        (
            "memorySearch: {}",
            "memorySearch",
            "unknown key: memorySearch belongs under agents.defaults (or an agents.list[] entry); OpenClaw "
            "2026.6.35 refuses it at the top level",
        ),
        (
            "agents: {defaults: {workspce: '/x'}}",
            "agents.defaults.workspce",
            'unknown key (did you mean "workspace"?)',
        ),
        (
            "agents: {list: [{id: 'a', worksapce: '/y'}]}",
            "agents.list[0].worksapce",
            'unknown key (did you mean "workspace"?)',
        ),
        ("agents: {list: [{id: 'a', tools: {bogus: 1}}]}", "agents.list[0].tools.bogus", "unknown key"),
        (
            "agents: {list: [{id: 'a', startupContext: {}}]}",
            "agents.list[0].startupContext",
            "unknown key: OpenClaw 2026.6.35 reads startupContext from agents.defaults only and "
            "refuses it on "
            "an agents.list[] entry",
        ),
        (
            "agents: {defaults: {memorySearch: {backend: 'qmd'}}}",
            "agents.defaults.memorySearch.backend",
            "unknown key: OpenClaw 2026.6.35 refuses the config with memorySearch.backend (memwarm "
            "used to read "
            "it as memory.backend); the backend is memory.backend, for every agent",
        ),
        (
            "agents: {list: [{id: 'a', memorySearch: {qmd: {command: 'qmd'}}}]}",
            "agents.list[0].memorySearch.qmd.command",
            "unknown key: memorySearch.qmd holds only extraCollections in OpenClaw 2026.6.35, which "
            "refuses the "
            "config with command in it; the qmd settings are memory.qmd.command",
        ),
        (
            "agents: {list: [{id: 'a', memorySearch: {qmd: {extraCollections: [{name: 'n'}]}}}]}",
            "agents.list[0].memorySearch.qmd.extraCollections[0].path",
            'required key "path" is missing',
        ),
        (
            "agents: {defaults: {memorySearch: {query: {minScore: 1.5}}}}",
            "agents.defaults.memorySearch.query.minScore",
            "1.5 is out of range: must be between 0 and 1",
        ),
        (
            "agents: {defaults: {memorySearch: {extraPath: []}}}",
            "agents.defaults.memorySearch.extraPath",
            'unknown key (did you mean "extraPaths"?)',
        ),
        ("agents: {list: {id: 'a'}}", "agents.list", "expected an array of agent entries, got object"),
        ("agents: {list: [null]}", "agents.list[0]", "a list entry must be an object, got null"),
        ("agents: {list: [{default: true}]}", "agents.list[0].id", 'required key "id" is missing'),
        ("agents: {list: [{id: 7}]}", "agents.list[0].id", "expected a string, got number"),
        (
            "agents: {list: [{id: 'a', default: 1}]}",
            "agents.list[0].default",
            "expected a boolean (true or false), got number",
        ),
        (
            "agents: {list: [{id: 'a', memorySearch: {enabled: 'no'}}]}",
            "agents.list[0].memorySearch.enabled",
            "expected a boolean (true or false), got string",
        ),
        ("agents: {lists: []}", "agents.lists", 'unknown key (did you mean "list"?)'),
        ("agents: 3", "agents", "expected an object, got number"),
        (
            "memory: {backend: 'QMD'}",
            "memory.backend",
            '"QMD" is not one of "builtin", "qmd" (did you mean "qmd"?)',
        ),
        ("memory: {citations: 'yes'}", "memory.citations", '"yes" is not one of "auto", "on", "off"'),
        (
            "memory: {qmd: {searchMode: 'fast'}}",
            "memory.qmd.searchMode",
            '"fast" is not one of "query", "search", "vsearch"',
        ),
        (
            "memory: {qmd: {paths: [{name: 'x'}]}}",
            "memory.qmd.paths[0].path",
            'required key "path" is missing',
        ),
        (
            "memory: {qmd: {limits: {maxResults: 0}}}",
            "memory.qmd.limits.maxResults",
            "0 is out of range: must be > 0",
        ),
        (
            "memory: {qmd: {update: {debounceMs: -1}}}",
            "memory.qmd.update.debounceMs",
            "-1 is out of range: must be >= 0",
        ),
        ("memory: {qmd: {comand: 'qmd'}}", "memory.qmd.comand", 'unknown key (did you mean "command"?)'),
        (
            "memory: {search: {}}",
            "memory.search",
            "unknown key: memory.search (later OpenClaw versions) is not read by this config shape "
            "(2026.2-2026.6); use agents.defaults.memorySearch",
        ),
    ],
)
def test_schema_errors(home_dir: Path, snippet: str, path: str, message: str) -> None:
    report = run_check(home_dir, "c.json5", "{" + snippet + "}")
    errors = [f for f in report.findings if f.severity == "error"]
    assert [(f.path, f.message) for f in errors] == [(path, message)]


def test_values_of_keys_memwarm_does_not_judge_are_not_judged(home_dir: Path) -> None:
    """Keys the release accepts are accepted with any value where memwarm does not model the value."""
    report = run_check(
        home_dir,
        "c.json5",
        "{gateway: {port: 'x'}, channels: {any: 1}, agents: {defaults: {model: 5, heartbeat: {}},"
        " list: [{id: 'main', identity: 3, tools: {exec: 'x'}}]}}",
    )
    assert [f for f in report.findings if f.severity == "error"] == []


def test_unknown_keys_are_errors_everywhere_as_the_release_rejects_them(home_dir: Path) -> None:
    """6.35's objects are strict at the top level, in agents.defaults and in every list entry too."""
    report = run_check(
        home_dir,
        "c.json5",
        "{agent: {}, agents: {defaults: {workspce: '/x'}, list: [{id: 'a', worksapce: '/y'}]}}",
    )
    found = {(f.path, f.severity, f.message) for f in report.findings if "unknown key" in f.message}
    assert found == {
        ("agent", "error", 'unknown key (did you mean "agents"?)'),
        ("agents.defaults.workspce", "error", 'unknown key (did you mean "workspace"?)'),
        ("agents.list[0].worksapce", "error", 'unknown key (did you mean "workspace"?)'),
    }


def test_unparsable_qmd_durations_are_warnings(home_dir: Path) -> None:
    text = "{memory: {qmd: {update: {interval: '5 min', embedInterval: '0'}}}}"
    report = run_check(home_dir, "c.json5", text)
    finding = only(report, "memory.qmd.update.interval")
    assert finding.severity == "warning"
    assert finding.message == '"5 min" is not a duration such as "5m", "90s" or "1h"; the default 5m is used'
    assert [f for f in report.findings if f.path == "memory.qmd.update.embedInterval"] == []


def test_agents_entries_has_a_specific_message(home_dir: Path) -> None:
    report = run_check(home_dir, "c.json5", "{agents: {entries: {main: {}}}}")
    assert "agents.list" in only(report, "agents.entries").message


def test_top_level_array_is_an_error_finding(home_dir: Path) -> None:
    report = run_check(home_dir, "c.json5", "\n [1]")
    (finding,) = report.findings
    assert (finding.severity, finding.line, finding.column, finding.path) == ("error", 2, 2, "")


@pytest.mark.parametrize("text", ["'text'", "null", "5", "true"])
def test_top_level_scalar_is_an_error_as_the_release_refuses_it(home_dir: Path, text: str) -> None:
    make_workspace(home_dir, ".openclaw", "workspace")
    report = run_check(home_dir, "c.json5", "\n " + text)
    (finding,) = report.findings
    assert (finding.severity, finding.path, finding.line, finding.column) == ("error", "", 2, 2)
    assert "not an object: OpenClaw 2026.6.35 refuses this config" in finding.message
    assert not report.unreadable


# -- include errors ---------------------------------------------------------------------------------------


def test_include_errors_are_all_reported(home_dir: Path) -> None:
    make_workspace(home_dir, ".openclaw", "workspace")
    cfg_dir = home_dir.parent
    (cfg_dir / "bad.json5").write_text("{\n  a: }")
    (cfg_dir / "good.json5").write_text("{defaults: {startupContext: {dailyMemoryDays: 99}}}")
    report = run_check(
        home_dir,
        "c.json5",
        "{\n  agents: {$include: ['good.json5', 'bad.json5', 3]},\n  memory: {$include: '../../x.json5'},\n}",
    )
    cfg = str(cfg_dir / "c.json5")
    rows = [(f.file, f.line, f.column, f.severity, f.path, f.message) for f in report.findings]
    assert rows == [
        (
            cfg,
            2,
            37,
            "error",
            "agents.$include[1]",
            f"Failed to parse include file: bad.json5 (resolved: {cfg_dir / 'bad.json5'})",
        ),
        (
            cfg,
            2,
            50,
            "error",
            "agents.$include[2]",
            "Invalid $include array item: expected string, got number",
        ),
        (
            cfg,
            3,
            12,
            "error",
            "memory.$include",
            f"Include path escapes config directory: ../../x.json5 (root: {cfg_dir})",
        ),
        (str(cfg_dir / "bad.json5"), 2, 6, "error", "agents.$include[1]", "JSON5: invalid character '}'"),
        (
            str(cfg_dir / "good.json5"),
            1,
            30,
            "error",
            "agents.defaults.startupContext.dailyMemoryDays",
            "99 is out of range: must be between 1 and 14",
        ),
    ]


def test_include_error_messages_in_check(home_dir: Path) -> None:
    make_workspace(home_dir, ".openclaw", "workspace")
    cfg_dir = home_dir.parent
    (cfg_dir / "a.json5").write_text("{$include: 'a.json5'}")
    (cfg_dir / "list.json5").write_text("[1]")
    text = (
        "{gateway: {$include: 'a.json5'}, channels: {$include: 'list.json5', z: 1}, hooks: {$include: false}}"
    )
    report = run_check(home_dir, "c.json5", text)
    messages = [f.message for f in report.findings]
    a = cfg_dir / "a.json5"
    # sorted by file: the circular include stands in a.json5
    assert messages == [
        "Sibling keys require included content to be an object",
        "Invalid $include value: expected string or array of strings, got boolean",
        f"Circular include detected: {cfg_dir / 'c.json5'} -> {a} -> {a}",
    ]
    assert report.findings[2].file == str(a)


# -- warnings ---------------------------------------------------------------------------------------------


def test_agent_warnings(home_dir: Path) -> None:
    make_workspace(home_dir, "ws")
    (home_dir / "nomem").mkdir()
    report = run_check(
        home_dir,
        "c.yaml",
        """agents:
  defaults:
    workspace: ~/ws
    userTimezone: Mars/Olympus
  list:
    - id: Main
      default: true
    - id: main
      default: true
    - id: Ops Team
      workspace: ~/missing
    - id: memless
      workspace: ~/nomem
""",
    )
    cfg = str(home_dir.parent / "c.yaml")
    rows = [(f.line, f.column, f.path, f.message) for f in report.findings]
    assert all(f.severity == "warning" and f.file == cfg for f in report.findings)
    assert rows == [
        (
            4,
            5,
            "agents.defaults.userTimezone",
            '"Mars/Olympus" is not a time zone OpenClaw knows; it falls back to the host zone (UTC)',
        ),
        (6, 7, "agents.list[0].id", 'id "Main" is used as "main"'),
        (
            8,
            7,
            "agents.list[1].id",
            'normalises to "main", the same agent id as agents.list[0]: '
            "OpenClaw uses agents.list[0] for this agent "
            "and ignores this entry",
        ),
        (
            9,
            7,
            "agents.list[1].default",
            "more than one agent is marked default; "
            'the first one (agents.list[0], "main") is the default agent',
        ),
        (10, 7, "agents.list[2].id", 'id "Ops Team" is used as "ops-team"'),
        (
            11,
            7,
            "agents.list[2].workspace",
            f'workspace of agent "ops-team" does not exist: {home_dir / "missing"}',
        ),
        (
            13,
            7,
            "agents.list[3].workspace",
            f'agent "memless" has no memory/ directory in its workspace: {home_dir / "nomem" / "memory"}',
        ),
    ]
    assert not report.failed() and report.failed(strict=True)


def test_unresolved_variable_warning(home_dir: Path) -> None:
    report = run_check(home_dir, "c.toml", '[agents.defaults]\nworkspace = "${NOPE_VAR}/ws"\n')
    first, second = report.findings
    assert (first.path, first.line, first.column, first.severity) == (
        "agents.defaults.workspace",
        2,
        1,
        "warning",
    )
    assert first.message == (
        'missing env var "NOPE_VAR": the placeholder is kept, '
        "and the feature using this value will be unavailable"
    )
    # the workspace, with the placeholder left in, does not exist: reported at the same key
    assert (second.path, second.line) == ("agents.defaults.workspace", 2)
    assert "does not exist" in second.message and "${NOPE_VAR}" in second.message


def test_memory_search_backend_and_qmd_block_are_errors_and_memory_qmd_is_what_counts(home_dir: Path) -> None:
    """memwarm once read memorySearch.backend / a memorySearch.qmd block; 6.35 refuses the config with
    them. The qmd command findings are memory.qmd's, for every qmd agent."""
    make_workspace(home_dir, ".openclaw", "workspace")
    make_workspace(home_dir, "ops")
    report = run_check(
        home_dir,
        "c.json5",
        "{agents: {\n defaults: {memorySearch: {backend: 'qmd',\n qmd: {command: 'x'}}},\n"
        " list: [{id: 'main'}, {id: 'ops', workspace: '~/ops'}]},\n"
        " memory: {backend: 'qmd', qmd: {command: 'no-such-qmd --flag'}}}",
        find_executable=_which_none,
    )
    rows = [(f.line, f.column, f.severity, f.path, f.message.split(";")[0]) for f in report.findings]
    assert rows == [
        (
            2,
            28,
            "error",
            "agents.defaults.memorySearch.backend",
            "unknown key: OpenClaw 2026.6.35 refuses the config with memorySearch.backend (memwarm used to "
            "read it as memory.backend)",
        ),
        (
            3,
            8,
            "error",
            "agents.defaults.memorySearch.qmd.command",
            "unknown key: memorySearch.qmd holds only extraCollections in OpenClaw 2026.6.35, which "
            "refuses the "
            "config with command in it",
        ),
        (
            5,
            33,
            "warning",
            "memory.qmd.command",
            '"no-such-qmd --flag": OpenClaw runs only its first word, "no-such-qmd", and silently drops the '
            'rest ("--flag")',
        ),
        (
            5,
            33,
            "warning",
            "memory.qmd.command",
            'qmd command "no-such-qmd" not found: looked for "no-such-qmd" on PATH=/nonexistent',
        ),
    ]
    assert report.findings[-1].message.endswith("agents using qmd: main, ops")


def test_extra_collections_are_accepted_and_a_custom_copy_of_a_default_is_warned_about(
    home_dir: Path,
) -> None:
    ws = make_workspace(home_dir, ".openclaw", "workspace")
    (ws / "MEMORY.md").write_text("m\n")
    report = run_check(
        home_dir,
        "c.json5",
        "{agents: {defaults: {memorySearch: {qmd: {extraCollections: [{path: '/srv/notes', name: 'n'}]}}}},\n"
        " memory: {backend: 'qmd', qmd: {rerank: false, searchTool: 'hybrid_search',\n"
        " paths: [{path: 'memory'}, {path: 'MEMORY.md'}]}}}",
    )
    rows = [(f.severity, f.path, f.line) for f in report.findings]
    assert rows == [("warning", "memory.qmd.paths[0]", 3), ("warning", "memory.qmd.paths[1]", 3)]
    assert report.findings[0].message.startswith(
        'the collection custom-1-main has the path and pattern of memory-dir-main (agent "main"'
    )
    assert (
        "OpenClaw 2026.6.35 swaps the two at every open and its memory search fails"
        in report.findings[0].message
    )


def _executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


@pytest.mark.parametrize(
    ("shebang", "version", "warned"),
    [
        ("#!/usr/bin/env node", "v20.11.1", True),  # what `npm install -g @tobilu/qmd` installs
        ("#!/usr/bin/env -S node --no-warnings", "v18.19.0", True),
        ("#!/usr/bin/env node", "v22.23.0", False),
        ("#!/bin/sh", "v20.11.1", False),  # a launcher of its own (tools/bin/qmd) picks its node itself
    ],
)
def test_a_qmd_that_would_run_on_an_old_node_is_warned_about(
    home_dir: Path, tmp_path: Path, shebang: str, version: str, warned: bool
) -> None:
    make_workspace(home_dir, ".openclaw", "workspace")
    bin_dir = tmp_path / "bin"
    qmd = _executable(bin_dir / "qmd", f"{shebang}\nconsole.log('qmd')\n")
    node = _executable(bin_dir / "node", f"#!/bin/sh\necho {version}\n")
    cfg = home_dir.parent / "c.json5"
    cfg.write_text("{memory: {backend: 'qmd'}}")
    report = check_config(
        str(cfg), {"HOME": str(home_dir), "PATH": str(bin_dir)}, host_zone="UTC", choose_release=choose(P0)
    )
    messages = [f.message for f in report.findings]
    if not warned:
        assert messages == []
        return
    assert messages == [
        f"{qmd} runs on {node} ({version}), and qmd needs Node.js 22 or later: on an older one it crashes "
        "(SIGSEGV); OpenClaw 2026.6.35 itself needs Node >=22.19.0; agents using qmd: main"
    ]
    assert report.findings[0].path == "memory.backend"


def test_the_node_warning_says_which_node_the_selected_release_needs(home_dir: Path, tmp_path: Path) -> None:
    from memwarm_cli.profiles.releases import P1

    make_workspace(home_dir, ".openclaw", "workspace")
    bin_dir = tmp_path / "bin"
    _executable(bin_dir / "qmd", "#!/usr/bin/env node\n")
    _executable(bin_dir / "node", "#!/bin/sh\necho v20.11.1\n")
    cfg = home_dir.parent / "c.json5"
    cfg.write_text("{memory: {backend: 'qmd'}}")
    env = {"HOME": str(home_dir), "PATH": str(bin_dir)}
    report = check_config(str(cfg), env, host_zone="UTC", choose_release=choose(P1, "2026.7.35"))
    (finding,) = report.findings
    assert "(v20.11.1), and qmd needs Node.js 22 or later" in finding.message
    assert (
        "; OpenClaw 2026.7.35 itself needs Node >=22.22.3 <23 || >=24.15.0 <25 || >=25.9.0;"
        in finding.message
    )


def test_a_qmd_whose_node_is_missing_is_warned_about(home_dir: Path, tmp_path: Path) -> None:
    make_workspace(home_dir, ".openclaw", "workspace")
    bin_dir = tmp_path / "bin"
    qmd = _executable(bin_dir / "qmd", "#!/usr/bin/env node\n")
    cfg = home_dir.parent / "c.json5"
    cfg.write_text(f"{{memory: {{backend: 'qmd', qmd: {{command: '{qmd}'}}}}}}")
    report = check_config(
        str(cfg), {"HOME": str(home_dir), "PATH": "/nonexistent"}, host_zone="UTC", choose_release=choose(P0)
    )
    (finding,) = report.findings
    assert finding.path == "memory.qmd.command"
    assert finding.message == (
        f"{qmd} runs the node on its PATH, and there is none on PATH=/nonexistent; qmd needs Node.js 22 "
        "or later; OpenClaw 2026.6.35 itself needs Node >=22.19.0; agents using qmd: main"
    )


@pytest.mark.parametrize(
    ("command", "dropped"),
    [("qmd --index work", "--index work"), ("'/opt/my qmd/qmd' -v 'a b'", "-v 'a b'"), ("qmd", None)],
)
def test_extra_words_in_the_command_are_warned_about(
    home_dir: Path, command: str, dropped: str | None
) -> None:
    make_workspace(home_dir, ".openclaw", "workspace")
    report = run_check(home_dir, "c.json5", f'{{memory: {{backend: "qmd", qmd: {{command: "{command}"}}}}}}')
    messages = [f.message for f in report.findings if f.path == "memory.qmd.command"]
    if dropped is None:
        assert messages == []
    else:
        assert len(messages) == 1 and f'silently drops the rest ("{dropped}")' in messages[0]


def test_qmd_found_and_upstream_spelling_is_quiet(home_dir: Path) -> None:
    make_workspace(home_dir, ".openclaw", "workspace")
    report = run_check(home_dir, "c.json5", "{memory: {backend: 'qmd'}}", find_executable=_which_all)
    assert report.findings == []
    report = run_check(home_dir, "c.json5", "{memory: {backend: 'qmd'}}", find_executable=_which_none)
    (finding,) = report.findings
    assert (finding.path, finding.line, finding.column) == ("memory.backend", 1, 11)


def test_relative_qmd_command_resolves_against_the_workspace(home_dir: Path) -> None:
    ws = make_workspace(home_dir, ".openclaw", "workspace")
    tool = ws / "bin" / "qmd"
    tool.parent.mkdir()
    tool.write_text("#!/bin/sh\n")
    tool.chmod(0o755)
    report = run_check(
        home_dir,
        "c.json5",
        "{memory: {backend: 'qmd', qmd: {command: 'bin/qmd'}}}",
        find_executable=resolve_executable,
    )
    assert report.findings == []


def test_qmd_is_looked_up_on_the_config_env_path_as_init_backends_does(
    home_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_workspace(home_dir, ".openclaw", "workspace")
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "qmd").write_text("#!/bin/sh\n")
    (tools / "qmd").chmod(0o755)
    # On memwarm's own PATH only: init-backends spawns qmd with the config env, which has no PATH.
    monkeypatch.setenv("PATH", str(tools))
    cfg = home_dir.parent / "c.json5"
    cfg.write_text("{memory: {backend: 'qmd'}}")
    report = check_config(str(cfg), {"HOME": str(home_dir)}, host_zone="UTC", choose_release=choose(P0))
    (finding,) = report.findings
    assert finding.message.startswith('qmd command "qmd" not found')
    report = check_config(
        str(cfg), {"HOME": str(home_dir), "PATH": str(tools)}, host_zone="UTC", choose_release=choose(P0)
    )
    assert report.findings == []


# -- parse errors: one finding, the report marked unreadable -----------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "line", "column"),
    [
        ("c.json5", "{\n  a: 1\n  b: 2}", 3, 3),
        ("c.json", '{"a": [1, 2,, 3]}', 1, 13),
        ("c.yaml", "a:\n  - 1\n  b: 2\n", 3, 3),
        ("c.toml", "[a]\nb = \n", 2, 5),
    ],
)
def test_parse_errors_are_one_error_finding(
    home_dir: Path, name: str, text: str, line: int, column: int
) -> None:
    """The config cannot be judged (`unreadable`, exit 3), and `--json` still has its error."""
    report = run_check(home_dir, name, text)
    (finding,) = report.findings
    assert (finding.severity, finding.path, finding.line, finding.column) == ("error", "", line, column)
    assert report.unreadable and report.failed()


# -- never a traceback ------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=25,
)
config_like = st.fixed_dictionaries(
    {},
    optional={
        "agents": st.fixed_dictionaries(
            {},
            optional={
                "defaults": st.dictionaries(
                    st.sampled_from(["workspace", "userTimezone", "startupContext", "memorySearch", "x"]),
                    json_values,
                ),
                "list": st.lists(
                    st.dictionaries(
                        st.sampled_from(["id", "default", "workspace", "memorySearch", "name"]), json_values
                    )
                    | json_values,
                    max_size=4,
                ),
            },
        ),
        "memory": st.dictionaries(st.sampled_from(["backend", "citations", "qmd", "search"]), json_values),
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.one_of(json_values, config_like), st.sampled_from(["c.json", "c.yaml"]))
def test_any_json_value_gives_findings(home_dir: Path, value: Any, name: str) -> None:
    import yaml

    text = json.dumps(value) if name.endswith(".json") else yaml.safe_dump(value)
    try:
        report = run_check(home_dir, name, text)
    except ConfigError as exc:
        assert_one_safe_line(escape_text(str(exc)))  # as cli/output.error prints it
        return
    for finding in report.findings:
        assert_one_safe_line(finding.format())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=200), st.sampled_from(["c.json5", "c.yaml", "c.toml"]))
def test_random_bytes(home_dir: Path, data: bytes, name: str) -> None:
    cfg = home_dir.parent / name
    cfg.write_bytes(data)
    try:
        check_config(
            str(cfg),
            {"HOME": str(home_dir)},
            find_executable=_which_all,
            host_zone="UTC",
            choose_release=choose(P0),
        )
    except ConfigError as exc:
        assert exc.line is None or exc.line >= 1
        assert_one_safe_line(escape_text(str(exc)))


def test_keys_with_line_breaks_stay_on_one_line(home_dir: Path) -> None:
    report = run_check(home_dir, "c.json", '{"memory": {"a\\nb\\u0085\\t\\\\": 1}}')
    (finding,) = [f for f in report.findings if f.severity == "error"]
    assert finding.path == "memory.a\nb\x85\t\\"  # raw in the finding (and in --json)
    assert finding.format().endswith(": error: memory.a\\nb\\u0085\\t\\\\: unknown key")


def test_parse_error_with_a_line_break_character_is_raw_in_the_core(home_dir: Path) -> None:
    """The core keeps outside text raw; the views escape it (tests/scenarios/test_escaping.py)."""
    (finding,) = run_check(home_dir, "c.json5", "{a: 1}\u0085x").findings
    assert finding.message == "JSON5: invalid character '\x85'"
    assert finding.format().endswith(":1:7: error: (top level): JSON5: invalid character '\\u0085'")


def test_duplicate_keys_are_warnings(home_dir: Path) -> None:
    make_workspace(home_dir, ".openclaw", "workspace")
    cfg_dir = home_dir.parent
    (cfg_dir / "part.yaml").write_text("defaults:\n  userTimezone: UTC\n  userTimezone: Europe/Paris\n")
    report = run_check(
        home_dir,
        "c.json5",
        "{\n  agents: {$include: 'part.yaml'},\n  memory: {backend: 'builtin',\n    backend: 'builtin'},\n}",
    )
    rows = [(f.file, f.line, f.column, f.severity, f.path, f.message) for f in report.findings]
    assert rows == [
        (
            str(cfg_dir / "c.json5"),
            4,
            5,
            "warning",
            "memory.backend",
            'duplicate key "backend": this later value is used, the one at line 3, column 12 is ignored',
        ),
        (
            str(cfg_dir / "part.yaml"),
            3,
            3,
            "warning",
            "agents.defaults.userTimezone",
            'duplicate key "userTimezone": this later value is used, the one at line 2, column 3 is ignored',
        ),
    ]


def test_yaml_merge_keys_are_not_duplicates(home_dir: Path) -> None:
    make_workspace(home_dir, ".openclaw", "workspace")
    report = run_check(
        home_dir,
        "c.yaml",
        "gateway: &b {x: 1, y: 2}\nagents:\n  defaults:\n    <<: {workspace: '~/a'}\n"
        "    workspace: ~/.openclaw/workspace\nchannels: {<<: *b, x: 3}\n",
    )
    assert report.findings == []


def test_agent_id_with_a_bracket(home_dir: Path) -> None:
    """A list entry is named by its index: an id with `]` (or `.`) cannot break the dotted path."""
    make_workspace(home_dir, ".openclaw", "workspace")
    make_workspace(home_dir, ".openclaw", "workspace-x-y")
    report = run_check(
        home_dir,
        "c.json5",
        "{agents: {list: [\n {id: 'A]b', memorySearch: {backend: 'qmd'}},\n {id: 'x.y'}]},\n"
        " memory: {backend: 'builtin'}}",
        find_executable=_which_all,
    )
    errors = [f for f in report.findings if f.severity == "error"]
    assert [(f.path, f.line, f.column) for f in errors] == [("agents.list[0].memorySearch.backend", 2, 29)]
    assert not any("]b]" in f.path for f in report.findings)


def test_the_release_steps_walk_the_agent_list_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The shared-agentDir step looked each referenced agent's entry up by a scan of the list: 10,000
    agents took 90 s of `config check`."""
    import memwarm_cli.agents as agents_module
    from memwarm_cli.configview.release_checks import release_errors

    calls = 0
    original = agents_module.normalize_agent_id

    def counting(value: object) -> str:
        nonlocal calls
        calls += 1
        return original(value)

    monkeypatch.setattr(agents_module, "normalize_agent_id", counting)
    count = 2_000
    entries = [{"id": f"agent-{i}", "agentDir": f"/dirs/{i}"} for i in range(count)]
    data = {"agents": {"list": entries}, "bindings": [{"agentId": "agent-7", "match": {"channel": "x"}}]}
    assert release_errors(data, None, {"HOME": "/home/u"}, "/state", profile=P0) == []
    assert calls <= 5 * count
