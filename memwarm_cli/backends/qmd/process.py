"""Running qmd: one child per command, in its own process group, with a timeout and cancellation.

A timeout kills the whole process group with SIGKILL (qmd may have children of its own, and a node
process stuck downloading a model ignores nothing else). Cancellation (SIGINT/SIGTERM received by
memwarm) sends SIGTERM to every running group through the shared `CancelToken`, and SIGKILL to whatever
is left after TERM_GRACE_SECONDS.

Output is read with deadlines that do not wait for end-of-file (child_watch.py): a process that
escaped the group (`setsid`) can hold the pipes open forever. A command ends at most TERM_GRACE_SECONDS
+ PIPE_GRACE_SECONDS (plus one poll interval) after a signal, and at most PIPE_GRACE_SECONDS after its
timeout, whatever it left behind.

Each captured stream keeps at most MAX_OUTPUT_CHARS (child_watch.CappedOutput). A captured command that writes
more is killed at once and fails with OpenClaw's `produced too much output` message; OpenClaw fails it
too, but only when it ends by itself (an endless writer there runs into its timeout instead). Commands
whose stdout OpenClaw discards (`qmd update`, `qmd embed`) get /dev/null as stdout and keep only the
tail of their stderr, without failing, as OpenClaw does.
"""

from __future__ import annotations

import errno
import os
import signal
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memwarm_cli.backends.qmd.child_watch import MAX_OUTPUT_CHARS, ChildWatch, reap
from memwarm_cli.backends.qmd.qmd_diagnosis import command_path, killed_message, resolve_executable
from memwarm_cli.cancel import CancelToken, kill_group
from memwarm_cli.frozen_records import record

if TYPE_CHECKING:
    import subprocess

# The longest timeout Node's setTimeout honours (2**31-1 ms, about 24.8 days); poll() refuses more too.
MAX_TIMEOUT_MS = 2**31 - 1


def clamp_timeout_ms(timeout_ms: float) -> int:
    """A timeout as it can be used: at least 1 ms, at most MAX_TIMEOUT_MS (NaN is not accepted)."""
    if timeout_ms != timeout_ms:
        raise ValueError("timeout is not a number")
    if timeout_ms >= MAX_TIMEOUT_MS:
        return MAX_TIMEOUT_MS
    return max(1, round(timeout_ms))


def timeout_ms_from_seconds(seconds: float) -> int:
    """`--timeout SECONDS` in milliseconds, clamped (1e308 s would overflow to inf ms)."""
    return clamp_timeout_ms(min(seconds, MAX_TIMEOUT_MS / 1000) * 1000)


@record
class CommandResult:
    """One qmd command as it ran: for the report and for error messages."""

    argv: tuple[str, ...]  # as shown: the configured command first, then the arguments
    exit_code: int | None  # None when it did not start, timed out or was cancelled
    duration_ms: int
    stdout: str
    stderr: str
    timed_out: bool = False
    spawn_error: str | None = None  # Node-style `spawn <cmd> ENOENT`
    timeout_ms: int | None = None
    too_much_output: bool = False  # a captured stream passed MAX_OUTPUT_CHARS: the group was killed
    killed: str | None = None  # ended by a signal memwarm did not send: what happened, for the user

    @property
    def ok(self) -> bool:
        return self.exit_code == 0

    @property
    def label(self) -> str:
        """`qmd <args…>` as upstream names a command in its errors."""
        return " ".join(["qmd", *self.argv[1:]])

    def error_message(self) -> str:
        """Upstream's runCliCommand rejection message for a command that did not succeed."""
        if self.spawn_error is not None:
            return self.spawn_error
        if self.timed_out:
            return f"{self.label} timed out after {self.timeout_ms}ms"
        if self.too_much_output:
            return f"{self.label} produced too much output (limit {MAX_OUTPUT_CHARS} chars)"
        output = (self.stderr.strip() or self.stdout.strip())[:MAX_OUTPUT_CHARS]
        if self.killed is not None:  # upstream says `failed (code null)`; the signal says more
            return self.killed + (f"; its output: {output}" if output else "")
        return f"{self.label} failed (code {self.exit_code}): {output}"


def spawn_error_message(command: str, exc: OSError) -> str:
    """Node's spawn error text: `spawn qmd ENOENT`, `spawn /x/qmd EACCES`."""
    code = errno.errorcode.get(exc.errno or 0, "EUNKNOWN")
    return f"spawn {command} {code}"


