"""Shared test helpers and fixtures: run memwarm in an isolated environment (in this process by default,
as a real process where a test needs one), an isolated home, memory notes, and line/column offsets.

Writing a CLI test: take the `run_cli` fixture and call `run_cli([...args], env={...}, cwd=...)`; it runs
`memwarm_cli.cli.main.run` in this process (a few milliseconds) and returns a CliResult exactly as a
`memwarm` process would give it. Use `run_cli_process` (or `run_memwarm_process`) only for what needs a
real process: the installed console script, the prelude fast path's imports, signals, closed or full
stdout/stderr fds, a terminal (pty), or two memwarm processes at once.
"""

from __future__ import annotations

import compileall
import io
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

import pytest
from hypothesis import HealthCheck, settings

MEMWARM = str(Path(sys.executable).with_name("memwarm"))
REPO_ROOT = Path(__file__).resolve().parent.parent

# Byte code is cached in the suite even where PYTHONDONTWRITEBYTECODE is set (as on the dev machines):
# without it each xdist worker rewrites and compiles every test module again (about 4 s of CPU each), and
# each memwarm process a test starts compiles the modules it imports (50 to 110 ms a process, hundreds of
# processes). The processes keep the variable; they read what is written here (pytest_configure).
sys.dont_write_bytecode = False
# The golden cases, copied into the repository from the workspace's ../shared/parity (scripts/golden.py).
GOLDEN_DIR = REPO_ROOT / "tests" / "golden"
TOOLS_BIN = REPO_ROOT / "tools" / "bin"


def require_tool(name: str) -> Path:
    """tools/bin/<name> (`make tools`: Node.js 22 and the pinned qmd). Under CI a missing one is a
    failure, never a skip."""
    tool = TOOLS_BIN / name
    if tool.is_file() and os.access(tool, os.X_OK):
        return tool
    message = f"{tool} is missing: run `make tools` (Node.js 22 + the pinned qmd)"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


# Variables that steer config discovery; the tests never inherit them from the developer's shell.
_OPENCLAW_VARS = (
    "OPENCLAW_CONFIG_PATH",
    "OPENCLAW_STATE_DIR",
    "OPENCLAW_HOME",
    "OPENCLAW_PROFILE",
    "OPENCLAW_WORKSPACE_DIR",
    "MEMWARM_OPENCLAW",  # the OpenClaw release to reproduce (tests name it with --openclaw)
    "CLAWDBOT_STATE_DIR",
    "CLAWDBOT_CONFIG_PATH",
    "NO_COLOR",
)


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str
    stdout_bytes: bytes


def isolated_env(home: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _OPENCLAW_VARS}
    env["HOME"] = str(home)
    env["TZ"] = "UTC"
    env["PYTHONIOENCODING"] = "utf-8"
    if extra:
        env.update(extra)
    return env


RunCli = Callable[..., CliResult]

# While memwarm runs in this process, os.environ holds only these decoys: a command that read the
# process environment instead of the one it was given (its invocation's) would see them and fail the
# test, where a real `memwarm` process would have seen the test's env.
_DECOY_ENVIRON = {
    "HOME": "/nonexistent/in-process-memwarm-read-os.environ",
    "PATH": "/nonexistent/in-process-memwarm-read-os.environ",
    "OPENCLAW_STATE_DIR": "/nonexistent/in-process-memwarm-read-os.environ",
    "TZ": "Pacific/Kiritimati",
}


class _InProcessTimeout(BaseException):
    """Raised by SIGALRM in a run that took longer than its timeout (BaseException: nothing catches it)."""


@contextmanager
def _decoy_environ() -> Iterator[None]:
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(_DECOY_ENVIRON)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """A blocking call (a FIFO opened without a writer, a hung child) fails the test instead of hanging it."""

    def expire(_signum: int, _frame: FrameType | None) -> None:
        raise _InProcessTimeout

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _captured_stream() -> io.TextIOWrapper:
    # What `PYTHONIOENCODING=utf-8` gives a process: UTF-8, and stderr's backslashreplace.
    return io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace", write_through=True)


def run_memwarm(
    args: Sequence[str], env: Mapping[str, str], *, cwd: Path | None = None, timeout: float = 120
) -> CliResult:
    """`memwarm ARGS...` run in this process with exactly `env` (and `cwd`), as a process would run it.

    An exception memwarm does not handle becomes what Python would make of it in a process: the
    traceback on stderr and exit code 1.
    """
    from memwarm_cli.cli.main import run

    stdout, stderr = _captured_stream(), _captured_stream()
    try:
        with _time_limit(timeout), _decoy_environ():
            returncode = run(list(args), env=dict(env), stdout=stdout, stderr=stderr, cwd=cwd)
    except _InProcessTimeout:
        raise subprocess.TimeoutExpired(["memwarm", *args], timeout) from None
    except Exception:
        stderr.write(traceback.format_exc())
        returncode = 1
    out = stdout.buffer.getvalue()  # type: ignore[attr-defined]
    err = stderr.buffer.getvalue()  # type: ignore[attr-defined]
    return CliResult(
        returncode=returncode,
        stdout=out.decode("utf-8"),
        stderr=err.decode("utf-8", "replace"),
        stdout_bytes=out,
    )


def run_memwarm_process(
    args: Sequence[str], env: Mapping[str, str], *, cwd: Path | None = None, timeout: float = 120
) -> CliResult:
    """Run the installed `memwarm ARGS...` as a process with exactly `env`; stdin is closed."""
    proc = subprocess.run(
        [MEMWARM, *args],
        env=dict(env),
        cwd=cwd,
        capture_output=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )
    return CliResult(
        returncode=proc.returncode,
        stdout=proc.stdout.decode("utf-8"),
        stderr=proc.stderr.decode("utf-8", "replace"),
        stdout_bytes=proc.stdout,
    )


