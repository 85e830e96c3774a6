"""Benchmark `memwarm init-backends` with the real qmd (tools/bin): 8 agents x 200 notes.

Measures, as whole processes:
- cold: no per-agent qmd state (every collection added, every index built), default concurrency;
- rerun: the same run again with nothing changed (the "fresh" path: no qmd update);
- cold with --concurrency 1, against the default (CPU count, here 2);
- the ceiling: the qmd commands a cold run ran, replayed by a bare runner (no memwarm) in as many lanes
  as the default and in one lane. No orchestrator can speed the same commands up by more than that.

Targets (2-core machine): rerun under 10% of cold; default at least 1.6x faster than --concurrency 1.
The verdict uses the ratio of the medians. Also printed, for a noisy machine: the median of the
per-pair ratios (each default run against the --concurrency 1 run right after it) and the CPU time
(user + sys of memwarm and its qmd children) per mode, which neighbours on the host disturb far less.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.common import MEMWARM, TOOLS_BIN, WORK_DIR, build_agents, compile_package, median, qmd_env
from memwarm_cli.backends.qmd import qmd_commands

AGENTS = 8
NOTES = 200
ROOT = WORK_DIR / "init-backends"
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo")


def _note(agent: int, note: int) -> tuple[str, str]:
    words = " ".join(WORDS[(note + i) % len(WORDS)] for i in range(40))
    text = f"# Note {note} of agent {agent}\n\n{words}\n\n- agent-{agent}-note-{note}\n"
    return f"2026-01-{note % 28 + 1:02d}-note-{note:03d}.md", text


def build() -> Path:
    """Workspaces ws-0..ws-7, each with MEMORY.md and memory/ holding NOTES notes (cached), and a config."""
    return build_agents(ROOT, AGENTS, NOTES, _note)


def env_for(state: Path) -> dict[str, str]:
    return qmd_env(state, ROOT)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _init_backends(state: Path, args: list[str]) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [MEMWARM, "init-backends", "--json", *args], env=env_for(state), capture_output=True, check=False
    )


def _checked_report(proc: subprocess.CompletedProcess[bytes], expect: str) -> dict[str, Any]:
    """The --json report of a run that exited 0 with every agent in status `expect`."""
    if proc.returncode != 0:
        raise SystemExit(f"init-backends failed ({proc.returncode}):\n{proc.stderr.decode()}")
    report: dict[str, Any] = json.loads(proc.stdout)
    statuses = {a["status"] for a in report["agents"]}
    if statuses != {expect}:
        raise SystemExit(f"expected every agent {expect}, got {statuses}")
    return report


def run_once(state: Path, args: list[str], expect: str) -> tuple[float, float]:
    """Wall-clock seconds of one whole run, and CPU seconds (user + sys) of memwarm and its qmd children."""
    cpu_before = _children_cpu()
    start = time.perf_counter()
    proc = _init_backends(state, args)
    elapsed = time.perf_counter() - start
    cpu = _children_cpu() - cpu_before
    _checked_report(proc, expect)
    return elapsed, cpu


def cold(state: Path, args: list[str]) -> tuple[float, float]:
    shutil.rmtree(state / "agents", ignore_errors=True)
    return run_once(state, args, "armed")


@dataclass(frozen=True)
class AgentCommands:
    """The qmd commands one agent's cold run ran, with the env overrides and cwd memwarm gives them."""

    env: dict[str, str]
    cwd: str
    argvs: list[list[str]]


def cold_commands(state: Path) -> tuple[list[AgentCommands], int]:
    """One cold run's qmd commands per agent (the cached `--version` aside), with the env and cwd its
    `--dry-run` report gives them, in config order; and the run's concurrency (CPU affinity counts)."""
    shutil.rmtree(state / "agents", ignore_errors=True)
    planned = _checked_report(_init_backends(state, ["--dry-run"]), "planned")
    ran = _checked_report(_init_backends(state, []), "armed")
    qmd = str(TOOLS_BIN / "qmd")
    agents = []
    for plan, agent in zip(planned["agents"], ran["agents"], strict=True):
        first = plan["planned"][0]
        version = list(qmd_commands.version_args())
        argvs = [[qmd, *c["argv"][1:]] for c in agent["commands"] if c["argv"][1:] != version]
        agents.append(AgentCommands(first["env"], first["cwd"], argvs))
    return agents, int(ran["concurrency"])


