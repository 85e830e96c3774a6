"""Command-line conventions, checked on every command of the tree (walked, so a new command is covered
the day it is registered): -h and -V, `--config` after the subcommand, an epilog of real examples, command
summaries that are never cut off, and `-q`, `--json` and `--format` meaning the same everywhere."""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.cli.app import build_command
from memwarm_cli.cli.options import CONFIG_META_KEY
from memwarm_cli.exitcodes import ExitCode
from tests.conftest import RunCli

ROOT = build_command()
# Commands that print no data of their own (a shell script): no --json or -q to give them.
NOT_DATA = {("completion",)}


def _walk(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _walk(sub, (*path, name))


COMMANDS = list(_walk(ROOT))  # the root, groups and leaves
LEAVES = [(path, command) for path, command in COMMANDS if not hasattr(command, "commands")]
GROUPS = [(path, command) for path, command in COMMANDS if hasattr(command, "commands")]


def _ids(items: list[tuple[tuple[str, ...], Any]]) -> list[str]:
    return [" ".join(path) or "memwarm" for path, _ in items]


def _options(command: Any) -> dict[str, Any]:
    return {name: param for param in command.params for name in getattr(param, "opts", ())}


def _required_arguments(command: Any) -> list[str]:
    """A value for each required argument: the first choice of a `a|b|c` metavar, else a word."""
    values = []
    for param in command.params:
        if getattr(param, "param_type_name", "") == "argument" and param.required:
            metavar = param.metavar or ""
            values.append(metavar.split("|")[0] if "|" in metavar else "word")
    return values


def test_the_walk_sees_every_command() -> None:
    # Not a list to keep in step: only proof that the walk reaches into groups.
    assert {"prelude", "scan", "context", "init-backends", "status", "search", "completion"} <= {
        path[0] for path, _ in LEAVES if len(path) == 1
    }
    assert {("config", "path"), ("config", "check"), ("config", "show")} <= {path for path, _ in LEAVES}


# --- help and version ------------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=_ids(COMMANDS))
@pytest.mark.parametrize("flag", ["-h", "--help"])
def test_help_works_everywhere_with_both_spellings(
    run_cli: RunCli, path: tuple[str, ...], command: Any, flag: str
) -> None:
    result = run_cli([*path, flag])
    assert result.returncode == ExitCode.OK, result.stderr
    assert result.stdout.startswith(f"Usage: {' '.join(('memwarm', *path))} ")
    assert result.stderr == ""


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_version_has_a_short_spelling(run_cli: RunCli, flag: str) -> None:
    from memwarm_cli import __version__

    result = run_cli([flag])
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines()[0] == f"memwarm {__version__}"
    assert result.stdout == run_cli(["--version"]).stdout


# --- examples -------------------------------------------------------------------------------------

_SHELL_END = re.compile(r"\s*(?:\||>|\)|;|&&|#).*$")


def _examples(command: Any) -> list[list[str]]:
    """The memwarm command lines of the epilog, as argv lists (after `memwarm`), shell syntax cut off."""
    examples = []
    for line in (command.epilog or "").splitlines()[2:]:  # after "\b" and "Examples:"
        start = line.find("memwarm ")
        assert start >= 0, f"an example that does not run memwarm: {line!r}"
        words = shlex.split(_SHELL_END.sub("", line[start:].replace('"$(', "")))
        examples.append(words[1:])
    return examples


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=_ids(COMMANDS))
def test_every_help_ends_with_one_or_two_examples_that_parse(path: tuple[str, ...], command: Any) -> None:
    """A new command needs an epilog too: `epilog=examples(...)` where it is registered (cli/app.py)."""
    name = " ".join(("memwarm", *path))
    assert (command.epilog or "").startswith("\b\nExamples:\n"), (
        f"`{name} --help` has no examples: register it with epilog=examples(...) (cli/app.py)"
    )
    examples = _examples(command)
    assert 1 <= len(examples) <= 2
    for argv in examples:
        assert argv[: len(path)] == list(path) or argv[0].startswith("-"), argv
        # Parsed as memwarm would parse it (values checked, nothing run): an example that names an
        # option that does not exist, or forgets a required argument, fails here.
        _parse(argv)


def _parse(argv: list[str]) -> Any:
    ctx = ROOT.make_context("memwarm", list(argv))
    while True:
        rest = [*ctx._protected_args, *ctx.args]
        if not rest or not hasattr(ctx.command, "commands"):
            return ctx
        sub = ctx.command.commands[rest[0]]
        ctx = sub.make_context(rest[0], rest[1:], parent=ctx)


@pytest.mark.parametrize("columns", [60, 80, 120])
def test_examples_fit_an_80_column_help_and_every_help_line_fits(run_cli: RunCli, columns: int) -> None:
    for path, _ in COMMANDS:
        result = run_cli([*path, "--help"], env={"COLUMNS": str(columns)})
        longest = max(len(line) for line in result.stdout.splitlines())
        assert longest <= max(columns, 80) - 2, (path, longest)


# --- command summaries ----------------------------------------------------------------------------


@pytest.mark.parametrize(("path", "group"), GROUPS, ids=_ids(GROUPS))
@pytest.mark.parametrize("columns", [60, 80, 120])
def test_command_summaries_are_never_cut_off(
    run_cli: RunCli, path: tuple[str, ...], group: Any, columns: int
) -> None:
    page = run_cli([*path, "--help"], env={"COLUMNS": str(columns)}).stdout
    section = page.split("\nCommands:\n", 1)[1].split("\n\n", 1)[0]
    flat = " ".join(section.split())
    assert "..." not in flat
    for name, sub in group.commands.items():
        assert sub.short_help, f"{name}: give it a short_help (shown in the command list)"
        assert f"{name} {sub.short_help}" in flat