def run_in_terminal(args: Sequence[str], env: Mapping[str, str], columns: int = 80) -> str:
    """The installed `memwarm ARGS...` on a pseudo-terminal `columns` wide (stdin, stdout and stderr all
    on it): everything it drew, as the terminal received it (line feeds become CRLF there)."""
    master, slave = pty.openpty()
    full_env = {**env, "COLUMNS": str(columns), "LINES": "50", "TERM": "xterm-256color"}
    proc = subprocess.Popen([MEMWARM, *args], stdout=slave, stderr=slave, stdin=slave, env=full_env)
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if select.select([master], [], [], 0.5)[0]:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: every process holding the terminal closed it
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    proc.wait(timeout=10)
    os.close(master)
    return b"".join(chunks).decode("utf-8", "replace")


_ANSI_SEQUENCE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def strip_ansi(text: str) -> str:
    """`text` without its CSI sequences (colours, cursor moves)."""
    return _ANSI_SEQUENCE.sub("", text)


def write_memory_note(
    workspace: Path, name: str, data: str | bytes = "note", mtime: float | None = None
) -> Path:
    """`<workspace>/memory/<name>` with `data` (text as UTF-8), its mtime set when given."""
    path = workspace / "memory" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    if mtime is not None:
        os.utime(path, (mtime, mtime))
    return path


def offset_of(text: str, line: int, column: int) -> int:
    """The string offset of a 1-based line and column, lines split at `\n` only (as the parsers count)."""
    return sum(len(row) + 1 for row in text.split("\n")[: line - 1]) + column - 1


def pytest_configure(config: pytest.Config) -> None:
    """memwarm_cli byte-compiled once, before any worker starts, as `pip install` compiles an installed
    package (the checkout is an editable install; bench/common.py's compile_package does the same)."""
    if not hasattr(config, "workerinput"):
        compileall.compile_dir(str(REPO_ROOT / "memwarm_cli"), quiet=1)


@pytest.fixture
def home_dir(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    return home


def _cli_runner(home: Path, runner: Callable[..., CliResult]) -> RunCli:
    def run(
        args: Sequence[str],
        env: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        timeout: float = 120,
    ) -> CliResult:
        return runner(args, isolated_env(home, env), cwd=cwd, timeout=timeout)

    return run


@pytest.fixture
def run_cli(home_dir: Path) -> RunCli:
    """Run `memwarm ARGS...` in this process with HOME isolated; returns exit code, decoded stdout/stderr."""
    return _cli_runner(home_dir, run_memwarm)


@pytest.fixture
def run_cli_process(home_dir: Path) -> RunCli:
    """`run_cli`, but the installed console script as a real process."""
    return _cli_runner(home_dir, run_memwarm_process)


# A user's file outside the state dir (the state-file tests, unit and scenario).
OUTSIDE_TEXT = "precious user data\n"


@pytest.fixture
def outside(tmp_path: Path) -> Iterator[Path]:
    """A user's file outside the state dir, where planted symlinks point: it must stay as it is, and
    nothing may be created beside it."""
    path = tmp_path / "outside" / "user-file"
    path.parent.mkdir()
    path.write_text(OUTSIDE_TEXT)
    yield path
    assert path.read_text() == OUTSIDE_TEXT
    assert sorted(p.name for p in path.parent.iterdir()) == ["user-file"], "memwarm created a file outside"


# Property tests: bounded by each test's max_examples, never by wall-clock deadlines, which a shared
# 2-core machine running the suite in parallel cannot keep.
settings.register_profile("memwarm", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("memwarm")


# Golden-case accounting: a parity module declares `pytestmark = pytest.mark.golden("<set>")`; each of
# its tests carries (set, case name) in user_properties, which xdist brings back to the controller, and
# the summary line counts the cases run and the tests passed per set.
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # The tests that take seconds by design first (the pip installs, then `long`): xdist hands a worker a
    # few tests at a time in this order, so the other worker no longer idles while one ends the suite on
    # a pip install (about 15 s at the end of the suite before).
    items.sort(
        key=lambda item: (item.get_closest_marker("install") is None, item.get_closest_marker("long") is None)
    )
    for item in items:
        marker = item.get_closest_marker("golden")
        if marker is None:
            continue
        params = getattr(item, "callspec", None)
        values = params.params if params is not None else {}
        case = (
            values.get("name") or values.get("case_run", {}).get("name") or values.get("case", {}).get("name")
        )
        if case:
            item.user_properties.append(("golden", (marker.args[0], case)))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    cases: dict[str, set[str]] = {}
    outcomes: dict[str, dict[str, int]] = {}
    for reports in terminalreporter.stats.values():
        for report in reports:
            if getattr(report, "when", None) not in ("call", "setup"):
                continue
            for key, value in getattr(report, "user_properties", ()):
                if key != "golden" or (report.when == "setup" and report.passed):
                    continue
                golden_set, case = value
                cases.setdefault(golden_set, set()).add(case)
                tally = outcomes.setdefault(golden_set, {})
                outcome = report.outcome
                if hasattr(report, "wasxfail"):
                    outcome = "xfailed" if report.skipped else "xpassed"
                tally[outcome] = tally.get(outcome, 0) + 1
    if not cases:
        return
    parts = []
    for golden_set in sorted(cases):
        counted = ", ".join(f"{count} {outcome}" for outcome, count in sorted(outcomes[golden_set].items()))
        parts.append(f"{golden_set}: {len(cases[golden_set])} cases ({counted})")
    terminalreporter.write_line("golden cases (tests/golden): " + "; ".join(parts))
