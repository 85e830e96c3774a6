"""Helpers for the init-backends tests: scenarios on disk, running memwarm, fake and real qmd."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memwarm_cli.backends.settings.agent_backend import AgentBackendSettings, resolve_agent_backend
from memwarm_cli.profiles.releases import P0

# The fake qmd lives in fake_qmd.py; the tests import it from here, as before.
from tests.backends.fake_qmd import FAKE_QMD as FAKE_QMD
from tests.backends.fake_qmd import fake_log as fake_log
from tests.backends.fake_qmd import install_fake_qmd as install_fake_qmd
from tests.backends.fake_qmd import quiet_fake_log as quiet_fake_log
from tests.conftest import (
    MEMWARM,
    TOOLS_BIN,
    CliResult,
    isolated_env,
    require_tool,
    run_memwarm,
    run_memwarm_process,
)
from tests.signal_defaults import DEFAULT_SIGNALS

REAL_QMD = TOOLS_BIN / "qmd"
MODELS_UNREACHABLE = "http://127.0.0.1:9/"  # resolves (an address), and nothing answers on port 9
MODELS_UNRESOLVABLE = "https://models.invalid/"  # .invalid never resolves (RFC 6761)

# For the settings tests: an agent's backend resolved from a config dict, with fixed state dir and HOME.
STATE = Path("/state")
WS = Path("/ws/main")
ENV = {"HOME": "/home/u"}


def resolve(cfg: dict[str, Any], agent_id: str = "main", entry: dict[str, Any] | None = None) -> Any:
    """The agent's backend settings (typed Any, so tests reach into optional parts without narrowing)."""
    settings: AgentBackendSettings = resolve_agent_backend(cfg, agent_id, entry, WS, STATE, ENV, profile=P0)
    return settings


SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"


def require_real_qmd() -> Path:
    """tools/bin/qmd, installed by `make tools`. Under CI a missing qmd is a failure, never a skip."""
    return require_tool("qmd")


