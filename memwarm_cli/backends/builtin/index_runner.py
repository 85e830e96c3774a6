"""Building an agent's builtin index the only safe way: the installed OpenClaw's own
`openclaw memory index --agent <id>`, as the gateway's user, with the user's state dir and config.

Before anything starts, `launcher` finds `openclaw` as the release detection does (profiles/installed.py:
the first on the PATH, its package read from its files), refuses a package of a release that has no
builtin index (a qmd release, 2026.7.x and older), and checks the Node it will run on (the `node` on the
PATH for the package's `#!/usr/bin/env node` entry, or the one its shebang names) against the release's
`engines.node`: a Node the release refuses makes its preinstall and start-up fail. Each problem is one
sentence with the fix, said once per run by the caller.

`run_memory_index` runs one agent (never `--force` unless asked) in its own process group, killed at its
timeout or on cancellation (process.run_command), with OPENCLAW_STATE_DIR and OPENCLAW_CONFIG_PATH set to
what memwarm read, in memwarm's working directory (a relative workspace in the config resolves against it,
for OpenClaw as for memwarm).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path

from memwarm_cli.backends.qmd.process import run_command
from memwarm_cli.backends.qmd.qmd_diagnosis import _shebang_node, lookup_path, node_on_path, node_version
from memwarm_cli.cancel import CancelToken
from memwarm_cli.frozen_records import record
from memwarm_cli.profiles.installed import find_installed, which
from memwarm_cli.profiles.node_range import node_satisfies
from memwarm_cli.profiles.releases import Profile, match_release, release_node_range

DEFAULT_AGENT_TIMEOUT_MS = 30 * 60 * 1000  # a cold build took 195 s at 10,000 notes on a loaded machine
INSTALL_FIX = (
    "install it where the gateway runs (Node first: `npm install -g node@24`, then "
    "`npm install -g openclaw@latest`), or put its bin directory on PATH"
)
_UPDATED = re.compile(r"Memory index updated \(([^)]*)\): (\d+) files? indexed")


@record
class Launcher:
    """The openclaw memwarm would start, and whether it can."""

    executable: str | None  # the `openclaw` on the PATH
    package_dir: str | None
    version: str | None
    node: str | None  # the node it runs on (None: not found, or a wrapper that picks its own)
    node_version: str | None
    node_range: str | None  # the release's engines.node
    problem: str | None  # why it cannot be started, with the fix; None: it can

    def to_json(self) -> dict[str, object]:
        return {
            "executable": self.executable,
            "packageDir": self.package_dir,
            "version": self.version,
            "node": self.node,
            "nodeVersion": self.node_version,
            "nodeRange": self.node_range,
            "problem": self.problem,
        }


def find_launcher(env: Mapping[str, str], *, profile: Profile, token: CancelToken | None = None) -> Launcher:
    """The installed openclaw and its Node, judged for a run of `profile` (one `node --version`)."""
    found = find_installed(env)
    if found is None:
        on_path = which(env)
        what = f"{on_path} runs no openclaw package" if on_path else "there is no openclaw on the PATH"
        problem = f"OpenClaw is not installed ({what}: {lookup_path(env)}); {INSTALL_FIX}"
        return Launcher(on_path, None, None, None, None, None, problem)
    match = match_release(found.version) if found.version else None
    node_range = found.node_range or release_node_range(found.version, match.profile if match else profile)
    base = (found.executable, found.package_dir, found.version)
    if match is not None and match.profile.qmd_available:
        problem = (
            f"the openclaw on the PATH ({found.executable}) is OpenClaw {found.version}, a release with qmd "
            f"and no builtin memory index; install OpenClaw 2026.8.1 or later ({INSTALL_FIX})"
        )
        return Launcher(*base, None, None, node_range, problem)
    interpreter = _shebang_node(os.path.realpath(found.executable))
    if interpreter is None:  # a wrapper script: it picks its node itself
        return Launcher(*base, None, None, node_range, None)
    if interpreter == "env":
        located = node_on_path(env, token)
        if located is None:
            problem = (
                f"OpenClaw {found.version} needs Node {node_range} and there is no node on the PATH "
                f"({lookup_path(env)}); install Node first (`npm install -g node@24`)"
            )
            return Launcher(*base, None, None, node_range, problem)
        node, version = located
    else:
        node, version = interpreter, node_version(interpreter, env, token)
    if node_satisfies(version, node_range) is False:
        problem = (
            f"OpenClaw {found.version} needs Node {node_range}, and the node it would run on is {node} "
            f"({version}); install a Node it accepts first (`npm install -g node@24`), first on the PATH"
        )
        return Launcher(*base, node, version, node_range, problem)
    return Launcher(*base, node, version, node_range, None)


def index_argv(agent_id: str, *, force: bool) -> tuple[str, ...]:
    """`openclaw memory index --agent <id>` (with `--force` only when the user asked for a rebuild)."""
    return ("memory", "index", "--agent", agent_id, *(("--force",) if force else ()))


def child_env(env: Mapping[str, str], state_dir: str, config_path: str) -> dict[str, str]:
    """The user's environment with the state dir and config memwarm read, so OpenClaw opens the same."""
    return {**env, "OPENCLAW_STATE_DIR": state_dir, "OPENCLAW_CONFIG_PATH": config_path}


