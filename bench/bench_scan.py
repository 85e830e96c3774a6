"""Benchmark `memwarm scan --all` on 100k notes against `memwarm prelude` on the same workspace.

`scan --all` lists every note in memory/, so unlike the prelude it must stat each of them and write a
row per note: its cost is linear in the notes, and the question is the cost per row. The workspace is
bench_prelude's (per day one daily note and 249 slugged ones, 14-day window).

Target (2-core dev machine): 100k-note `scan --all --json` within 3x `prelude`. The table (as drawn for
a 120-column terminal, here into a pipe) and the plain view are reported next to it.
"""

from __future__ import annotations

import argparse
import os
import sys

from bench.bench_prelude import AT, build_workspace, write_config
from bench.common import MEMWARM, WORK_DIR, compile_package, median, time_process

NOTES = 100_000
TARGET_RATIO = 3.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--notes", type=int, default=NOTES)
    args = parser.parse_args()
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    compile_package()
    workspace = build_workspace(args.notes)
    config = write_config(14)
    env = {**os.environ, "TZ": "UTC", "COLUMNS": "120"}
    base = [MEMWARM, "--config", str(config)]
    where = ["--workspace", str(workspace), "--at", AT]
    commands = {
        "prelude": [*base, "prelude", *where],
        "scan --all --json": [*base, "scan", "--all", "--json", *where],
        "scan --all --format plain": [*base, "scan", "--all", "--format", "plain", "-q", *where],
        "scan --all --format table": [*base, "scan", "--all", "--format", "table", *where],
        "scan --json (window only)": [*base, "scan", "--json", *where],
    }
    print(f"memwarm scan benchmark: {args.notes} notes, median of {args.runs} rounds, wall clock per process")
    # Rounds take every command in turn, so a machine that slows down mid-run slows all of them alike.
    samples: dict[str, list[float]] = {label: [] for label in commands}
    for round_index in range(args.runs + 1):
        for label, argv in commands.items():
            elapsed = time_process(argv, 1, env=env, warmup=0)[0]
            if round_index:  # the first round warms the caches
                samples[label].append(elapsed)
    times = {label: median(values) for label, values in samples.items()}
    for label, seconds in times.items():
        print(
            f"{label:<28} {seconds:>7.3f} s  {seconds / times['prelude']:>5.1f}x prelude  "
            f"{seconds / args.notes * 1e6:>6.2f} us/note"
        )
    ratio = times["scan --all --json"] / times["prelude"]
    ok = ratio <= TARGET_RATIO
    print(
        f"{'PASS' if ok else 'MISS'}  {args.notes} notes: scan --all --json within {TARGET_RATIO:g}x prelude "
        f"({ratio:.1f}x)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