@dataclass
class Scenario:
    """A home, a state dir with openclaw.json, and agents with their workspaces."""

    root: Path
    agents: dict[str, Path] = field(default_factory=dict)  # id -> workspace
    config: dict[str, Any] = field(default_factory=dict)
    path_dirs: list[Path] = field(default_factory=list)  # put first on PATH (fake qmd, or tools/bin)

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def state(self) -> Path:
        return self.root / "state"

    @property
    def config_path(self) -> Path:
        return self.state / "openclaw.json"

    def workspace(self, agent_id: str) -> Path:
        return self.agents[agent_id]

    def write_config(self) -> None:
        self.config_path.write_text(json.dumps(self.config, indent=2), encoding="utf-8")

    def env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        path = ":".join([*(str(p) for p in self.path_dirs), SYSTEM_PATH])
        values = {
            "OPENCLAW_STATE_DIR": str(self.state),
            "PATH": path,
            "XDG_CACHE_HOME": str(self.home / ".cache"),
            "XDG_CONFIG_HOME": str(self.home / ".config"),
            # A model host that resolves but serves nothing: qmd tries a download and waits as it does
            # offline, whatever this machine's network; MODELS_UNRESOLVABLE makes memwarm's own check
            # (backends/qmd/model_cache.py) find the host out of reach.
            "HF_ENDPOINT": MODELS_UNREACHABLE,
        }
        values.update(extra or {})
        return isolated_env(self.home, values)

    def run(
        self,
        args: Sequence[str],
        *,
        timeout: float = 120,
        extra_env: Mapping[str, str] | None = None,
        process: bool = False,
    ) -> CliResult:
        """`memwarm init-backends ARGS...` in this process (with `process`, as a real process)."""
        runner = run_memwarm_process if process else run_memwarm
        return runner(["init-backends", *args], self.env(extra_env), timeout=timeout)

    def run_json(self, args: Sequence[str] = (), **kwargs: Any) -> tuple[CliResult, dict[str, Any]]:
        result = self.run(["--json", *args], **kwargs)
        try:
            report = json.loads(result.stdout)
        except ValueError as exc:
            raise AssertionError(f"no JSON report (exit {result.returncode}):\n{result.stderr}") from exc
        return result, report

    def qmd_dir(self, agent_id: str) -> Path:
        return self.state / "agents" / agent_id / "qmd"

    def fingerprint(self, agent_id: str) -> Path:
        return self.qmd_dir(agent_id) / "xdg-cache" / "qmd" / "memwarm-fingerprint.json"

    def agent_env(self, agent_id: str) -> dict[str, str]:
        """The env the gateway gives qmd for this agent (to query the index the way it would)."""
        qmd_dir = self.qmd_dir(agent_id)
        return self.env(
            {
                "XDG_CONFIG_HOME": str(qmd_dir / "xdg-config"),
                "XDG_CACHE_HOME": str(qmd_dir / "xdg-cache"),
                "QMD_CONFIG_DIR": str(qmd_dir / "xdg-config" / "qmd"),
                "NO_COLOR": "1",
            }
        )

    def qmd(
        self,
        agent_id: str,
        *args: str,
        executable: Path = REAL_QMD,
        extra_env: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """Run qmd (the real one unless told) with an agent's env and workspace, as the gateway would."""
        return subprocess.run(
            [str(executable), *args],
            env={**self.agent_env(agent_id), **(extra_env or {})},
            cwd=self.workspace(agent_id),
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )


def make_scenario(root: Path, agents: Mapping[str, Mapping[str, str]], config: dict[str, Any]) -> Scenario:
    """Workspaces `<root>/ws-<id>` holding the given {relative path: text} files; config gets agents.list."""
    scenario = Scenario(root=root)
    scenario.home.mkdir(parents=True, exist_ok=True)
    scenario.state.mkdir(parents=True, exist_ok=True)
    entries = []
    for agent_id, files in agents.items():
        workspace = root / f"ws-{agent_id}"
        workspace.mkdir(parents=True, exist_ok=True)
        for rel, text in files.items():
            target = workspace / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        scenario.agents[agent_id] = workspace
        entries.append({"id": agent_id, "workspace": str(workspace)})
    config = dict(config)
    agents_section = dict(config.get("agents", {}))
    extra_entries = {e["id"]: e for e in agents_section.get("list", [])}
    agents_section["list"] = [{**entry, **extra_entries.get(entry["id"], {})} for entry in entries]
    config["agents"] = agents_section
    scenario.config = config
    scenario.write_config()
    return scenario


def real_qmd_scenario(
    root: Path, agents: Mapping[str, Mapping[str, str]], config: dict[str, Any]
) -> Scenario:
    """make_scenario, run with the real qmd (tools/bin first on PATH); skipped without it (failed in CI)."""
    require_real_qmd()
    scenario = make_scenario(root, agents, config)
    scenario.path_dirs = [TOOLS_BIN]
    return scenario


NOTES = {"MEMORY.md": "# M\nnotes\n", "memory/a.md": "# A\n"}
# fake_scenario(entries=...) for an agent "off" whose memory search is disabled (skipped by init-backends).
SEARCH_OFF = {"off": {"memorySearch": {"enabled": False}}}


def fake_scenario(
    tmp_path: Path,
    behaviours: Mapping[str, str] | None = None,
    *,
    agents: tuple[str, ...] = ("main",),
    entries: Mapping[str, dict[str, Any]] | None = None,
    **qmd: Any,
) -> tuple[Scenario, Path]:
    """Agents (each with NOTES) whose qmd is the fake one (first on PATH), with `behaviours` and
    memory.qmd set to `qmd`, each agent's agents.list entry given the keys of `entries[id]`; also the
    fake's state dir (FAKE_QMD_DIR)."""
    listed = [{"id": agent_id, **keys} for agent_id, keys in (entries or {}).items()]
    scenario = make_scenario(
        tmp_path,
        dict.fromkeys(agents, NOTES),
        {"memory": {"backend": "qmd", "qmd": qmd}, "agents": {"list": listed}},
    )
    state = install_fake_qmd(tmp_path / "fakebin", behaviours)
    scenario.path_dirs = [tmp_path / "fakebin"]
    return scenario, state


def by_agent(report: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {agent["agentId"]: agent for agent in report["agents"]}


def search_files(proc: subprocess.CompletedProcess[str]) -> list[str]:
    """The `file` fields of a `qmd search --json` answer."""
    assert proc.returncode == 0, proc.stderr
    return [hit["file"] for hit in json.loads(proc.stdout or "[]")]


# ---- fault scenarios for the fake qmd (bodies for `install_fake_qmd`'s behaviours) ----------------------

# A process in a new session (out of the child's process group, so a group kill misses it) that keeps
# the child's stdout and stderr open for 30 s. It records its PID in $FAKE_QMD_DIR/escaped.
ESCAPED_GRANDCHILD = "setsid bash -c 'echo $$ >> \"$FAKE_QMD_DIR/escaped\"; exec sleep 30' &\n"
# The child itself ignores SIGTERM (only SIGKILL ends it), and so does anything it starts.
IGNORES_SIGTERM = "trap '' TERM\n"
# Endless output, about 50 MB/s: fast enough to matter, slow enough that a memwarm without a cap
# (today's code, run by mistake) does not exhaust the machine's memory within a test's timeout.
ENDLESS_STDOUT = "while :; do head -c 1000000 /dev/zero | tr '\\0' o; sleep 0.02; done\n"
ENDLESS_STDERR = "while :; do head -c 1000000 /dev/zero | tr '\\0' e >&2; sleep 0.02; done\n"
# What the child's stdout is (a pipe, or /dev/null when discarded), recorded in $FAKE_QMD_DIR/stdout-of-<arg>.
RECORD_STDOUT = 'readlink /proc/$$/fd/1 > "$FAKE_QMD_DIR/stdout-of-$1"\n'


def process_alive(pid: int) -> bool:
    """Whether process `pid` still runs; a zombie (dead, not yet reaped) does not."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().split(") ", 1)[1][0] != "Z"
    except OSError:
        return False


def wait_for_marker(proc: subprocess.Popen[Any], marker: Path, what: str, timeout: float = 300) -> None:
    """Wait until the fake qmd has touched `marker`; fail, with memwarm's output, if memwarm ended first
    or `what` has not started within `timeout` seconds (a hang guard, not a timing: a loaded
    machine may take long to start it)."""
    deadline = time.monotonic() + timeout
    while not marker.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{what} never started"
        time.sleep(0.02)


def signal_once_started(
    scenario: Scenario, state: Path, args: Sequence[str], sig: int, marker: str = "started"
) -> tuple[int, str, float]:
    """Run memwarm with the fake qmd, send `sig` once the fake has touched `state/marker`; the exit code,
    stderr and the seconds from the signal to memwarm's end."""
    proc = subprocess.Popen(
        [MEMWARM, *args],
        env=scenario.env({"FAKE_QMD_DIR": str(state)}),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=DEFAULT_SIGNALS,  # the signal's default, whatever the test run inherited
    )
    try:
        wait_for_marker(proc, state / marker, marker)
        signalled = time.monotonic()
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=20)
        return proc.returncode, err, time.monotonic() - signalled
    finally:
        if proc.poll() is None:
            proc.kill()


def kill_escaped(state: Path) -> None:
    """Kill what ESCAPED_GRANDCHILD set loose (memwarm cannot: it left memwarm's process groups)."""
    escaped = state / "escaped"
    if escaped.exists():
        for pid in escaped.read_text().split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)


