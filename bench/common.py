"""Helpers shared by the benchmarks: timing whole processes and reporting medians."""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
WORK_DIR = REPO_ROOT / "bench" / ".work"
MEMWARM = str(Path(sys.executable).with_name("memwarm"))


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
