"""What to tell a user whose qmd cannot be found or crashed: where memwarm looked, what it found, and the
way out.

The two faults users meet first (memory-backends.md §8): `spawn qmd ENOENT` when the PATH memwarm passes
to qmd (a cron job's is `/usr/bin:/bin`) lacks it, and qmd dying by a signal (SIGSEGV, exit -11) when it
runs on a Node.js older than 22, whose ABI its native modules were not built for. The messages name the
command, the PATH that was searched, the `node` found on it and its version (`node --version`, bounded
and cached per executable).
"""

from __future__ import annotations

import json
import os
import re
import time

# The C modules under `signal` and `threading` (as cancel.py): their enums and classes are ~1 ms CPU of a
# `status` that reads qmd's version from the cache.
from _signal import SIGABRT, SIGBUS, SIGFPE, SIGILL, SIGKILL, SIGSEGV  # type: ignore[import-not-found]
from _thread import allocate_lock

from memwarm_cli.exec_search import find_on_path
from memwarm_cli.safe_files import FileTooLargeError, NotRegularFileError, read_bounded
from memwarm_cli.textsafe import clip

# typing, ~4 ms CPU of a start-up, is not imported on `status`'s path (mypy reads this as typing's)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from memwarm_cli.cancel import CancelToken

MIN_NODE_MAJOR = 22
# memwarm is built and tested against qmd 2.8.3. 2.0.0 is the oldest it can work with: its index is the
# first to register its collections (`store_collections`, which memwarm's freshness reads); 0.9.0 runs on
# bun only, 1.x keeps the collections in index.yml alone. (2.0-2.8.2 do not split comma masks.)
TARGET_QMD_VERSION = "2.8.3"
MIN_QMD_VERSION = (2, 0, 0)
# The one install command memwarm names (README, docs and every hint): pinned, because an unpinned
# `npm install -g @tobilu/qmd` on a Node.js older than 22 installs the bun-only 0.9.0.
QMD_INSTALL = f"npm install -g @tobilu/qmd@{TARGET_QMD_VERSION}"
INSTALL_HINT = f"{QMD_INSTALL}, on Node.js {MIN_NODE_MAJOR} or later"
QMD_UPGRADE = f"{QMD_INSTALL} (on Node.js {MIN_NODE_MAJOR} or later)"
BUN_NOT_FOUND = "bun not found"  # qmd 0.9.0's launcher, on a machine without bun
NODE_VERSION_TIMEOUT_SECONDS = 5.0
# Signals a program raises on itself when it breaks (a bad native module, an abort); anything else that
# ends qmd (SIGKILL from the OOM killer, SIGTERM from an admin) was done to it.
_CRASH_SIGNALS = frozenset({SIGSEGV, SIGBUS, SIGILL, SIGABRT, SIGFPE})
# The ones a native module built for another Node's ABI dies of. An abort (a failed allocation, a broken
# assertion) or an arithmetic fault is qmd's own: blaming the node on PATH misled users whose qmd launcher
# pins its own Node 22 (tools/bin/qmd).
_ABI_CRASH_SIGNALS = frozenset({SIGSEGV, SIGBUS, SIGILL})


def lookup_path(env: Mapping[str, str]) -> str:
    """The PATH a bare command is looked up on: the child's, else the OS default (as exec does)."""
    return env.get("PATH", os.defpath)


def command_path(command: str, cwd: Path) -> str:
    """A command holding a `/`: absolute as is, else relative to the child's cwd (the workspace)."""
    return command if os.path.isabs(command) else os.path.join(str(cwd), command)


def resolve_executable(command: str, env: Mapping[str, str], cwd: Path) -> str | None:
    """Where exec would find `command`: relative paths against cwd, bare names on the child's PATH by
    execvp's rules (exec_search.py), whose empty and relative entries are relative to the child's cwd
    too, as they are for the exec that memwarm (and OpenClaw's spawn) makes there."""
    if "/" in command:
        path = command_path(command, cwd)
        return path if os.path.isfile(path) and os.access(path, os.X_OK) else None
    return find_on_path(command, lookup_path(env), str(cwd))


def unavailable_hint(command: str, env: Mapping[str, str], cwd: Path) -> str:
    """Where memwarm looked for `command` and the two ways out, for `qmd binary unavailable (...)`."""
    fixes = f"install qmd ({INSTALL_HINT}), or set memory.qmd.command to its absolute path"
    if "/" not in command:
        return f'looked for "{command}" on PATH={lookup_path(env)}; {fixes}'
    path = command_path(command, cwd)
    where = path if os.path.isabs(command) else f"{path} (relative to the workspace)"
    if os.path.exists(path):
        fix = "make it one, or set memory.qmd.command to qmd's absolute path"
        return f"{where} is not an executable file; {fix}"
    return f"{where} does not exist; {fixes}"


