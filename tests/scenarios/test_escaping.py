"""Outside text in every human view: escaped by the one policy, never raw on stdout or stderr, and every
diagnostic one line. JSON (and YAML, TOML) keep the raw text as data.

The hostile text (tests/terminal_safety.HOSTILE: CSI, OSC, C1 CSI, BEL, backspace, CR, LF, bidi
overrides and isolates, zero-width characters, U+2028, a tag character) comes in through each source:
directory and file names, config values and keys, the config path, the state dir, qmd's stderr and
command-line arguments.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from memwarm_cli.textsafe import escape_text
from tests.backends.support import install_fake_qmd
from tests.conftest import RunCli, isolated_env, run_in_terminal, write_memory_note
from tests.terminal_safety import HOSTILE, assert_one_safe_line, assert_safe_output

AT = "2026-04-11T18:00:00Z"
ZONE = "Europe/" + HOSTILE  # not a zone: the reason quotes it
COMMAND_WORD = "\x1b]0;owned\x07\u009b\u202e\u200b"  # no whitespace: the qmd command's first word


def _config(tmp_path: Path, data: dict[str, Any], name: str = "openclaw.json") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _diagnostics(stderr: str, *prefixes: str) -> list[str]:
    """stderr's lines, each checked to be one whole diagnostic: known start, nothing unsafe."""
    lines = stderr.splitlines()
    for line in lines:
        assert_one_safe_line(line)
        assert line.startswith(prefixes or ("memwarm: ",)), line
    assert stderr == "".join(line + "\n" for line in lines)  # no line break of any other kind
    return lines


def test_prelude_notes_escape_the_workspace(run_cli: RunCli, tmp_path: Path) -> None:
    workspace = tmp_path / f"ws{HOSTILE}"
    config = _config(tmp_path, {"agents": {"defaults": {"workspace": str(workspace), "userTimezone": ZONE}}})
    result = run_cli(["--config", str(config), "prelude", "--at", AT])
    assert result.returncode == 0 and result.stdout == ""
    zone, warning, note = _diagnostics(result.stderr)
    assert zone.startswith(f'memwarm: warning: agents.defaults.userTimezone "{escape_text(ZONE.strip())}" is')
    assert (
        warning
        == f'memwarm: warning: workspace of agent "main" does not exist: {escape_text(str(workspace))}'
    )
    assert note.endswith(f"under {escape_text(str(workspace / 'memory'))}")


def test_prelude_text_itself_is_data_and_stays_byte_for_byte(run_cli: RunCli, tmp_path: Path) -> None:
    """The prelude is what OpenClaw injects: memwarm shows it exactly, escapes included."""
    workspace = tmp_path / "ws"
    write_memory_note(workspace, "2026-04-11.md", f"note {HOSTILE}")
    config = _config(tmp_path, {"agents": {"defaults": {"workspace": str(workspace)}}})
    result = run_cli(["--config", str(config), "prelude", "--at", AT])
    assert f"note {HOSTILE}" in result.stdout  # the content raw (the label is sanitised upstream)


# What a daily note can hold that a terminal acts on: OSC 52 (write the clipboard), OSC 0 (the window
# title), a clear-screen and a cursor move, a bell; beside the text's own layout (tabs, CRLF).
TERMINAL_ATTACK = "\x1b]52;c;cm0gLXJmIH4=\x07 \x1b]0;owned\x07 \x1b[2J\x1b[H\x1bc \u009b31m \u202eevil\x07"
NOTE_TEXT = f"line one\twith a tab\r\nattack: {TERMINAL_ATTACK}\nlast line"


@pytest.fixture
def attack_note(tmp_path: Path) -> Path:
    workspace = tmp_path / "ws"
    write_memory_note(workspace, "2026-04-11.md", NOTE_TEXT)
    (workspace / "AGENTS.md").write_text(f"rules {TERMINAL_ATTACK}\n", encoding="utf-8")
    return _config(tmp_path, {"agents": {"defaults": {"workspace": str(workspace)}}})