@dataclass
class MeasuredRun:
    returncode: int
    stdout: str
    stderr: str
    max_rss_kib: int  # peak resident set of memwarm (and the children it waited for)
    seconds: float


# Sets resource limits, then execs memwarm: `python -c LIMITED_EXEC <fsize bytes> memwarm args...`.
LIMITED_EXEC = (
    "import os, resource, sys\n"
    "limit = int(sys.argv[1])\n"
    "if limit >= 0:\n"
    "    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))\n"
    "os.execv(sys.argv[2], sys.argv[2:])\n"
)


def run_measured(
    args: Sequence[str], env: Mapping[str, str], *, file_size_limit: int = -1, timeout: float = 120
) -> MeasuredRun:
    """Run memwarm as its own process (under RLIMIT_FSIZE when given) and measure its peak memory.

    Output is read through pipes (a file-size limit would apply to a file), the exit is waited for with
    wait4 to get memwarm's own resource usage.
    """
    started = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-c", LIMITED_EXEC, str(file_size_limit), MEMWARM, *args],
        env={**env, "PYTHONDONTWRITEBYTECODE": "1"},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    streams: dict[str, bytes] = {}
    readers = [
        threading.Thread(target=lambda n=name, p=pipe: streams.__setitem__(n, p.read()))
        for name, pipe in (("out", proc.stdout), ("err", proc.stderr))
    ]
    for reader in readers:
        reader.start()
    deadline = started + timeout
    while True:
        pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            proc.kill()
            proc.wait()
            raise AssertionError(f"memwarm {' '.join(args)} did not end within {timeout} s")
        time.sleep(0.02)
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - started
    for reader in readers:
        reader.join()
    return MeasuredRun(
        returncode=proc.returncode,
        stdout=streams["out"].decode("utf-8"),
        stderr=streams["err"].decode("utf-8", "replace"),
        max_rss_kib=usage.ru_maxrss,
        seconds=seconds,
    )
