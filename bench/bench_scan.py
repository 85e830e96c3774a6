"""Benchmark `memwarm scan --all` on 100k notes against `memwarm prelude` on the same workspace, and its
peak memory on 100k and 1M notes.

`scan --all` lists every note in memory/, so unlike the prelude it must stat each of them and write a
row per note: its cost is linear in the notes, and the question is the cost per row. The workspace is
bench_prelude's (per day one daily note and 249 slugged ones, 14-day window).

Targets (2-core dev machine): 100k-note `scan --all --json` within 3x `prelude`; its peak RSS under
300 MB on 1M notes (`--million`: the rows are streamed, never all held as text). The table (as drawn for
a 120-column terminal, here into a pipe) and the plain view are reported next to it, each with its peak
RSS.

The 1M-note workspace has the same names as bench_prelude's would, but only the window's notes hold
text: `scan --all` never reads nor stats the others, and 1M notes of text would take 4 GB of disk.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from datetime import timedelta
from pathlib import Path

from bench.bench_prelude import AT, LAST_DAY, SLUGGED_PER_DAY, build_workspace, write_config
from bench.common import MEMWARM, WORK_DIR, compile_package, median

NOTES = 100_000
MILLION = 1_000_000
TARGET_RATIO = 3.0
TARGET_RSS_MB = 300
WINDOW_DAYS = 15  # the 14-day window and the UTC day beside it: the notes the scan reads


def run_measured(argv: Sequence[str], env: Mapping[str, str]) -> tuple[float, float]:
    """Wall-clock seconds and peak RSS (MB) of one run of argv, stdout to /dev/null; it must exit 0."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as devnull:
        proc = subprocess.Popen(argv, env=dict(env), stdout=devnull, stderr=subprocess.PIPE)
        assert proc.stderr is not None
        stderr = proc.stderr.read()
        _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark command failed ({proc.returncode}): {argv}\n{stderr.decode()}")
    return elapsed, usage.ru_maxrss / 1024  # kilobytes on Linux


def build_sparse_workspace(total: int) -> Path:
    """bench_prelude's names for `total` notes; text only in the window's days, the rest empty (cached)."""
    root = WORK_DIR / f"ws-{total}-sparse"
    memory = root / "memory"
    marker = root / ".complete"
    if marker.exists():
        return root
    memory.mkdir(parents=True, exist_ok=True)
    body = "- worked on the thing\n" * 20
    written, day, days = 0, LAST_DAY, 0
    while written < total:
        stamp = day.isoformat()
        for index in range(min(SLUGGED_PER_DAY, total - written)):
            name = f"{stamp}.md" if index == 0 else f"{stamp}-note-{index:04d}.md"
            text = f"# {name}\n{body}" if days < WINDOW_DAYS else ""
            with open(memory / name, "w", encoding="utf-8") as handle:
                handle.write(text)
            written += 1
        day -= timedelta(days=1)
        days += 1
    marker.touch()
    return root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--notes", type=int, default=NOTES)
    parser.add_argument(
        "--million", action="store_true", help="Also measure `scan --all --json` on 1M notes (builds them)."
    )
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
    peaks: dict[str, float] = dict.fromkeys(commands, 0.0)
    for round_index in range(args.runs + 1):
        for label, argv in commands.items():
            elapsed, rss = run_measured(argv, env)
            peaks[label] = max(peaks[label], rss)
            if round_index:  # the first round warms the caches
                samples[label].append(elapsed)
    times = {label: median(values) for label, values in samples.items()}
    for label, seconds in times.items():
        print(
            f"{label:<28} {seconds:>7.3f} s  {seconds / times['prelude']:>5.1f}x prelude  "
            f"{seconds / args.notes * 1e6:>6.2f} us/note  peak RSS {peaks[label]:>6.1f} MB"
        )
    ratio = times["scan --all --json"] / times["prelude"]
    label = f"{args.notes} notes: scan --all --json within {TARGET_RATIO:g}x prelude ({ratio:.1f}x)"
    verdicts = [(label, ratio <= TARGET_RATIO)]
    if args.million:
        sparse = build_sparse_workspace(MILLION)
        argv = [*base, "scan", "--all", "--json", "--workspace", str(sparse), "--at", AT]
        run_measured(argv, env)  # warms the directory cache
        runs = [run_measured(argv, env) for _ in range(max(1, args.runs // 2))]
        seconds = median([elapsed for elapsed, _ in runs])
        peak = max(rss for _, rss in runs)
        print(f"{'1M notes: scan --all --json':<28} {seconds:>7.3f} s  peak RSS {peak:>6.1f} MB")
        label = f"1M notes: scan --all --json under {TARGET_RSS_MB} MB ({peak:.0f} MB)"
        verdicts.append((label, peak < TARGET_RSS_MB))
    for label, ok in verdicts:
        print(f"{'PASS' if ok else 'MISS'}  {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
