"""Benchmark `memwarm context` against `memwarm prelude` on the sample workspace, whole processes.

`context` does everything `prelude` does (one startup plan) plus the bootstrap plan: a listing of the
workspace, eight boundary reads, the state file, trimming and rendering. Target: its median wall time
within 1.2x of `prelude`'s, for the text output (a pipe) and for `--json`. The two commands are timed
in alternation, so a machine that slows down or speeds up during the run affects both alike.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Sequence

from bench.common import MEMWARM, REPO_ROOT, compile_package, median

AT = "2026-11-28T09:30:00Z"
BASE = [MEMWARM, "--config", "sample_workspace/openclaw.json5"]
TARGET_RATIO = 1.2


def _once(argv: Sequence[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"benchmark command failed ({proc.returncode}): {argv}\n{proc.stderr.decode()}")
    return elapsed


def paired_medians(
    first: Sequence[str], second: Sequence[str], runs: int, env: dict[str, str]
) -> tuple[float, float]:
    """Medians of `runs` alternating runs of each (after one untimed warm-up of each)."""
    _once(first, env)
    _once(second, env)
    a: list[float] = []
    b: list[float] = []
    for _ in range(runs):
        a.append(_once(first, env))
        b.append(_once(second, env))
    return median(a), median(b)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    compile_package()
    subprocess.run([sys.executable, "sample_workspace/stamp_mtimes.py"], cwd=REPO_ROOT, check=True)
    # The sample config names its workspaces through ${MEMWARM_SAMPLE_DIR} (as `make demo` sets it).
    env = {**os.environ, "TZ": "UTC", "MEMWARM_SAMPLE_DIR": str(REPO_ROOT / "sample_workspace")}
    print(
        f"memwarm context vs prelude on sample_workspace/: median of {args.runs} alternating runs, wall clock"
    )
    print(f"{'output':<8} {'prelude (s)':>12} {'context (s)':>12} {'ratio':>7}")
    verdicts = []
    for label, extra in (("text", []), ("json", ["--json"])):
        prelude, context = paired_medians(
            [*BASE, "prelude", "--at", AT, *extra], [*BASE, "context", "--at", AT, *extra], args.runs, env
        )
        ratio = context / prelude
        print(f"{label:<8} {prelude:>12.3f} {context:>12.3f} {ratio:>7.3f}")
        verdicts.append(
            (f"context --format {label} within {TARGET_RATIO}x of prelude", ratio <= TARGET_RATIO)
        )
    for label, ok in verdicts:
        print(f"{'PASS' if ok else 'MISS'}  {label}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