def signal_name(signum: int) -> str:
    import signal  # its enums: only for a qmd a signal ended

    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def killed_message(label: str, signum: int, env: Mapping[str, str], token: CancelToken | None = None) -> str:
    """`qmd crashed (signal 11, SIGSEGV) in "qmd update": ...`, with the node qmd probably ran on."""
    name = signal_name(signum)
    if signum not in _CRASH_SIGNALS:
        return f'qmd was killed (signal {signum}, {name}) in "{label}"'
    if signum not in _ABI_CRASH_SIGNALS:
        return f'qmd crashed (signal {signum}, {name}) in "{label}" (see its output)'
    return f'qmd crashed (signal {signum}, {name}) in "{label}": {node_requirement(env, token)}'


def node_requirement(env: Mapping[str, str], token: CancelToken | None = None) -> str:
    """`qmd needs Node.js 22 or later; ...` and what the PATH holds."""
    node = node_on_path(env, token)
    head = f"qmd needs Node.js {MIN_NODE_MAJOR} or later"
    if node is None:
        return f"{head}; there is no node on the PATH memwarm passes to qmd ({lookup_path(env)})"
    executable, version = node
    shown = version or "its version is unknown"
    found = f"the node on the PATH memwarm passes to qmd is {executable} ({shown})"
    major = node_major(version)
    if major is not None and major >= MIN_NODE_MAJOR:
        found += ", new enough: the crash has another cause (see qmd's output)"
    return f"{head}; {found}"


def node_on_path(env: Mapping[str, str], token: CancelToken | None = None) -> tuple[str, str | None] | None:
    """The `node` a `#!/usr/bin/env node` script would run with this env, and its `--version`."""
    import shutil  # only when qmd failed: see resolve_executable

    executable = shutil.which("node", path=lookup_path(env))
    if executable is None:
        return None
    return executable, node_version(executable, env, token)


def node_version(executable: str, env: Mapping[str, str], token: CancelToken | None = None) -> str | None:
    """`executable --version` (`v20.11.1`), asked once per executable; None if it does not say. Raises
    Cancelled when `token` is cancelled meanwhile (the node and its process group killed first)."""
    try:
        st = os.stat(executable)
    except OSError:
        return None
    identity = (executable, st.st_ino, st.st_size, st.st_mtime_ns)
    with _node_versions_lock:  # agents fail in parallel threads: the first asks, the others wait for it
        if identity not in _node_versions:
            _node_versions[identity] = _node_version(executable, env, token)
        return _node_versions[identity]


# One `node --version` per executable however many agents fail (their envs differ only in qmd's dirs).
_node_versions: dict[tuple[str, int, int, int], str | None] = {}
_node_versions_lock = allocate_lock()


def _node_version(executable: str, env: Mapping[str, str], token: CancelToken | None) -> str | None:
    """In its own process group, killed at the limit or on cancellation: a `node` that hangs, or leaves a
    child holding the pipe, costs at most NODE_VERSION_TIMEOUT_SECONDS and is never left running.

    Not process.run_command: a command it runs that dies by a signal is diagnosed through this very
    function (killed_message), under the lock node_version holds."""
    import subprocess  # here: ~4 ms CPU of every status run, which starts no qmd

    try:
        proc = subprocess.Popen(
            [executable, "--version"],
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
    except (OSError, ValueError):
        return None
    assert proc.stdout is not None
    deadline = time.monotonic() + NODE_VERSION_TIMEOUT_SECONDS
    try:
        while proc.poll() is None:
            if token is not None:
                token.check()
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.02)
        os.set_blocking(proc.stdout.fileno(), False)  # a child left holding the pipe: no wait for EOF
        try:
            out = os.read(proc.stdout.fileno(), 4096)
        except BlockingIOError:
            out = b""
    finally:
        try:  # noqa: SIM105 - not contextlib.suppress: contextlib costs status ~1 ms CPU
            os.killpg(proc.pid, SIGKILL)
        except OSError:  # the group may be gone already
            pass
        proc.wait()
        proc.stdout.close()
    text = out.decode("utf-8", "replace").strip()
    return text if proc.returncode == 0 and re.fullmatch(r"v?\d+(\.\d+)*\S*", text) else None


def node_major(version: str | None) -> int | None:
    match = re.match(r"v?(\d+)", version or "")
    return int(match.group(1)) if match else None


