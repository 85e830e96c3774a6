"""Benchmark `memwarm status` and the no-change `init-backends` run on 8 agents x 12,500 notes
(100,000 files) with the real qmd (tools/bin), all warm.

Measures whole processes, medians of alternating runs:
- the floor: a bare `python -c` that walks the same memory directories and stats every file once (what
  any freshness check must at least do);
- `memwarm status --format plain` (every agent: exit 0, all warm);
- `memwarm init-backends -q` with nothing changed (every agent `fresh`);
- how both grow with files: each on 1, 2, 4 and 8 agents (12.5k to 100k files) against the floor on
  the same directories, and a least-squares line through the four sizes (fixed ms + ms per 1k files).

Also each command's peak resident set, with memwarm's record vouching for the index and with no record
(every collection merged with the index, as for an index OpenClaw built), and the no-record run's time.

Target: status and the no-change init-backends each within 1.5x the floor. The workspaces and the cold
qmd run (minutes: qmd indexes 100k notes) are cached under bench/.work/status; figures on a shared
machine are noisy, the lead measures on a quiet one.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench.common import (
    MEMWARM,
    WORK_DIR,
    build_agents,
    compile_package,
    median,
    peak_rss,
    qmd_env,
    time_process,
)

AGENTS = 8
NOTES = 12_500
TARGET = 1.5
ROOT = WORK_DIR / "status"
WORDS = ("alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet")

FLOOR = """
import os, sys
def walk(path):
    for entry in os.scandir(path):
        if entry.is_dir(follow_symlinks=False):
            walk(entry.path)
        else:
            entry.stat()
for root in sys.argv[1:]:
    walk(root)
"""


def _note(agent: int, note: int) -> tuple[str, str]:
    words = " ".join(WORDS[(note + i) % len(WORDS)] for i in range(12))
    name = f"2026-{note % 12 + 1:02d}-{note % 28 + 1:02d}-note-{note:05d}.md"
    return name, f"# Note {note}\n\n{words} agent{agent}n{note}\n"


def build(notes: int) -> Path:
    """ws-0..ws-7, each MEMORY.md and `notes` small notes in memory/ (cached), and the config."""
    return build_agents(ROOT, AGENTS, notes, _note)


def env_for(state: Path) -> dict[str, str]:
    return qmd_env(state, ROOT)


def warm_up(env: dict[str, str]) -> None:
    """The cold run, once: every agent armed (skipped when status already says all are warm)."""
    check = subprocess.run([MEMWARM, "status", "-q", "--format", "plain"], env=env, capture_output=True)
    if check.returncode == 0:
        return
    print(f"cold init-backends on {AGENTS} x {NOTES} notes (minutes, once)...", flush=True)
    started = time.monotonic()
    # qmd indexes a collection inside `collection add`: 12,500 notes can outlast the 30 s default.
    argv = [MEMWARM, "init-backends", "-q", "--timeout", "1800"]
    cold = subprocess.run(argv, env=env, capture_output=True, text=True)
    if cold.returncode != 0:
        raise SystemExit(f"cold init-backends failed ({cold.returncode}):\n{cold.stderr}")
    print(f"  cold run: {time.monotonic() - started:.1f} s", flush=True)


def timed(argv: Sequence[str], env: dict[str, str]) -> float:
    """One run's wall-clock seconds (the runs alternate between commands, so one at a time)."""
    return time_process(argv, 1, env=env, warmup=0)[0]