def unavailable_error(command: str, env: Mapping[str, str], cwd: Path) -> str | None:
    """Node's spawn error for a command `resolve_executable` cannot find, or None when it can.

    `spawn <cmd> EACCES` for a path that exists but cannot be run (a directory, no execute bit),
    `spawn <cmd> ENOENT` otherwise. Lets `--dry-run` say what a real run would, without spawning.
    """
    if resolve_executable(command, env, cwd) is not None:
        return None
    return spawn_error_message(command, _unavailable(command, cwd))


def _unavailable(command: str, cwd: Path) -> OSError:
    code = errno.ENOENT
    if "/" in command and os.path.exists(command_path(command, cwd)):
        code = errno.EACCES
    return OSError(code, os.strerror(code), command)


def _spawn(
    command: str, args: Sequence[str], env: Mapping[str, str], cwd: Path, *, stdout: int, stderr: int
) -> subprocess.Popen[bytes]:
    # Popen would search the parent's PATH; qmd must be found as Node's spawn finds it (the child's PATH,
    # a relative path against the child's cwd).
    import subprocess  # here: ~4 ms CPU of every status run, which starts no qmd

    executable = resolve_executable(command, env, cwd)
    if executable is None:
        raise _unavailable(command, cwd)
    return subprocess.Popen(
        [command, *args],
        executable=executable,
        env=dict(env),
        cwd=str(cwd),
        stdin=subprocess.DEVNULL,
        stdout=stdout,
        stderr=stderr,
        start_new_session=True,
    )


PROBE_COMMAND_TIMEOUT_MS = 2000  # checkQmdBinaryAvailability's


def probe_command(
    command: str,
    env: Mapping[str, str],
    cwd: Path,
    token: CancelToken,
    timeout_ms: int = PROBE_COMMAND_TIMEOUT_MS,
) -> str | None:
    """`checkQmdBinaryAvailability`: spawn with no args; started means available (then killed).

    Returns None when the binary starts, else the error (`spawn qmd ENOENT`).
    """
    import subprocess  # here: ~4 ms CPU of every status run, which starts no qmd

    token.check()
    try:
        proc = _spawn(command, [], env, cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError as exc:
        return spawn_error_message(command, exc)
    kill_group(proc.pid, signal.SIGKILL)
    try:
        proc.wait(timeout=timeout_ms / 1000)
    except subprocess.TimeoutExpired:
        return f"spawn {command} timed out after {timeout_ms}ms"
    return None


def run_command(
    command: str,
    args: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: Path,
    timeout_ms: int,
    token: CancelToken,
    discard_stdout: bool = False,
) -> CommandResult:
    """Run `command args…` in its own process group; kill the group on timeout, too much output or
    cancellation.

    `timeout_ms` is clamped to 1..MAX_TIMEOUT_MS (a configured 3e9 ms waits about 24.8 days, as Node
    would). With `discard_stdout` (OpenClaw's `qmd update` and `qmd embed`) stdout goes to /dev/null and
    the output cap fails nothing. Raises Cancelled when the run is interrupted (before or while the
    command runs), once the child's group is gone.
    """
    import subprocess  # here: ~4 ms CPU of every status run, which starts no qmd

    token.check()
    timeout_ms = clamp_timeout_ms(timeout_ms)
    argv = (command, *args)
    started = time.monotonic()
    try:
        proc = _spawn(
            command,
            args,
            env,
            cwd,
            stdout=subprocess.DEVNULL if discard_stdout else subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except OSError as exc:
        return CommandResult(
            argv=argv,
            exit_code=None,
            duration_ms=_ms_since(started),
            stdout="",
            stderr="",
            spawn_error=spawn_error_message(command, exc),
        )
    token.register(proc.pid)
    deadline = started + timeout_ms / 1000
    watch = ChildWatch(proc, token, deadline=deadline, fail_on_overflow=not discard_stdout)
    try:
        watch.run()
    finally:
        watch.close_pipes()
        # Nothing of the group may outlive the command (a grandchild that kept running, say).
        kill_group(proc.pid, signal.SIGKILL)
        token.unregister(proc.pid)
        exit_code = reap(proc)
    token.check()
    ended_early = watch.timed_out or watch.too_much_output
    killed = None
    if not ended_early and exit_code is not None and exit_code < 0:
        killed = killed_message(" ".join(["qmd", *args]), -exit_code, env, token)
    return CommandResult(
        argv=argv,
        exit_code=None if ended_early else exit_code,
        duration_ms=_ms_since(started),
        stdout=watch.stdout.text(),
        stderr=watch.stderr.text(),
        timed_out=watch.timed_out,
        timeout_ms=timeout_ms,
        too_much_output=watch.too_much_output,
        killed=killed,
    )


def _ms_since(started: float) -> int:
    return round((time.monotonic() - started) * 1000)