# --- --config after the subcommand -----------------------------------------------------------------


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=_ids(COMMANDS))
def test_every_command_takes_the_global_options_after_its_name(path: tuple[str, ...], command: Any) -> None:
    options = _options(command)
    assert {"--config", "-c"} <= set(options), f"{' '.join(path)} does not take --config"
    ctx = _parse([*path, "--config", "after.json5", *_required_arguments(command)])
    assert ctx.meta[CONFIG_META_KEY] == "after.json5"
    # Given twice, before and after: the last one wins, as for any repeated option.
    ctx = _parse(["-c", "before.json5", *path, "-c", "after.json5", *_required_arguments(command)])
    assert ctx.meta[CONFIG_META_KEY] == "after.json5"


@pytest.mark.parametrize(("path", "command"), LEAVES, ids=_ids(LEAVES))
def test_config_after_the_subcommand_reaches_the_command(
    run_cli: RunCli, tmp_path: Path, path: tuple[str, ...], command: Any
) -> None:
    missing = str(tmp_path / "missing.json5")
    args = _required_arguments(command)
    before = run_cli(["--config", missing, *path, *args])
    after = run_cli([*path, *args, "--config", missing])
    assert (after.returncode, after.stdout, after.stderr) == (before.returncode, before.stdout, before.stderr)
    if path not in NOT_DATA:  # a command that reads the config: the file named is missing
        assert after.returncode == ExitCode.CONFIG and "missing.json5" in after.stderr


# --- -q, --json and --format ----------------------------------------------------------------------

DATA_LEAVES = [(path, command) for path, command in LEAVES if path not in NOT_DATA]


@pytest.mark.parametrize(("path", "command"), DATA_LEAVES, ids=_ids(DATA_LEAVES))
def test_json_quiet_and_format_are_the_same_options_everywhere(path: tuple[str, ...], command: Any) -> None:
    options = _options(command)
    assert {"--json", "-q", "--quiet"} <= set(options), f"{' '.join(path)}: give it --json and -q"
    assert options["-q"] is options["--quiet"] and options["--quiet"].help.startswith("Only ")
    formats = options.get("--format")
    if formats is None:
        assert options["--json"].help == "Print JSON instead of the text."
        return
    assert options["-f"] is formats
    assert "json" in formats.metavar.split("|")
    assert options["--json"].help == "Same as --format json."


@pytest.mark.parametrize(
    ("path", "command"),
    [(p, c) for p, c in DATA_LEAVES if "--format" in _options(c)],
    ids=_ids([(p, c) for p, c in DATA_LEAVES if "--format" in _options(c)]),
)
def test_format_errors_read_the_same_everywhere(
    run_cli: RunCli, tmp_path: Path, path: tuple[str, ...], command: Any
) -> None:
    formats = _options(command)["--format"].metavar.split("|")
    other = next(name for name in formats if name != "json")
    args = [*path, *_required_arguments(command)]
    conflict = run_cli([*args, "--json", "--format", other])
    assert (conflict.returncode, conflict.stdout) == (ExitCode.USAGE, "")
    assert conflict.stderr == "memwarm: error: --json and --format exclude each other\n"
    bogus = run_cli([*args, "--format", "bogus"])
    assert bogus.returncode == ExitCode.USAGE
    assert bogus.stderr == f'memwarm: error: --format must be one of {", ".join(formats)}, not "bogus"\n'
    assert run_cli([*args, "--json", "--format", "json"]).returncode != ExitCode.USAGE


@pytest.fixture
def warning_config(tmp_path: Path) -> Path:
    """A config whose loading warns (an unset ${VAR}), with one agent and a workspace that exists."""
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    config = tmp_path / "openclaw.json"
    agent = {"id": "main", "workspace": str(workspace), "name": "${MEMWARM_TEST_UNSET}"}
    config.write_text(json.dumps({"agents": {"list": [agent]}}), encoding="utf-8")
    return config


@pytest.mark.parametrize(("path", "command"), DATA_LEAVES, ids=_ids(DATA_LEAVES))
def test_quiet_drops_the_warnings_of_every_command_and_keeps_the_data(
    run_cli: RunCli, warning_config: Path, path: tuple[str, ...], command: Any
) -> None:
    args = ["--config", str(warning_config), *path, *_required_arguments(command)]
    extra = ["--dry-run"] if path == ("init-backends",) else []
    loud, quiet = run_cli([*args, *extra, "--json"]), run_cli([*args, *extra, "--json", "-q"])
    # A diagnostic on stderr, except for `config check`, whose findings are its data.
    assert "MEMWARM_TEST_UNSET" in (loud.stdout if path == ("config", "check") else loud.stderr)
    assert "MEMWARM_TEST_UNSET" not in quiet.stderr
    # Only errors are left on stderr (search fails here: there is no qmd index, and it says so).
    assert all(line.startswith("memwarm: error: ") for line in quiet.stderr.splitlines()), quiet.stderr
    assert quiet.returncode == loud.returncode
    if loud.stdout:  # the data is the same with -q (times and durations aside)
        assert _without_timings(json.loads(quiet.stdout)) == _without_timings(json.loads(loud.stdout))


def _without_timings(value: Any) -> Any:
    if isinstance(value, dict):
        return {
            k: _without_timings(v)
            for k, v in value.items()
            if not re.search(r"(duration|Ms$|At$|^at$|startedAt|finishedAt)", k)
        }
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value
