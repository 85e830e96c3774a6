"""Benchmark `memwarm status` on 10,000 agents that share one qmd (issue 21 item 5).

`status` asked `qmd --version` once per agent when the version cache did not know the executable: 200
agents spawned it 200 times, 10,000 agents took more than 3 minutes. Now each distinct qmd is asked once
per run. The real qmd (tools/bin) is first on PATH and the version cache is removed before each run, so
every run asks it. Each agent has a note and a small index that holds it (bench_qmd_index.py), so every
agent is judged (walked, its record or index read) and comes out warm.

Target: under 10 s for 10,000 agents (2-core dev machine); also printed: 1,000 agents, and the time per
agent.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

from bench.bench_qmd_index import write_index
from bench.common import MEMWARM, TOOLS_BIN, WORK_DIR, compile_package, median, peak_rss

COUNTS = (1_000, 10_000)
TARGET_S = 10.0


def build(count: int) -> Path:
    """`count` agents (workspaces, one note each, an index each) and the config; returns the state dir."""
    root = WORK_DIR / f"status-agents-{count}"
    state = root / "state"
    marker = root / ".complete"
    if not marker.exists():
        shutil.rmtree(root, ignore_errors=True)
        started = time.monotonic()
        for index in range(count):
            workspace = root / "ws" / f"agent-{index}"
            (workspace / "memory").mkdir(parents=True)
            (workspace / "MEMORY.md").write_text(f"# Agent {index}\n", encoding="utf-8")
            (workspace / "memory" / "2026-04-11.md").write_text(f"notes of agent {index}\n", encoding="utf-8")
            qmd = state / "agents" / f"agent-{index}" / "qmd"
            (qmd / "xdg-config" / "qmd").mkdir(parents=True)
            write_index(
                qmd / "xdg-cache" / "qmd" / "index.sqlite",
                [
                    (f"memory-root-agent-{index}", workspace, "MEMORY.md", ["MEMORY.md"]),
                    (f"memory-dir-agent-{index}", workspace / "memory", "**/*.md", ["2026-04-11.md"]),
                ],
            )
        print(f"  built {count} agents in {time.monotonic() - started:.0f} s", flush=True)
        marker.touch()
    config = {
        "memory": {"backend": "qmd"},
        "agents": {
            "list": [{"id": f"agent-{i}", "workspace": str(root / "ws" / f"agent-{i}")} for i in range(count)]
        },
    }
    (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    return state


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    compile_package()
    failed = False
    for count in COUNTS:
        state = build(count)
        env = {**os.environ, "OPENCLAW_STATE_DIR": str(state), "PATH": f"{TOOLS_BIN}:/usr/bin:/bin"}
        env["HOME"] = str(state.parent / "home")
        samples = []
        for _ in range(args.runs):
            shutil.rmtree(state / "memwarm", ignore_errors=True)  # no version cache: qmd is asked
            seconds, mib, code = peak_rss([MEMWARM, "status", "--format", "plain", "-q"], env)
            samples.append((seconds, mib, code))
        seconds = median([s for s, _, _ in samples])
        codes = {c for _, _, c in samples}
        line = (
            f"status, {count:6,} agents: median {seconds:5.2f} s ({seconds / count * 1000:.2f} ms per agent)"
        )
        print(f"{line}, peak {max(m for _, m, _ in samples):.0f} MiB, exit {sorted(codes)}")
        if count == 10_000:
            ok = seconds < TARGET_S and codes == {0}
            failed |= not ok
            print(f"{'PASS' if ok else 'MISS'}  status on 10,000 agents under {TARGET_S:g} s, all warm")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
