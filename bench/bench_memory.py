"""Benchmark the peak memory of a no-change `init-backends` and of `status` on many notes (issue 21 item 6).

8 agents (`--agents`), each MEMORY.md and N/8 notes in memory/ (default N = 1,000,000), each agent's index a
synthetic qmd 2.8.3 index (bench_qmd_index.py: the real qmd would take hours to build 1M notes) that
holds every note as qmd would. Measured, as whole processes, the peak resident set of the largest
process of the run (memwarm or a forked worker) and the wall clock:
- init-backends and status judged from the index (no memwarm record: every note merged with its row);
- the same with memwarm's record vouching (what a run leaves: only the walk).

Target: under 300 MiB for each on 1,000,000 notes. With `--agents 1`, all the notes in one memory/
(issue 31, class 7): `status` under 64 MiB on 200,000 notes and under 200 MiB on 1,000,000. The
workspaces and indexes are cached under bench/.work/memory-<N> (memory-<agents>x<N> for other than 8
agents; about 4 GB of small files for 1M notes on ext4).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench.bench_qmd_index import write_index
from bench.common import MEMWARM, WORK_DIR, compile_package, peak_rss, qmd_env

AGENTS = 8
TARGET_MIB = 300.0
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet")


def build(root: Path, notes: int, agents: int = AGENTS) -> Path:
    """Workspaces, indexes and the config (cached); returns the state dir."""
    per_agent = notes // agents
    state = root / "state"
    marker = root / f".complete-{agents}x{per_agent}"
    if not marker.exists():
        started = time.monotonic()
        for agent in range(agents):
            workspace = root / f"ws-{agent}"
            memory = workspace / "memory"
            memory.mkdir(parents=True, exist_ok=True)
            (workspace / "MEMORY.md").write_text(f"# Agent {agent}\nLong-term memory.\n", encoding="utf-8")
            names = []
            for number in range(per_agent):
                name = f"2026-{number % 12 + 1:02d}-{number % 28 + 1:02d}-note-{number:07d}.md"
                words = " ".join(WORDS[(number + i) % len(WORDS)] for i in range(12))
                (memory / name).write_text(
                    f"# Note {number}\n\n{words} agent{agent}n{number}\n", encoding="utf-8"
                )
                names.append(name)
            index = state / "agents" / f"agent-{agent}" / "qmd" / "xdg-cache" / "qmd" / "index.sqlite"
            (index.parent.parent.parent / "xdg-config" / "qmd").mkdir(parents=True, exist_ok=True)
            write_index(
                index,
                [
                    (f"memory-root-agent-{agent}", workspace, "MEMORY.md", ["MEMORY.md"]),
                    (f"memory-dir-agent-{agent}", memory, "**/*.md", sorted(names)),
                ],
            )
            print(
                f"  agent {agent}: {per_agent} notes and their index ({time.monotonic() - started:.0f} s)",
                flush=True,
            )
        marker.touch()
    config = {
        "memory": {"backend": "qmd"},
        "agents": {"list": [{"id": f"agent-{a}", "workspace": str(root / f"ws-{a}")} for a in range(agents)]},
    }
    state.mkdir(parents=True, exist_ok=True)
    (state / "openclaw.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return state


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notes", type=int, default=1_000_000)
    parser.add_argument("--agents", type=int, default=AGENTS, help="1: every note in one memory/")
    parser.add_argument("--runs", type=int, default=1, help="runs of each command (the median is shown)")
    args = parser.parse_args(argv)
    compile_package()
    agents = args.agents
    root = WORK_DIR / (f"memory-{args.notes}" if agents == AGENTS else f"memory-{agents}x{args.notes}")
    state = build(root, args.notes, agents)
    target = TARGET_MIB if agents > 1 else (64.0 if args.notes <= 200_000 else 200.0)
    env = qmd_env(state, root)
    status = [MEMWARM, "status", "--format", "plain"]
    init = [MEMWARM, "init-backends", "-q"]
    print(f"{agents} agents x {args.notes // agents} notes: peak RSS of the largest process, wall clock")
    failed = False
    results = []
    for label, argv_ in (
        ("status, from the index", status),
        ("init-backends, from the index", init),  # records what it found
        ("status, record vouching", status),
        ("init-backends, record vouching", init),
    ):
        if "from the index" in label:
            for record in state.glob("agents/*/qmd/xdg-cache/qmd/memwarm-fingerprint.json"):
                record.unlink()
        runs = [peak_rss(argv_, env) for _ in range(args.runs)]
        seconds = statistics.median(run[0] for run in runs)
        mib = statistics.median(run[1] for run in runs)
        code = max(run[2] for run in runs)
        results.append((label, seconds, mib, code))
    print(f"  (median of {args.runs}; target {target:.0f} MiB; load average {os.getloadavg()[0]:.1f})")
    for label, seconds, mib, code in results:
        verdict = "ok" if mib < target and code == 0 else "OVER" if mib >= target else f"exit {code}"
        failed |= verdict != "ok"
        print(f"  {label:32} {mib:7.1f} MiB  {seconds:6.2f} s  {verdict}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
