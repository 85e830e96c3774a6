"""Costs the unit tests used to assert by wall clock, measured here instead (a test on a shared, loaded
machine cannot keep a millisecond bound): textsafe's import on every command's path, and the scan
table drawing 20,000 rows (rich.table took about 1.25 ms a row; memwarm's table a few us).

Each figure is the best of `--runs` (a cost, not a typical time) against its target; exit 1 when one
misses it.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time

from bench.common import REPO_ROOT, compile_package

IMPORT_TARGET_S = 0.05
TABLE_TARGET_S = 2.0
TABLE_ROWS = 20_000


def textsafe_import_seconds() -> float:
    """Seconds `import memwarm_cli.textsafe` takes in a fresh interpreter (timed inside it)."""
    code = "import time; t = time.perf_counter(); import memwarm_cli.textsafe; print(time.perf_counter() - t)"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    return float(done.stdout)


def table_seconds() -> float:
    """Seconds the scan table takes for TABLE_ROWS rows at 100 columns, drawn by the table tests' own
    helper (their columns and console), so this follows the table's interface with them."""
    from tests.cli.terminal.test_table import draw

    rows = [
        (
            [f"2026-01-{i % 28 + 1:02d}", f"2026-01-01-note-{i:05d}.md", str(i), "outside the date window"],
            "dim",
        )
        for i in range(TABLE_ROWS)
    ]
    start = time.perf_counter()
    lines = draw(100, rows)
    elapsed = time.perf_counter() - start
    if len(lines) != 5 + TABLE_ROWS:
        raise SystemExit(f"the table drew {len(lines)} lines for {TABLE_ROWS} rows")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    compile_package()
    results = [
        (
            "import memwarm_cli.textsafe",
            min(textsafe_import_seconds() for _ in range(args.runs)),
            IMPORT_TARGET_S,
        ),
        (f"scan table, {TABLE_ROWS} rows", min(table_seconds() for _ in range(args.runs)), TABLE_TARGET_S),
    ]
    print(f"costs once asserted by tests: best of {args.runs} runs, wall clock")
    missed = 0
    for label, seconds, target in results:
        verdict = "ok" if seconds < target else "MISSED"
        missed += verdict != "ok"
        print(f"{label:<32} {seconds:>9.4f} s  target < {target} s  {verdict}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