def node_problem(
    executable: str,
    env: Mapping[str, str],
    token: CancelToken | None = None,
    release_node: tuple[str, str] | None = None,
) -> str | None:
    """Why the qmd at `executable` will crash on the node it gets, ahead of time (`config check`); None
    when that node is new enough, or when qmd's first line does not say it runs on node (a launcher
    script of its own, as `make tools` installs, picks its node itself). `release_node` is the selected
    release and its `engines.node` (`("OpenClaw 2026.7.35", ">=22.22.3 <23 || ...")`), said too."""
    interpreter = _shebang_node(executable)
    if interpreter is None:
        return None
    release = f"; {release_node[0]} itself needs Node {release_node[1]}" if release_node else ""
    if interpreter == "env":
        found = node_on_path(env, token)
        if found is None:
            return (
                f"{executable} runs the node on its PATH, and there is none on PATH={lookup_path(env)}; "
                f"qmd needs Node.js {MIN_NODE_MAJOR} or later{release}"
            )
        node, version = found
    else:
        node, version = interpreter, node_version(interpreter, env, token)
    major = node_major(version)
    if major is None or major >= MIN_NODE_MAJOR:
        return None
    return (
        f"{executable} runs on {node} ({version}), and qmd needs Node.js {MIN_NODE_MAJOR} or later: on an "
        f"older one it crashes (SIGSEGV){release}"
    )


def _head(path: str, max_bytes: int) -> bytes | None:
    """The first bytes of a regular file (a FIFO or device on PATH named qmd is never opened)."""
    try:
        return read_bounded(path, max_bytes, head_only=True)[0]
    except (OSError, ValueError, NotRegularFileError):
        return None


def _shebang_node(executable: str) -> str | None:
    """`env` for `#!/usr/bin/env node`, the interpreter's path for `#!/path/to/node`, else None."""
    head = _head(executable, 256)
    if head is None:
        return None
    first = head.split(b"\n", 1)[0]
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env":
        names = [word for word in words[1:] if not word.startswith("-")]  # `env -S node ...`
        return "env" if names and names[0] == "node" else None
    return words[0] if os.path.basename(words[0]).startswith("node") else None


def qmd_semver(version: str | None) -> tuple[int, int, int] | None:
    """(2, 8, 3) from `qmd 2.8.3 (facd35e)`; None when the text names no version."""
    match = re.search(r"(?<![\d.])(\d+)\.(\d+)\.(\d+)", version or "")
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def version_problem(command: str, version: str | None, failure: str | None = None) -> str | None:
    """Why the qmd `command` is too old for memwarm, from what `qmd --version` printed (`version`) or,
    when it failed, its output (`failure`); None when nothing says so."""
    if failure is not None and BUN_NOT_FOUND in failure:
        return (
            f'qmd ({command}) is a bun-only release (qmd 0.9.0: its launcher says "{BUN_NOT_FOUND}"), '
            f"too old for memwarm, which needs qmd {TARGET_QMD_VERSION} on Node.js; fix: {QMD_UPGRADE}"
        )
    found = qmd_semver(version)
    if found is None or found >= MIN_QMD_VERSION:
        return None
    shown = ".".join(map(str, found))
    what = "a bun-only release" if found[0] == 0 else "too old for memwarm"
    oldest = ".".join(map(str, MIN_QMD_VERSION))
    return (
        f"qmd ({command}) is {shown}, {what} (memwarm needs qmd {oldest} or later and is tested with "
        f"{TARGET_QMD_VERSION}); fix: {QMD_UPGRADE}"
    )


_PACKAGE_JSON_MAX_BYTES = 256 * 1024


def installed_version(executable: str) -> str | None:
    """The version in the `@tobilu/qmd` package.json beside the real executable (npm links `bin/qmd` into
    the package: `qmd` for 0.9.0, `dist/cli/qmd.js` for 2.x), looked up without running anything."""
    directory = os.path.dirname(os.path.realpath(executable))
    for _ in range(4):
        candidate = os.path.join(directory, "package.json")
        try:
            data = json.loads(read_bounded(candidate, _PACKAGE_JSON_MAX_BYTES)[0])
        except (OSError, ValueError, NotRegularFileError, FileTooLargeError):
            data = None
        if isinstance(data, dict) and data.get("name") == "@tobilu/qmd":
            version = data.get("version")
            return f"qmd {clip(version)}" if isinstance(version, str) else None
        directory = os.path.dirname(directory)
    return None


def _bun_launcher(executable: str) -> bool:
    """qmd 0.9.0's `qmd` is a bash script that looks for bun and execs it."""
    head = _head(executable, 8192)
    if head is None:
        return False
    return head.startswith(b"#!") and b"find_bun" in head and BUN_NOT_FOUND.encode() in head


def qmd_problem(
    executable: str,
    env: Mapping[str, str],
    token: CancelToken | None = None,
    release_node: tuple[str, str] | None = None,
) -> str | None:
    """What will go wrong with the qmd at `executable`, found without running it (`config check`): a
    release too old for memwarm (its package.json, or 0.9.0's bun launcher), else node_problem (with
    the selected release's Node range, `release_node`)."""
    problem = version_problem(executable, installed_version(executable))
    if problem is None and _bun_launcher(executable):
        problem = version_problem(executable, None, BUN_NOT_FOUND)
    return problem or node_problem(executable, env, token, release_node)
