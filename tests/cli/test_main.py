"""The entry point: usage errors are one `memwarm: error:` line with exit code 2, like all bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from memwarm_cli.exitcodes import ExitCode
from tests.conftest import RunCli


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ["init-backends", "--concurrency", "0"],
            "memwarm: error: init-backends: Invalid value for '--concurrency': 0 is not in the range x>=1. "
            "(see 'memwarm init-backends --help')",
        ),
        (
            ["init-backends", "--timeout", "abc"],
            "memwarm: error: init-backends: Invalid value for '--timeout': 'abc' is not a valid float range. "
            "(see 'memwarm init-backends --help')",
        ),
        (
            ["prelude", "--bogus"],
            "memwarm: error: prelude: No such option: --bogus (see 'memwarm prelude --help')",
        ),
        (
            ["config", "check", "--bogus"],
            "memwarm: error: config check: No such option: --bogus (see 'memwarm config check --help')",
        ),
        (["nosuch"], "memwarm: error: No such command 'nosuch'. (see 'memwarm --help')"),
    ],
)
def test_usage_errors_are_one_line_with_exit_code_2(run_cli: RunCli, args: list[str], expected: str) -> None:
    result = run_cli(args)
    assert result.returncode == ExitCode.USAGE
    assert result.stdout == ""
    assert result.stderr == expected + "\n"


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["scan", "--at"], "scan: Option '--at' requires an argument. (see 'memwarm scan --help')"),
        (
            ["--config", "x.json5", "config", "show", "--format"],
            "config show: Option '--format' requires an argument. (see 'memwarm config show --help')",
        ),
        (["scan", "--all=1"], "scan: Option '--all' does not take a value. (see 'memwarm scan --help')"),
        (["--config"], "Option '--config' requires an argument. (see 'memwarm --help')"),
    ],
)
def test_errors_raised_before_a_context_still_name_the_subcommand(
    run_cli: RunCli, args: list[str], expected: str
) -> None:
    # click's parser raises these without a context; the path comes from the arguments instead.
    result = run_cli(args)
    assert result.returncode == ExitCode.USAGE
    assert result.stderr == f"memwarm: error: {expected}\n"


def test_command_path_follows_groups_and_skips_group_option_values() -> None:
    from typer.main import get_command

    from memwarm_cli.cli.app import app
    from memwarm_cli.cli.main import command_path

    root = get_command(app)
    assert command_path(root, ["--config", "config", "config", "check", "--strict"]) == "memwarm config check"
    assert command_path(root, ["init-backends", "--agent"]) == "memwarm init-backends"
    assert command_path(root, ["nosuch", "scan"]) == "memwarm"
    assert command_path(root, []) == "memwarm"


def test_usage_error_line_is_one_line() -> None:
    from memwarm_cli.cli.main import usage_error_line

    assert usage_error_line("memwarm scan", "bad\nvalue\there") == (
        "scan: bad value here (see 'memwarm scan --help')"
    )
    top = usage_error_line("memwarm", "No such command 'x'.")
    assert top == "No such command 'x'. (see 'memwarm --help')"


def test_a_group_without_subcommand_shows_its_help_on_stderr(run_cli: RunCli) -> None:
    result = run_cli(["config"])
    assert result.returncode == ExitCode.USAGE
    assert result.stdout == ""
    assert result.stderr.startswith("Usage: memwarm config [OPTIONS] COMMAND")
    assert "check" in result.stderr and "show" in result.stderr


def test_help_and_version_still_exit_0_on_stdout(run_cli: RunCli) -> None:
    top = run_cli(["--help"])
    assert top.returncode == ExitCode.OK and top.stdout.startswith("Usage: memwarm") and top.stderr == ""
    sub = run_cli(["init-backends", "--help"])
    assert sub.returncode == ExitCode.OK and "--concurrency" in sub.stdout
    version = run_cli(["--version"])
    assert version.returncode == ExitCode.OK and version.stdout.strip()


def test_a_command_exit_code_survives_non_standalone_mode(run_cli: RunCli, tmp_path: Path) -> None:
    # `config check --strict` ends with typer.Exit(1) on a warning (the workspace does not exist);
    # click returns that code instead of exiting, and main must still exit with it.
    config = tmp_path / "openclaw.json5"
    config.write_text('{ agents: { list: [ { id: "a", workspace: "/nonexistent/ws" } ] } }', encoding="utf-8")
    result = run_cli(["--config", str(config), "config", "check", "--strict"])
    assert result.returncode == ExitCode.FINDINGS, result.stderr
    assert "/nonexistent/ws" in result.stdout
