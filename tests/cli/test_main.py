"""The entry point: usage errors are one `memwarm: error:` line with exit code 2, like all bad input;
an unwritable stdout is one such line with exit code 5."""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli import __version__
from memwarm_cli.exitcodes import ExitCode
from tests.conftest import MEMWARM, RunCli, isolated_env


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


def test_version_names_the_openclaw_releases_memwarm_reproduces(run_cli: RunCli) -> None:
    """`--version`: `memwarm VERSION` first (scripts read that line), then every measured release of
    every profile, how a run picks one, and the qmd it drives."""
    from memwarm_cli.profiles.releases import PROFILES

    result = run_cli(["--version"])
    assert result.returncode == ExitCode.OK and result.stderr == ""
    lines = result.stdout.splitlines()
    assert lines[0] == f"memwarm {__version__}"
    for profile in PROFILES:
        assert f"  {profile.name}  {', '.join(profile.releases)}" in lines
    assert "2026.6.35" in lines[2] and "2026.9.6" in lines[5]
    assert "--openclaw VERSION" in result.stdout and "qmd 2.8.3" in result.stdout
    assert max(map(len, lines)) <= 80


def test_a_command_exit_code_survives_non_standalone_mode(run_cli: RunCli, tmp_path: Path) -> None:
    # `config check --strict` ends with typer.Exit(1) on a warning (the workspace does not exist);
    # click returns that code instead of exiting, and main must still exit with it.
    config = tmp_path / "openclaw.json5"
    config.write_text('{ agents: { list: [ { id: "a", workspace: "/nonexistent/ws" } ] } }', encoding="utf-8")
    result = run_cli(["--config", str(config), "config", "check", "--strict"])
    assert result.returncode == ExitCode.FINDINGS, result.stderr
    assert "/nonexistent/ws" in result.stdout


# --- stdout that cannot be written: one `memwarm: error:` line and exit 5, never a traceback ---

# Every way data reaches stdout: Typer commands (--json and plain), the eager --version callback and the
# `prelude` fast path, which runs without Typer.
_PRINTING_COMMANDS = [
    pytest.param(["--version"], id="version"),
    pytest.param(["config", "path", "--json"], id="config-path-json"),
    pytest.param(["config", "path"], id="config-path-plain"),
    pytest.param(["init-backends", "--dry-run", "--json"], id="init-backends-dry-run-json"),
    pytest.param(["prelude", "--json"], id="prelude-fast-path-json"),
    pytest.param(["scan", "--format", "table"], id="scan-rich-table"),
]


