"""`make bench`: every benchmark, one after the other."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = [
    "bench.bench_startup",
    "bench.bench_prelude",
    "bench.bench_context",
    "bench.bench_scan",
    "bench.bench_init_backends",
    "bench.bench_scale",
    "bench.bench_status",
    "bench.bench_costs",
    "bench.bench_profile",
    "bench.bench_redaction",
    "bench.bench_export_timeout",
]

if __name__ == "__main__":
    status = 0
    for module in SCRIPTS:
        if not (ROOT / (module.replace(".", "/") + ".py")).exists():
            print(f"(skipping {module}: not present)")
            continue
        print(f"==> {module}", flush=True)
        status |= subprocess.call([sys.executable, "-m", module], cwd=ROOT)
    sys.exit(status)