@pytest.mark.parametrize("command", [["prelude"], ["context", "--format", "text"]])
def test_a_note_s_terminal_escapes_are_shown_not_acted_on_on_a_terminal(
    home_dir: Path, run_cli: RunCli, attack_note: Path, command: list[str]
) -> None:
    args = ["--config", str(attack_note), *command, "--at", AT, "-q"]
    # The terminal makes each line feed CRLF (the note's own CRLF arrives as CR CR LF).
    screen = run_in_terminal(args, isolated_env(home_dir)).replace("\r\n", "\n").replace("\r\n", "\n")
    # Nothing of the note reaches the terminal raw: every control and invisible character is an escape.
    assert_safe_output(screen, allowed="\n\t")
    assert "\\x1b]52;c;cm0gLXJmIH4=\\x07" in screen and "\\x1b[2J\\x1b[H" in screen
    assert "\\u009b31m \\u202eevil" in screen
    assert "line one\twith a tab\nattack: " in screen  # the note's layout kept (its CRLF a line end)
    # In a pipe, the exact bytes: the prelude is what OpenClaw injects.
    piped = run_cli(args)
    assert piped.returncode == 0 and NOTE_TEXT in piped.stdout


@pytest.mark.parametrize("command", [["prelude"], ["context", "--format", "text"]])
def test_raw_gives_the_exact_bytes_on_a_terminal_too(
    home_dir: Path, attack_note: Path, command: list[str]
) -> None:
    args = ["--config", str(attack_note), *command, "--at", AT, "-q", "--raw"]
    screen = run_in_terminal(args, isolated_env(home_dir))
    assert TERMINAL_ATTACK in screen


@pytest.fixture
def hostile_scan(tmp_path: Path) -> tuple[Path, Path]:
    """A workspace whose path, note names and configured time zone are hostile."""
    workspace = tmp_path / f"ws{HOSTILE}"
    write_memory_note(workspace, f"2026-04-11-{HOSTILE}.md", "today")
    write_memory_note(workspace, f"{HOSTILE}.md", "misnamed")
    config = _config(tmp_path, {"agents": {"defaults": {"workspace": str(workspace), "userTimezone": ZONE}}})
    return config, workspace


def test_scan_plain_escapes_names_workspace_and_zone(
    run_cli: RunCli, hostile_scan: tuple[Path, Path]
) -> None:
    config, workspace = hostile_scan
    result = run_cli(["--config", str(config), "scan", "--all", "--at", AT, "--format", "plain"])
    assert result.returncode == 0
    assert_safe_output(result.stdout, allowed="\n\t")
    rows = result.stdout.splitlines()
    assert all(len(row.split("\t")) == 13 for row in rows) and len(rows) == 1 + 4  # 2 days, 2 notes
    assert f"memory/2026-04-11-{escape_text(HOSTILE)}.md" in result.stdout
    summary = _diagnostics(result.stderr, "# ", "memwarm: warning: agents.defaults.userTimezone ")
    assert f"# agent main: workspace {escape_text(str(workspace))}" in summary
    assert any(f'unknown time zone "{escape_text(ZONE.strip())}"' in line for line in summary)


def test_scan_json_keeps_the_raw_text_and_escapes_only_its_spelling(
    run_cli: RunCli, hostile_scan: tuple[Path, Path]
) -> None:
    config, workspace = hostile_scan
    result = run_cli(["--config", str(config), "scan", "--all", "--at", AT, "--json"])
    assert_safe_output(result.stdout)  # C1, bidi, U+2028... are \u escapes in the JSON text
    report = json.loads(result.stdout)
    assert report["workspace"] == str(workspace) and report["timezone"]["configured"] == ZONE
    paths = {file["path"] for file in report["files"]}
    assert f"memory/2026-04-11-{escape_text(HOSTILE)}.md" in paths  # `path` is escaped, as documented


@pytest.mark.parametrize("columns", [80, 132])
def test_scan_table_on_a_terminal_shows_no_outside_escape(
    home_dir: Path, hostile_scan: tuple[Path, Path], columns: int
) -> None:
    config, _ = hostile_scan
    screen = run_in_terminal(
        ["--config", str(config), "scan", "--all", "--at", AT], isolated_env(home_dir), columns
    )
    assert "2026-04-11-" in screen and "budget:" in screen
    own_styles = re.sub(r"\x1b\[[0-9;]*m", "", screen)  # memwarm's own colours; HOSTILE holds other ones
    assert_safe_output(own_styles.replace("\r\n", "\n"))  # the terminal turns each \n into \r\n