@record
class IndexRun:
    argv: tuple[str, ...]
    ok: bool
    exit_code: int | None
    duration_ms: int
    timed_out: bool
    timeout_ms: int
    indexed_files: int | None  # from `Memory index updated (<id>): N files indexed.`
    error: str | None  # why it failed, one line with OpenClaw's own message

    def to_json(self) -> dict[str, object]:
        return {
            "argv": list(self.argv),
            "exitCode": self.exit_code,
            "durationMs": self.duration_ms,
            "timedOut": self.timed_out,
            "timeoutMs": self.timeout_ms,
            "indexedFiles": self.indexed_files,
            "error": self.error,
        }


def _openclaw_error(stdout: str, stderr: str) -> str:
    """OpenClaw's error: `{"ok": false, "error": {"message"}}`, else the last line it printed."""
    for text in (stdout, stderr):
        for line in reversed(text.strip().splitlines()):
            line = line.strip()
            if line.startswith("{"):
                try:
                    value = json.loads(line)
                except ValueError:
                    continue
                error = value.get("error") if isinstance(value, dict) else None
                message = error.get("message") if isinstance(error, dict) else None
                if isinstance(message, str):
                    return message
    lines = [line.strip() for line in (stderr.strip() or stdout.strip()).splitlines() if line.strip()]
    return lines[-1][:500] if lines else "no output"


def run_memory_index(
    launcher: Launcher,
    agent_id: str,
    *,
    env: Mapping[str, str],
    cwd: Path,
    timeout_ms: int,
    token: CancelToken,
    force: bool = False,
) -> IndexRun:
    """One `openclaw memory index` for one agent. Raises Cancelled when the run is interrupted (the child's
    process group killed first)."""
    assert launcher.executable is not None
    args = index_argv(agent_id, force=force)
    shown = ("openclaw", *args)
    result = run_command(launcher.executable, args, env=env, cwd=cwd, timeout_ms=timeout_ms, token=token)
    counted = _UPDATED.search(result.stdout)
    indexed = int(counted.group(2)) if counted else None
    error = None
    if result.spawn_error is not None:
        error = f"openclaw could not be started: {result.spawn_error}"
    elif result.timed_out:
        error = (
            f"`{' '.join(shown)}` timed out after {timeout_ms / 1000:g}s (raise it with --timeout SECONDS)"
        )
    elif result.too_much_output:
        error = f"`{' '.join(shown)}` produced too much output"
    elif result.exit_code is not None and result.exit_code < 0:
        error = f"`{' '.join(shown)}` was killed by signal {-result.exit_code}"
    elif result.exit_code != 0:
        said = _openclaw_error(result.stdout, result.stderr)
        error = f"`{' '.join(shown)}` failed (exit {result.exit_code}): {said}"
    return IndexRun(
        argv=shown,
        ok=error is None,
        exit_code=result.exit_code,
        duration_ms=result.duration_ms,
        timed_out=result.timed_out,
        timeout_ms=timeout_ms,
        indexed_files=indexed,
        error=error,
    )