def replay(state: Path, agents: list[AgentCommands], lanes: int) -> float:
    """Wall-clock seconds for a bare runner to run every agent's commands in order, `lanes` agents at once.

    memwarm's own work is left out: its availability check (qmd started and stopped at once), the
    fingerprint, the locks. The directories qmd needs are made as memwarm makes them.
    """
    shutil.rmtree(state / "agents", ignore_errors=True)
    base = env_for(state)

    def run_agent(agent: AgentCommands) -> None:
        env = {**base, **agent.env}
        Path(env["QMD_CONFIG_DIR"]).mkdir(parents=True)
        (Path(env["XDG_CACHE_HOME"]) / "qmd").mkdir(parents=True)
        for argv in agent.argvs:
            proc = subprocess.run(argv, env=env, cwd=agent.cwd, capture_output=True, check=False)
            if proc.returncode != 0:
                raise SystemExit(f"replayed {argv} failed ({proc.returncode}):\n{proc.stderr.decode()}")

    start = time.perf_counter()
    with ThreadPoolExecutor(max_workers=lanes) as pool:
        list(pool.map(run_agent, agents))
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="timed runs per case (median reported)")
    options = parser.parse_args()
    if not (TOOLS_BIN / "qmd").exists():
        print("tools/bin/qmd is missing: run `make tools`", file=sys.stderr)
        return 2
    compile_package()
    state = build()
    load_before = " ".join(f"{x:.2f}" for x in os.getloadavg())
    cold(state, [])  # warm-up: page cache, Node's compile cache

    # Interleaved, so that load from other work on the machine hits both cases alike.
    cold_default: list[float] = []
    cold_serial: list[float] = []
    cpu_default: list[float] = []
    cpu_serial: list[float] = []
    agents, lanes = cold_commands(state)
    bare_default: list[float] = []
    bare_serial: list[float] = []
    for _ in range(options.runs):
        wall, cpu = cold(state, [])
        cold_default.append(wall)
        cpu_default.append(cpu)
        wall, cpu = cold(state, ["--concurrency", "1"])
        cold_serial.append(wall)
        cpu_serial.append(cpu)
        bare_default.append(replay(state, agents, lanes))
        bare_serial.append(replay(state, agents, 1))
    cold(state, [])
    rerun = [run_once(state, [], "fresh")[0] for _ in range(options.runs + 2)]

    m_cold, m_rerun, m_serial = median(cold_default), median(rerun), median(cold_serial)
    rerun_ratio = m_rerun / m_cold
    speedup = m_serial / m_cold
    print(f"init-backends, {AGENTS} agents x {NOTES} notes, real qmd, {os.cpu_count()} CPUs")
    print(f"  load average before: {load_before}")
    print(f"  cold (default concurrency)   median {m_cold:6.2f} s   runs {_fmt(cold_default)}")
    print(f"  no-change re-run (fresh)     median {m_rerun:6.2f} s   runs {_fmt(rerun)}")
    print(f"  cold --concurrency 1         median {m_serial:6.2f} s   runs {_fmt(cold_serial)}")
    verdict = "ok" if rerun_ratio < 0.10 else "MISSED"
    print(f"  re-run / cold      {rerun_ratio:6.1%}   (target < 10%)   {verdict}")
    print(f"  default speed-up   {speedup:6.3f}x  (target >= 1.6x) {'ok' if speedup >= 1.6 else 'MISSED'}")
    paired = median([serial / default for default, serial in zip(cold_default, cold_serial, strict=True)])
    print(f"  (median of the {options.runs} paired ratios: {paired:.3f}x)")
    print(
        f"  CPU time, user+sys: default median {median(cpu_default):.2f} s, "
        f"--concurrency 1 median {median(cpu_serial):.2f} s"
    )
    print(
        f"  (best runs: cold {min(cold_default):.2f} s, --concurrency 1 {min(cold_serial):.2f} s, "
        f"speed-up {min(cold_serial) / min(cold_default):.2f}x)"
    )
    ceiling = median(bare_serial) / median(bare_default)
    print(
        f"  ceiling: the same {sum(len(a.argvs) for a in agents)} qmd commands, bare runner: "
        f"{lanes} lanes median {median(bare_default):.2f} s, 1 lane {median(bare_serial):.2f} s, "
        f"speed-up {ceiling:.3f}x"
    )
    print(f"  memwarm's speed-up as a share of the ceiling: {speedup / ceiling:.0%}")
    print(f"  load average after:  {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


def _fmt(values: list[float]) -> str:
    return " ".join(f"{v:.2f}" for v in values)


if __name__ == "__main__":
    sys.exit(main())