@pytest.mark.parametrize("fmt", ["plain", "table"])
def test_context_views_escape_the_session_key_workspace_and_names(
    run_cli: RunCli, hostile_scan: tuple[Path, Path], fmt: str
) -> None:
    config, workspace = hostile_scan
    (workspace / "AGENTS.md").write_text("rules\n", encoding="utf-8")
    args = ["--config", str(config), "context", "--at", AT, "--session-key", f"agent:main:{HOSTILE}"]
    result = run_cli([*args, "--format", fmt])
    assert result.returncode == 0, result.stderr
    assert_safe_output(result.stdout, allowed="\n\t" if fmt == "plain" else "\n")
    if fmt == "plain":
        assert f"memory/2026-04-11-{escape_text(HOSTILE)}.md" in result.stdout
        summary = _diagnostics(result.stderr, "# ", "memwarm: ")
        assert any(escape_text(str(workspace)) in line for line in summary)


def test_config_path_escapes_the_config_state_dir_and_workspaces(run_cli: RunCli, tmp_path: Path) -> None:
    workspace = tmp_path / f"ws{HOSTILE}"
    config = _config(
        tmp_path / f"cfg{HOSTILE}", {"agents": {"list": [{"id": "a", "workspace": str(workspace)}]}}
    )
    state = tmp_path / f"state{HOSTILE}"
    result = run_cli(["--config", str(config), "config", "path"], env={"OPENCLAW_STATE_DIR": str(state)})
    assert result.returncode == 0, result.stderr
    assert_safe_output(result.stdout)
    lines = result.stdout.splitlines()
    assert len(lines) == 2 + 3  # config, state dir, then the agent's three (builtin: no qmd index line)
    assert lines[0].startswith(f"config:     {escape_text(str(config))} (")
    assert lines[1].startswith(f"state dir:  {escape_text(str(state))} (")
    assert lines[3] == f"  workspace:  {escape_text(str(workspace))} (missing)"
    raw = json.loads(
        run_cli(
            ["--config", str(config), "config", "path", "--json"], env={"OPENCLAW_STATE_DIR": str(state)}
        ).stdout
    )
    assert raw["agents"][0]["workspace"] == str(workspace)


def test_config_check_findings_and_note_are_one_safe_line_each(run_cli: RunCli, tmp_path: Path) -> None:
    config = _config(
        tmp_path / f"cfg{HOSTILE}",
        {
            "agents": {"defaults": {"userTimezone": ZONE, "startupContext": {f"x{HOSTILE}": 1}}},
            "memory": {"backend": "qmd", "qmd": {"command": f"qmd{COMMAND_WORD}"}},
        },
    )
    result = run_cli(["--config", str(config), "config", "check"], env={"PATH": "/nonexistent"})
    assert result.returncode == 1
    assert_safe_output(result.stdout)
    findings = result.stdout.splitlines()
    assert len(findings) == len(
        json.loads(
            run_cli(
                ["--config", str(config), "config", "check", "--json"], env={"PATH": "/nonexistent"}
            ).stdout
        )["findings"]
    )
    assert all(line.startswith(escape_text(str(config)) + ":") for line in findings)
    assert any(f"startupContext.x{escape_text(HOSTILE)}: unknown key" in line for line in findings)
    assert any(f'qmd command "qmd{escape_text(COMMAND_WORD)}" not found' in line for line in findings)
    (note,) = _diagnostics(result.stderr)
    assert note.startswith(f"memwarm: {escape_text(str(config))}: ")


def test_config_show_writes_raw_data_in_each_format_safely(run_cli: RunCli, tmp_path: Path) -> None:
    workspace = tmp_path / f"ws{HOSTILE}"
    config = _config(tmp_path, {"agents": {"defaults": {"workspace": str(workspace), "userTimezone": ZONE}}})
    outputs = {
        fmt: run_cli(["--config", str(config), "config", "show", "--format", fmt]).stdout
        for fmt in ("json", "yaml", "toml")
    }
    data = json.loads(outputs["json"])
    for text in outputs.values():
        assert_safe_output(text)
    assert yaml.safe_load(outputs["yaml"]) == data  # the same raw strings, in YAML's escapes
    from memwarm_cli.configview.show_view import drop_nulls

    assert tomllib.loads(outputs["toml"]) == drop_nulls(data)
    assert any(agent["workspace"] == str(workspace) for agent in data["agents"])