def _state_env(tmp_path: Path, home_dir: Path, *, unbuffered: bool) -> dict[str, str]:
    """An isolated state dir with one agent whose workspace and qmd command exist.

    Both must exist so that `init-backends --dry-run` logs no failure line on stderr of its own; a dry
    run only resolves the command, it never runs it. Buffered is how users run memwarm (bytes left in
    the buffer are flushed again at exit); PYTHONUNBUFFERED makes stdout.buffer the raw file instead.
    """
    state, workspace, qmd = tmp_path / "state", tmp_path / "ws", tmp_path / "bin" / "qmd"
    for directory in (state, workspace, qmd.parent):
        directory.mkdir()
    qmd.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    qmd.chmod(0o755)
    config = {
        "agents": {"list": [{"id": "main", "workspace": str(workspace)}]},
        "memory": {"backend": "qmd", "qmd": {"command": str(qmd)}},
    }
    (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    env = isolated_env(home_dir, {"OPENCLAW_STATE_DIR": str(state)})
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.fixture(params=["buffered", "unbuffered"])
def state_env(request: pytest.FixtureRequest, tmp_path: Path, home_dir: Path) -> dict[str, str]:
    return _state_env(tmp_path, home_dir, unbuffered=request.param == "unbuffered")


@pytest.fixture
def buffered_state_env(tmp_path: Path, home_dir: Path) -> dict[str, str]:
    return _state_env(tmp_path, home_dir, unbuffered=False)


def _run_with_fds(
    args: list[str],
    env: dict[str, str],
    *,
    stdout: int = subprocess.PIPE,
    stderr: int = subprocess.PIPE,
    close: tuple[int, ...] = (),
    max_file_size: int | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run the installed CLI with fds 1 and 2 set as given, those in `close` closed."""

    def in_child() -> None:
        for fd in close:
            os.close(fd)
        if max_file_size is not None:  # writes past the limit fail with EFBIG instead of killing
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (max_file_size, max_file_size))

    return subprocess.run(
        [MEMWARM, *args],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        timeout=120,
        preexec_fn=in_child,
    )


def _run_with_stdout(
    args: list[str],
    env: dict[str, str],
    stdout: int,
    *,
    close_stdout: bool = False,
    max_file_size: int | None = None,
) -> tuple[int, str]:
    """Run the installed CLI with fd 1 set to `stdout` (or closed); returns the exit code and stderr."""
    close = (1,) if close_stdout else ()
    proc = _run_with_fds(args, env, stdout=stdout, close=close, max_file_size=max_file_size)
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


def _assert_one_output_error_line(returncode: int, stderr: str) -> str:
    """Checks stderr holds one error line and no traceback; returns that line (with its newline).

    init-backends writes its summary line to stderr before its report, so that line comes first.
    """
    if stderr.startswith("init-backends: "):
        stderr = stderr.split("\n", 1)[1]
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    assert returncode == ExitCode.OUTPUT, stderr
    assert stderr.count("\n") == 1 and stderr.endswith("\n"), stderr
    assert stderr.startswith("memwarm: error: cannot write to stdout: "), stderr
    return stderr


def _assert_full_disk_on_stdout_is_one_error_line(args: list[str], env: dict[str, str]) -> None:
    with open("/dev/full", "wb") as full:
        returncode, stderr = _run_with_stdout(args, env, full.fileno())
    line = _assert_one_output_error_line(returncode, stderr)
    assert line == "memwarm: error: cannot write to stdout: No space left on device\n"


def _assert_closed_stdout_is_one_error_line(args: list[str], env: dict[str, str]) -> None:
    returncode, stderr = _run_with_stdout(args, env, subprocess.DEVNULL, close_stdout=True)
    line = _assert_one_output_error_line(returncode, stderr)
    assert line == "memwarm: error: cannot write to stdout: it is closed\n"


def _run_into_a_gone_reader(args: list[str], env: dict[str, str]) -> tuple[int, str]:
    """`memwarm ... | head -c0`: the pipe's read end is closed before memwarm writes."""
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        return _run_with_stdout(args, env, write_end)
    finally:
        os.close(write_end)


@pytest.mark.parametrize("args", _PRINTING_COMMANDS)
def test_a_full_disk_on_stdout_is_one_line_with_exit_code_5(
    args: list[str], state_env: dict[str, str]
) -> None:
    _assert_full_disk_on_stdout_is_one_error_line(args, state_env)


@pytest.mark.parametrize("args", _PRINTING_COMMANDS)
def test_a_closed_stdout_is_one_line_with_exit_code_5(args: list[str], state_env: dict[str, str]) -> None:
    _assert_closed_stdout_is_one_error_line(args, state_env)


def test_a_write_cut_short_midway_is_reported_not_truncated_silently(
    state_env: dict[str, str], tmp_path: Path
) -> None:
    # A file size limit lets the first 1024 bytes through and then fails, as a disk filling up does.
    # Unbuffered, the raw file's short write used to drop the rest and exit 0.
    out = tmp_path / "out.json"
    with out.open("wb") as file:
        returncode, stderr = _run_with_stdout(
            ["config", "show", "--json"], state_env, file.fileno(), max_file_size=1024
        )
    line = _assert_one_output_error_line(returncode, stderr)
    assert line == "memwarm: error: cannot write to stdout: File too large\n"
    assert out.stat().st_size == 1024


@pytest.mark.parametrize(
    "args",
    [
        ["prelude", "--json"],  # the fast path, outside Typer
        # Typer catches EPIPE itself (typer/core.py `_main`) and Rich too; both would exit 1.
        ["config", "path", "--json"],
        ["scan", "--json"],
        ["scan", "--format", "table"],
        ["--version"],
    ],
)
def test_a_reader_that_went_away_is_a_quiet_exit_0(state_env: dict[str, str], args: list[str]) -> None:
    assert _run_into_a_gone_reader(args, state_env) == (ExitCode.OK, "")


# --- --help and -h write through the same stdout writer as everything else ---

_HELP_COMMANDS = [
    pytest.param(["--help"], id="help"),
    pytest.param(["-h"], id="h"),
    pytest.param(["config", "check", "-h"], id="config-check-h"),
]


@pytest.mark.parametrize("args", _HELP_COMMANDS)
def test_help_into_a_full_or_closed_stdout_is_one_line_with_exit_code_5(
    args: list[str], state_env: dict[str, str]
) -> None:
    # It was a traceback (full disk, buffered), a silent exit 0 (unbuffered) or "Exception ignored".
    _assert_full_disk_on_stdout_is_one_error_line(args, state_env)
    _assert_closed_stdout_is_one_error_line(args, state_env)


@pytest.mark.parametrize("args", _HELP_COMMANDS)
def test_help_to_a_reader_that_went_away_is_a_quiet_exit_0(
    args: list[str], state_env: dict[str, str]
) -> None:
    assert _run_into_a_gone_reader(args, state_env) == (ExitCode.OK, "")  # was exit 1


def test_short_help_is_the_help(run_cli: RunCli) -> None:
    for args in (["--help"], ["scan", "--help"], ["config", "show", "--help"]):
        long_form = run_cli(args)
        short_form = run_cli([*args[:-1], "-h"])
        assert long_form.returncode == short_form.returncode == ExitCode.OK
        assert short_form.stdout == long_form.stdout and long_form.stdout.startswith("Usage: memwarm")
        assert "-h, --help" in long_form.stdout


# --- a stderr that cannot be written changes neither the exit code nor stdout ---

# Commands that write to stderr on their way, with what stdout must still get.
_STDERR_WRITERS = [
    pytest.param(["config", "check"], id="config-check-summary"),
    pytest.param(["scan", "--format", "plain", "--at", "2026-04-11T18:00:00Z"], id="scan-plain-summary"),
    pytest.param(["prelude", "--at", "2026-04-11T18:00:00Z"], id="prelude-fast-path-note"),
    pytest.param(["init-backends", "--json"], id="init-backends-json-summary-then-report"),
    pytest.param(["config", "show", "--agent", "nobody"], id="usage-error-line"),
    pytest.param(["--config", "/nonexistent/c.json", "config", "path"], id="config-error-line"),
]


def _comparable_stdout(args: list[str], stdout: bytes) -> Any:
    """stdout as a comparison needs it: init-backends' report without its timings."""
    if args[0] != "init-backends":
        return stdout
    report = json.loads(stdout)
    return [(agent["agentId"], agent["status"], agent["reason"]) for agent in report["agents"]]


@pytest.mark.parametrize("args", _STDERR_WRITERS)
def test_a_failing_stderr_changes_neither_the_exit_code_nor_stdout(
    args: list[str], buffered_state_env: dict[str, str]
) -> None:
    env = buffered_state_env
    reference = _run_with_fds(args, env)
    assert reference.stderr, "the command writes to stderr, or this test proves nothing"
    assert "Traceback" not in reference.stderr.decode("utf-8", "replace")
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        with open("/dev/full", "wb") as full:
            runs = {
                "full": _run_with_fds(args, env, stderr=full.fileno()),
                "closed": _run_with_fds(args, env, stderr=subprocess.DEVNULL, close=(2,)),
                "reader gone": _run_with_fds(args, env, stderr=write_end),
            }
    finally:
        os.close(write_end)
    expected = (reference.returncode, _comparable_stdout(args, reference.stdout))
    for kind, proc in runs.items():
        # Exit codes were 1 or 120 (a traceback, or the failed flush at exit), the report was lost.
        assert (proc.returncode, _comparable_stdout(args, proc.stdout)) == expected, kind


def test_failing_stdout_and_stderr_together_still_exit_5(buffered_state_env: dict[str, str]) -> None:
    # Not 120: the error line cannot be written either, and nothing may fail again at exit.
    with open("/dev/full", "wb") as full:
        for args in (["--version"], ["--help"], ["init-backends", "--dry-run", "--json"]):
            proc = _run_with_fds(args, buffered_state_env, stdout=full.fileno(), stderr=full.fileno())
            assert proc.returncode == ExitCode.OUTPUT, args
            proc = _run_with_fds(args, buffered_state_env, stdout=full.fileno(), close=(2,))
            assert proc.returncode == ExitCode.OUTPUT, args


@pytest.mark.parametrize(
    ("args", "relative"),
    [
        (["--config", "x.json5", "config", "path"], "x.json5"),
        (["--config", "x.json5", "prelude"], "x.json5"),
        (["--config", "x.json5", "init-backends", "--dry-run"], "x.json5"),
        (["status"], "rel"),  # OPENCLAW_STATE_DIR=rel
    ],
)
def test_a_relative_path_in_a_deleted_directory_is_one_error_line(
    tmp_path: Path, home_dir: Path, args: list[str], relative: str
) -> None:
    """os.path.abspath asks for the cwd, which raised FileNotFoundError in a deleted directory: a traceback
    on every command given a relative path."""
    gone = tmp_path / "gone"
    gone.mkdir()
    env = isolated_env(home_dir, {"OPENCLAW_STATE_DIR": "rel"} if args == ["status"] else None)
    script = 'cd "$1" && rmdir "$1" && shift && exec "$@"'
    result = subprocess.run(
        ["bash", "-c", script, "bash", str(gone), MEMWARM, *args], env=env, capture_output=True, text=True
    )
    assert result.returncode == ExitCode.CONFIG, result.stderr
    assert result.stderr == (
        f"memwarm: error: cannot resolve the relative path {relative}: the current directory no longer "
        "exists (cd to an existing directory, or give absolute paths)\n"
    )


@pytest.mark.parametrize("workspace", ["w" * 300, "d/" * 2100 + "x"])
@pytest.mark.parametrize("command", [["status"], ["init-backends"], ["init-backends", "--dry-run"], ["scan"]])
def test_a_workspace_path_the_os_refuses_is_no_traceback(
    run_cli: RunCli, tmp_path: Path, workspace: str, command: list[str]
) -> None:
    """A 300-byte name or a path past PATH_MAX: is_dir() raised ENAMETOOLONG in status' version lookup
    and in init-backends' walk."""
    config = tmp_path / "c.json"
    agents = {"defaults": {"workspace": f"{tmp_path}/{workspace}"}}
    config.write_text(json.dumps({"memory": {"backend": "qmd"}, "agents": agents}))
    result = run_cli(["--config", str(config), *command], env={"OPENCLAW_STATE_DIR": str(tmp_path / "st")})
    assert "Traceback" not in result.stderr and result.returncode in (0, 1), result.stderr
