"""Helpers shared by the benchmarks: timing whole processes, reporting medians, and the multi-agent
workspaces with a qmd config that the init-backends and status benchmarks run on."""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
WORK_DIR = REPO_ROOT / "bench" / ".work"
MEMWARM = str(Path(sys.executable).with_name("memwarm"))
TOOLS_BIN = REPO_ROOT / "tools" / "bin"


def time_process(
    argv: Sequence[str],
    runs: int,
    env: Mapping[str, str] | None = None,
    cwd: Path | None = None,
    warmup: int = 1,
) -> list[float]:
    """Wall-clock seconds of `runs` complete runs of argv (after `warmup` untimed ones); each must exit 0."""
    timings: list[float] = []
    for index in range(warmup + runs):
        start = time.perf_counter()
        proc = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            raise SystemExit(f"benchmark command failed ({proc.returncode}): {argv}\n{proc.stderr.decode()}")
        if index >= warmup:
            timings.append(elapsed)
    return timings


def compile_package() -> None:
    """Byte-compile memwarm_cli as `pip install` does for an installed package.

    The checkout is an editable install; with PYTHONDONTWRITEBYTECODE set (as on the dev machines) its
    .pyc files are never written, and every run would recompile the edited modules (~70 ms here).
    """
    import compileall

    compileall.compile_dir(str(REPO_ROOT / "memwarm_cli"), quiet=1)


def median(values: Sequence[float]) -> float:
    return statistics.median(values)


def build_agents(root: Path, agents: int, notes: int, note: Callable[[int, int], tuple[str, str]]) -> Path:
    """Workspaces root/ws-0.., each with MEMORY.md and memory/ holding `notes` notes (`note(agent, n)`
    gives a note's file name and text), built once and cached; and the state dir with an OpenClaw
    config of `agents` qmd agents (agent-0..), returned."""
    marker = root / f".complete-{agents}x{notes}"
    if not marker.exists():
        shutil.rmtree(root, ignore_errors=True)
        for agent in range(agents):
            workspace = root / f"ws-{agent}"
            memory = workspace / "memory"
            memory.mkdir(parents=True)
            (workspace / "MEMORY.md").write_text(f"# Agent {agent}\nLong-term memory.\n", encoding="utf-8")
            for number in range(notes):
                name, text = note(agent, number)
                (memory / name).write_text(text, encoding="utf-8")
        marker.touch()
    state = root / "state"
    state.mkdir(exist_ok=True)
    config = {
        "memory": {"backend": "qmd"},
        "agents": {"list": [{"id": f"agent-{a}", "workspace": str(root / f"ws-{a}")} for a in range(agents)]},
    }
    (state / "openclaw.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return state


def qmd_env(state: Path, root: Path) -> dict[str, str]:
    """This environment with the state dir `state`, tools/bin's qmd first on PATH and qmd's cache in
    root/home-cache."""
    env = dict(os.environ)
    env["OPENCLAW_STATE_DIR"] = str(state)
    env["PATH"] = f"{TOOLS_BIN}{os.pathsep}{env.get('PATH', '')}"
    env["XDG_CACHE_HOME"] = str(root / "home-cache")
    return env


def peak_rss(argv: Sequence[str], env: Mapping[str, str] | None = None) -> tuple[float, float, int]:
    """One run's wall-clock seconds, the peak resident set (MiB) of its largest process (memwarm or a
    forked worker: wait4 reports the most of the process and the children it reaped), and its exit code."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - start
    if proc.returncode not in (0, 4):
        raise SystemExit(f"benchmark command failed ({proc.returncode}): {argv}\n{err.decode()}")
    return elapsed, usage.ru_maxrss / 1024, proc.returncode