def _init_scenario(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """One agent whose workspace path is hostile and whose (fake) qmd fails `update` with hostile stderr."""
    workspace = tmp_path / f"ws{HOSTILE}"
    (workspace / "memory").mkdir(parents=True)
    home, state = tmp_path / "home", tmp_path / f"state{HOSTILE}"
    home.mkdir(exist_ok=True)
    hostile_file = tmp_path / "hostile.txt"
    hostile_file.write_text(HOSTILE, encoding="utf-8")
    fake_state = install_fake_qmd(tmp_path / "fakebin", {"update": f"cat '{hostile_file}' >&2; exit 3\n"})
    config = _config(
        tmp_path,
        {"agents": {"list": [{"id": "main", "workspace": str(workspace)}]}, "memory": {"backend": "qmd"}},
    )
    env = isolated_env(
        home,
        {
            "OPENCLAW_STATE_DIR": str(state),
            "PATH": f"{tmp_path / 'fakebin'}:/usr/bin:/bin",
            "FAKE_QMD_DIR": str(fake_state),
        },
    )
    return config, env


def test_init_backends_log_lines_and_summary_escape_qmd_output(tmp_path: Path) -> None:
    from tests.conftest import run_memwarm

    config, env = _init_scenario(tmp_path)
    result = run_memwarm(["--config", str(config), "init-backends", "--no-embed"], env)
    assert result.returncode == 1
    lines = _diagnostics(result.stderr, "[main] ", "qmd memory startup initialization ", "init-backends: ")
    assert lines[-1].startswith("init-backends: 1 agent in ")
    assert lines[-2].endswith(f"qmd update failed (code 3): {escape_text(HOSTILE)}")
    report = json.loads(
        run_memwarm(["--config", str(config), "init-backends", "--no-embed", "--json", "-q"], env).stdout
    )
    assert report["agents"][0]["reason"].endswith(HOSTILE)  # JSON keeps qmd's text as it was


def test_init_backends_dry_run_shows_paths_escaped_and_env_as_shell_words(tmp_path: Path) -> None:
    from tests.conftest import run_memwarm

    config, env = _init_scenario(tmp_path)
    result = run_memwarm(["--config", str(config), "init-backends", "--dry-run"], env)
    assert result.returncode == 0, result.stderr
    assert_safe_output(result.stdout)
    lines = result.stdout.splitlines()
    workspace = tmp_path / f"ws{HOSTILE}"
    assert f"  cwd: {escape_text(str(workspace))}" in lines
    env_line = next(line for line in lines if line.startswith("  env: "))
    assert "XDG_CONFIG_HOME=$'" in env_line  # bash reads $'...' back to the raw path
    _diagnostics(result.stderr, "qmd memory startup initialization ", "init-backends: ")


@pytest.mark.parametrize(
    ("args", "quoted"),
    [
        (["prelude", "--at", HOSTILE], f'--at: cannot read the instant "{escape_text(HOSTILE)}"'),
        (["prelude", "--action", HOSTILE], f'not "{escape_text(HOSTILE)}"'),
        (["scan", "--agent", f"x{HOSTILE}"], f'unknown agent "x{escape_text(HOSTILE)}"'),
        (["config", "show", "--format", HOSTILE], f'not "{escape_text(HOSTILE)}"'),
        (["scan", "--format", HOSTILE], f'not "{escape_text(HOSTILE)}"'),
        # click's own messages: it quotes arguments with repr(), which escapes them already.
        (["search", "--mode", HOSTILE, "q"], "Invalid value for '--mode': '\\x1b[31mRED"),
        (["init-backends", "--concurrency", HOSTILE], "Invalid value for '--concurrency': '\\x1b[31mRED"),
        ([f"--{HOSTILE}"], "No such option: --\\x1b[31mRED"),
    ],
)
def test_usage_errors_are_one_safe_line(
    run_cli: RunCli, tmp_path: Path, args: list[str], quoted: str
) -> None:
    config = _config(tmp_path, {})
    result = run_cli(["--config", str(config), *args])
    assert result.returncode == 2
    (line,) = _diagnostics(result.stderr, "memwarm: error: ")
    assert quoted in line


def test_config_errors_name_the_file_escaped(run_cli: RunCli, tmp_path: Path) -> None:
    missing = tmp_path / f"no{HOSTILE}.json"
    result = run_cli(["--config", str(missing), "scan"])
    assert result.returncode == 3
    (line,) = _diagnostics(result.stderr)
    assert line == f"memwarm: error: {escape_text(str(missing))}: config file not found (given by --config)"
    broken = _config(tmp_path / f"dir{HOSTILE}", {})
    broken.write_text(f'{{"a": 1}} {HOSTILE}', encoding="utf-8")
    result = run_cli(["--config", str(broken), "prelude"])
    assert result.returncode == 3
    (line,) = _diagnostics(result.stderr)
    assert line.startswith(f"memwarm: error: {escape_text(str(broken))}:1:")
