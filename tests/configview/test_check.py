"""config check (core): each finding, with where it stands, for every format."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memwarm_cli.backends.qmd.process import resolve_executable
from memwarm_cli.configview.check import CheckReport, Finding, check_config
from memwarm_cli.errors import ConfigError
from memwarm_cli.textsafe import escape_text
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
    report = check_config(None, {"HOME": str(home_dir)})
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
            "agents: {defaults: {memorySearch: {provider: 'openia'}}}",
            "agents.defaults.memorySearch.provider",
            '"openia" is not one of "openai", "local", "gemini", "voyage", "mistral" '
            '(did you mean "openai"?)',
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
        ("agents: {list: [{default: true}]}", "agents.list[0]", 'required key "id" is missing'),
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
        ("memory: {qmd: {paths: [{name: 'x'}]}}", "memory.qmd.paths[0]", 'required key "path" is missing'),
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
            "memory.search (later OpenClaw versions) is not read by this config shape (2026.2-2026.6); "
            "use agents.defaults.memorySearch",
        ),
    ],
)
def test_schema_errors(home_dir: Path, snippet: str, path: str, message: str) -> None:
    report = run_check(home_dir, "c.json5", "{" + snippet + "}")
    errors = [f for f in report.findings if f.severity == "error"]
    assert [(f.path, f.message) for f in errors] == [(path, message)]


def test_unknown_keys_outside_the_sections_are_not_judged(home_dir: Path) -> None:
    report = run_check(
        home_dir,
        "c.json5",
        "{gateway: {port: 'x'}, agents: {defaults: {model: 5, heartbeat: {}},"
        " list: [{id: 'main', tools: 3, whatever: 1}]}}",
    )
    assert [f for f in report.findings if f.severity == "error"] == []


def test_likely_typos_in_open_objects_are_warnings(home_dir: Path) -> None:
    report = run_check(
        home_dir,
        "c.json5",
        "{agent: {}, agents: {defaults: {workspce: '/x'}, list: [{id: 'a', worksapce: '/y'}]}}",
    )
    found = {(f.path, f.severity, f.message) for f in report.findings if "unknown key" in f.message}
    assert found == {
        ("agent", "warning", 'unknown key (did you mean "agents"?)'),
        ("agents.defaults.workspce", "warning", 'unknown key (did you mean "workspace"?)'),
        ("agents.list[0].worksapce", "warning", 'unknown key (did you mean "workspace"?)'),
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


def test_top_level_scalar_is_a_warning(home_dir: Path) -> None:
    make_workspace(home_dir, ".openclaw", "workspace")
    report = run_check(home_dir, "c.json5", "'text'")
    (finding,) = report.findings
    assert finding.severity == "warning" and "is string, not an object" in finding.message


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
    text = "{x: {$include: 'a.json5'}, y: {$include: 'list.json5', z: 1}, w: {$include: false}}"
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


def test_memory_search_spelling_and_missing_qmd(home_dir: Path) -> None:
    make_workspace(home_dir, ".openclaw", "workspace")
    make_workspace(home_dir, "ops")
    report = run_check(
        home_dir,
        "c.json5",
        "{agents: {\n defaults: {memorySearch: {backend: 'qmd',\n qmd: {command: 'no-such-qmd --flag'}}},\n"
        " list: [{id: 'main'}, {id: 'ops', workspace: '~/ops', memorySearch: {backend: 'builtin'}}]}}",
        find_executable=_which_none,
    )
    rows = [(f.line, f.column, f.path, f.message) for f in report.findings]
    spelling = (
        "this key is accepted here, but upstream OpenClaw's strict config schema rejects it; upstream reads"
    )
    assert rows == [
        (2, 28, "agents.defaults.memorySearch.backend", f"{spelling} memory.backend (used for agents: main)"),
        (3, 2, "agents.defaults.memorySearch.qmd", f"{spelling} memory.qmd (used for agents: main, ops)"),
        (
            3,
            8,
            "agents.defaults.memorySearch.qmd.command",
            '"no-such-qmd --flag": OpenClaw runs only its first word, "no-such-qmd", and silently drops the '
            'rest ("--flag"); for arguments, point memory.qmd.command at a wrapper script; '
            "agents using qmd: main",
        ),
        (
            3,
            8,
            "agents.defaults.memorySearch.qmd.command",
            'qmd command "no-such-qmd" not found: looked for "no-such-qmd" on PATH=/nonexistent; install qmd '
            "(npm install -g @tobilu/qmd, which needs Node.js 22 or later), or set memory.qmd.command to its "
            "absolute path; agents using qmd: main",
        ),
        (4, 70, "agents.list[1].memorySearch.backend", f"{spelling} memory.backend (used for agents: ops)"),
    ]


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
    report = check_config(str(cfg), {"HOME": str(home_dir), "PATH": str(bin_dir)}, host_zone="UTC")
    messages = [f.message for f in report.findings]
    if not warned:
        assert messages == []
        return
    assert messages == [
        f"{qmd} runs on {node} ({version}), and qmd needs Node.js 22 or later: on an older one it crashes "
        "(SIGSEGV); agents using qmd: main"
    ]
    assert report.findings[0].path == "memory.backend"


def test_a_qmd_whose_node_is_missing_is_warned_about(home_dir: Path, tmp_path: Path) -> None:
    make_workspace(home_dir, ".openclaw", "workspace")
    bin_dir = tmp_path / "bin"
    qmd = _executable(bin_dir / "qmd", "#!/usr/bin/env node\n")
    cfg = home_dir.parent / "c.json5"
    cfg.write_text(f"{{memory: {{backend: 'qmd', qmd: {{command: '{qmd}'}}}}}}")
    report = check_config(str(cfg), {"HOME": str(home_dir), "PATH": "/nonexistent"}, host_zone="UTC")
    (finding,) = report.findings
    assert finding.path == "memory.qmd.command"
    assert finding.message == (
        f"{qmd} runs the node on its PATH, and there is none on PATH=/nonexistent; qmd needs Node.js 22 "
        "or later; agents using qmd: main"
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
    report = check_config(str(cfg), {"HOME": str(home_dir)}, host_zone="UTC")
    (finding,) = report.findings
    assert finding.message.startswith('qmd command "qmd" not found')
    report = check_config(str(cfg), {"HOME": str(home_dir), "PATH": str(tools)}, host_zone="UTC")
    assert report.findings == []


# -- parse errors stay ConfigError --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text", "line", "column"),
    [
        ("c.json5", "{\n  a: 1\n  b: 2}", 3, 3),
        ("c.json", '{"a": [1, 2,, 3]}', 1, 13),
        ("c.yaml", "a:\n  - 1\n  b: 2\n", 3, 3),
        ("c.toml", "[a]\nb = \n", 2, 5),
    ],
)
def test_parse_errors_raise(home_dir: Path, name: str, text: str, line: int, column: int) -> None:
    with pytest.raises(ConfigError) as info:
        run_check(home_dir, name, text)
    assert (info.value.line, info.value.column) == (line, column)


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
        check_config(str(cfg), {"HOME": str(home_dir)}, find_executable=_which_all, host_zone="UTC")
    except ConfigError as exc:
        assert exc.line is None or exc.line >= 1
        assert_one_safe_line(escape_text(str(exc)))


def test_keys_with_line_breaks_stay_on_one_line(home_dir: Path) -> None:
    report = run_check(home_dir, "c.json", '{"memory": {"a\\nb\\u0085\\t\\\\": 1}}')
    (finding,) = [f for f in report.findings if f.severity == "error"]
    assert finding.path == "memory.a\nb\x85\t\\"  # raw in the finding (and in --json)
    assert finding.format().endswith(": error: memory.a\\nb\\u0085\\t\\\\: unknown key")


def test_parse_error_with_a_line_break_character_is_raw_in_the_core(home_dir: Path) -> None:
    """The core keeps outside text raw; cli/output.error escapes it (tests/scenarios/test_escaping.py)."""
    with pytest.raises(ConfigError) as info:
        run_check(home_dir, "c.json5", "{a: 1}\u0085x")
    assert info.value.detail == "JSON5: invalid character '\x85'"
    assert escape_text(str(info.value)).endswith(":1:7: JSON5: invalid character '\\u0085'")


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
        "base: &b {x: 1, y: 2}\nagents:\n  defaults:\n    <<: {workspace: '~/a'}\n"
        "    workspace: ~/.openclaw/workspace\nother: {<<: *b, x: 3}\n",
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
    spelling = [f for f in report.findings if "upstream OpenClaw's strict config schema" in f.message]
    assert [(f.path, f.line, f.column) for f in spelling] == [("agents.list[0].memorySearch.backend", 2, 29)]
    assert spelling[0].message.endswith("(used for agents: a-b)")
    assert not any("overridden for every agent" in f.message for f in report.findings)
    assert not any("]b]" in f.path for f in report.findings)
