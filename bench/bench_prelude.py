"""Benchmark `memwarm prelude` on large memory/ directories against a floor.

The floor is a bare `python -c` that lists memory/ once: the least any implementation must pay. memwarm
must list the directory once (not once per date stamp) and stat only the window's slugged candidates, so
its cost grows with the number of entries, not entries x days.

Targets (2-core dev machine): 100k notes with dailyMemoryDays 14 within 3x the floor and under 0.35 s;
a small workspace under 0.25 s.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from datetime import date, timedelta
from pathlib import Path

from bench.common import MEMWARM, REPO_ROOT, WORK_DIR, compile_package, median, time_process

SIZES = (1_000, 10_000, 100_000)
SLUGGED_PER_DAY = 250
LAST_DAY = date(2026, 4, 11)
AT = "2026-04-11T18:00:00Z"


def build_workspace(total: int) -> Path:
    """memory/ with `total` notes: per day one daily note and SLUGGED_PER_DAY - 1 slugged ones (cached)."""
    root = WORK_DIR / f"ws-{total}"
    memory = root / "memory"
    marker = root / ".complete"
    if marker.exists():
        return root
    memory.mkdir(parents=True, exist_ok=True)
    written, day = 0, LAST_DAY
    body = "- worked on the thing\n" * 20
    while written < total:
        stamp = day.isoformat()
        for index in range(min(SLUGGED_PER_DAY, total - written)):
            name = f"{stamp}.md" if index == 0 else f"{stamp}-note-{index:04d}.md"
            (memory / name).write_text(f"# {name}\n{body}", encoding="utf-8")
            written += 1
        day -= timedelta(days=1)
    marker.touch()
    return root


def write_config(days: int) -> Path:
    path = WORK_DIR / f"openclaw-days{days}.json"
    config = {
        "agents": {
            "defaults": {"userTimezone": "America/Chicago", "startupContext": {"dailyMemoryDays": days}}
        }
    }
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    WORK_DIR.mkdir(parents=True, exist_ok=True)
    compile_package()
    # The sample config names its workspaces through ${MEMWARM_SAMPLE_DIR} (as `make demo` sets it).
    env = {**os.environ, "TZ": "UTC", "MEMWARM_SAMPLE_DIR": str(REPO_ROOT / "sample_workspace")}
    config14 = write_config(14)
    print(f"memwarm prelude benchmark: median of {args.runs} runs, wall clock per whole process")
    print(f"{'notes':>8} {'floor (s)':>10} {'prelude (s)':>12} {'ratio':>6}")
    results: dict[int, tuple[float, float]] = {}
    for total in SIZES:
        workspace = build_workspace(total)
        floor = median(
            time_process(
                [sys.executable, "-c", f"import os; os.listdir({str(workspace / 'memory')!r})"], args.runs
            )
        )
        prelude = median(
            time_process(
                [MEMWARM, "--config", str(config14), "prelude", "--workspace", str(workspace), "--at", AT],
                args.runs,
                env=env,
            )
        )
        results[total] = (floor, prelude)
        print(f"{total:>8} {floor:>10.3f} {prelude:>12.3f} {prelude / floor:>6.2f}")
    sample = median(
        time_process(
            [
                MEMWARM,
                "--config",
                "sample_workspace/openclaw.json5",
                "prelude",
                "--at",
                "2026-11-28T09:30:00Z",
            ],
            args.runs,
            env=env,
            cwd=REPO_ROOT,
        )
    )
    print(f"small workspace (sample_workspace/): {sample:.3f} s")
    floor, prelude = results[100_000]
    verdicts = [
        ("100k notes, 14 days, within 3x floor", prelude <= 3 * floor),
        ("100k notes, 14 days, under 0.35 s", prelude < 0.35),
        ("small workspace under 0.25 s", sample < 0.25),
    ]
    for label, ok in verdicts:
        print(f"{'PASS' if ok else 'MISS'}  {label}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