def _line(xs: Sequence[float], ys: Sequence[float]) -> tuple[float, float]:
    """Intercept and slope of the least-squares line through (xs, ys): fixed cost and cost per unit."""
    mean_x, mean_y = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True)) / sum(
        (x - mean_x) ** 2 for x in xs
    )
    return mean_y - slope * mean_x, slope


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--notes", type=int, default=NOTES, help="notes per agent (default 12500)")
    args = parser.parse_args(argv)
    compile_package()
    state = build(args.notes)
    env = env_for(state)
    warm_up(env)
    memories = [str(ROOT / f"ws-{a}" / "memory") for a in range(AGENTS)]
    commands = {
        "floor (walk + stat)": [sys.executable, "-c", FLOOR, *memories],
        "status": [MEMWARM, "status", "--format", "plain"],
        "init-backends (no change)": [MEMWARM, "init-backends", "-q"],
    }
    for command in commands.values():  # warm the page cache and the .pyc files
        timed(command, env)
    timings: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.runs):
        for name, command in commands.items():
            timings[name].append(timed(command, env))
    floor = median(timings["floor (walk + stat)"])
    failed = False
    files = AGENTS * (args.notes + 1)
    print(f"{AGENTS} agents x {args.notes} notes ({files} files), medians of {args.runs} runs:")
    for name, values in timings.items():
        ratio = median(values) / floor
        verdict = "" if name.startswith("floor") else (" ok" if ratio <= TARGET else f" OVER {TARGET}x")
        failed |= ratio > TARGET
        print(f"  {name:28} {median(values) * 1000:8.0f} ms  {ratio:5.2f}x floor{verdict}")
    print("growth with files: 1, 2, 4 and 8 agents (medians; each against the floor on the same files)")
    sizes = (1, 2, 4, 8)
    growth: dict[str, list[float]] = {"floor": [], "status": [], "init-backends": []}
    for count in sizes:
        selected = [arg for a in range(count) for arg in ("--agent", f"agent-{a}")]
        argvs = {
            "floor": [sys.executable, "-c", FLOOR, *memories[:count]],
            "status": [MEMWARM, "status", "--format", "plain", *selected],
            "init-backends": [MEMWARM, "init-backends", "-q", *selected],
        }
        samples: dict[str, list[float]] = {name: [] for name in argvs}
        for _ in range(args.runs):  # alternating, as above
            for name, argv_ in argvs.items():
                samples[name].append(timed(argv_, env))
        for name, values in samples.items():
            growth[name].append(median(values) * 1000)
        agent_files = count * (args.notes + 1)
        cells = "  ".join(
            f"{name} {growth[name][-1]:5.0f} ms ({growth[name][-1] / growth['floor'][-1]:.2f}x)"
            for name in ("status", "init-backends")
        )
        print(f"  {count} agent(s), {agent_files:6d} files: floor {growth['floor'][-1]:5.0f} ms  {cells}")
    thousands = [count * (args.notes + 1) / 1000 for count in sizes]
    for name, values in growth.items():
        fixed, per_k = _line(thousands, values)
        print(f"  {name:14} ~ {fixed:4.0f} ms + {per_k:5.2f} ms per 1k files (least squares, four sizes)")
    memory(state, env, files)
    return 1 if failed else 0


def memory(state: Path, env: dict[str, str], files: int) -> None:
    """Peak RSS and time of each command, vouched for by memwarm's record and judged from the index."""
    print(f"peak resident set on {files} files (largest process of the run), and wall clock:")
    status = [MEMWARM, "status", "--format", "plain"]
    init = [MEMWARM, "init-backends", "-q"]
    for name, argv in (("status", status), ("init-backends (no change)", init)):
        seconds, mib, _ = peak_rss(argv, env)
        print(f"  {name:28} record: {mib:6.1f} MiB {seconds * 1000:6.0f} ms")
    for name, argv in (("status", status), ("init-backends (no change)", init)):
        for record in state.glob("agents/*/qmd/xdg-cache/qmd/memwarm-fingerprint.json"):
            record.unlink()
        seconds, mib, code = peak_rss(argv, env)
        print(f"  {name:28} index:  {mib:6.1f} MiB {seconds * 1000:6.0f} ms (exit {code})")
    # init-backends just recorded what it found: the record vouches again for the next run.


if __name__ == "__main__":
    sys.exit(main())
