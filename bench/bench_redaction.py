"""The session export's redaction and memory on hostile and large input.

1. Seconds per MB of `redact_sensitive_text` (the release's redaction, as the export calls it on each
   message text) on 1, 4, 16 and 64 MB of the input shapes that make backtracking regexes quadratic:
   PEM header lines, long base64 runs after `;base64,`, form bodies (a value run of `=a`, then `&`), and
   repeated `KEY=value` assignments. Flat from 1 to 64 MB is linear time; the former redaction took 34 s
   on 100 KB of PEM headers and about 170 s on 1 MB.
2. Peak RSS of a child process exporting a 200 MB transcript (100,000 messages of about 2 KB, a few
   secrets among them) and one transcript holding a single 50 MB line (over the 16 MiB record cap: it is
   skipped unread), read from the child's own `/proc/self/status` (VmHWM) after the pass (`ru_maxrss`
   would count the parent's pages the child shared before its exec).

`python -m bench.bench_redaction [--quick]` (`--quick`: 1 and 4 MB only, 20 MB transcript).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from bench.common import REPO_ROOT, WORK_DIR, median

SHAPES = {
    "PEM headers": "-----BEGIN RSA PRIVATE KEY----- ",
    "base64 runs": ";base64,"
    + "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0123456789+/" * 20
    + "=gAAAA"
    + "A" * 30
    + " ",
    "form bodies": "=a",
    "KEY=value": "API_KEY=value1234567890abcdefgh password=hunter2 ",
}


def _hostile(unit: str, size: int) -> str:
    text = (unit * (size // len(unit) + 1))[:size]
    return "token " + text + "&" if unit == "=a" else text


def redaction_per_mb(sizes_mb: list[int]) -> dict[str, dict[int, float]]:
    from memwarm_cli.backends.sessions.redaction.redact import redact_sensitive_text

    results: dict[str, dict[int, float]] = {}
    for name, unit in SHAPES.items():
        results[name] = {}
        for size_mb in sizes_mb:
            text = _hostile(unit, size_mb * 1_000_000)
            runs = 3 if size_mb <= 4 else 1
            timings = []
            for _ in range(runs):
                start = time.perf_counter()
                redact_sensitive_text(text)
                timings.append(time.perf_counter() - start)
            results[name][size_mb] = median(timings) / size_mb
            print(f"  {name:12s} {size_mb:3d} MB: {results[name][size_mb]:.2f} s/MB", flush=True)
    return results


_CHILD = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path
    from memwarm_cli.backends.sessions.session_export import apply_session_export, plan_session_export
    sessions, export = Path(sys.argv[1]), Path(sys.argv[2])
    start = time.perf_counter()
    plan = plan_session_export(sessions, export, retention_days=None, now_ms=0, agent_qmd_dir=None)
    result = apply_session_export(plan)
    elapsed = time.perf_counter() - start
    peak_kb = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
    size = sum(f.stat().st_size for f in export.iterdir())
    print(json.dumps({"peakMiB": peak_kb / 1024, "seconds": elapsed, "exportBytes": size,
                      "skipped": [n.reason for n in plan.skipped_lines], "written": list(result.written)}))
    """
)


# The interpreter with the export's modules imported: what any export costs before its first record.
_BASELINE = (
    "import memwarm_cli.backends.sessions.session_export\n"
    "print(next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmHWM:')))"
)


def _record(text: str, role: str = "user") -> str:
    return json.dumps({"type": "message", "message": {"role": role, "content": text}}) + "\n"


def _export_rss(name: str, write: object) -> dict[str, object]:
    base = WORK_DIR / "redaction" / name
    shutil.rmtree(base, ignore_errors=True)
    sessions = base / "sessions"
    sessions.mkdir(parents=True)
    assert callable(write)
    write(sessions / "big.jsonl")
    baseline = subprocess.run(
        [sys.executable, "-c", _BASELINE], cwd=REPO_ROOT, capture_output=True, text=True, check=True
    )
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(sessions), str(base / "export")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    report: dict[str, object] = json.loads(done.stdout)
    report["interpreterMiB"] = int(baseline.stdout) / 1024
    report["transcriptMiB"] = (sessions / "big.jsonl").stat().st_size / 2**20
    shutil.rmtree(base, ignore_errors=True)
    return report


def _write_large(path: Path, total_mb: int) -> None:
    words = "the quick brown fox jumps over the lazy dog and asks where the walrus went " * 26
    with path.open("w", encoding="utf-8") as out:
        for n in range(total_mb * 500):
            if n % 1000 == 0:
                out.write(_record(f"my key is sk-live{n:020d}abcdefgh and API_KEY=secret{n:012d}value"))
            out.write(_record(words, "user" if n % 2 else "assistant"))


def _write_one_line(path: Path, size_mb: int) -> None:
    with path.open("w", encoding="utf-8") as out:
        out.write(_record("before"))
        out.write('{"type":"message","message":{"role":"user","content":"')
        chunk = "x" * 1_000_000
        for _ in range(size_mb):
            out.write(chunk)
        out.write('"}}\n')
        out.write(_record("after"))


def main() -> None:
    quick = "--quick" in sys.argv
    sizes = [1, 4] if quick else [1, 4, 16, 64]
    print(f"redaction, seconds per MB (median of 3 runs up to 4 MB, 1 run above), {os.cpu_count()} CPUs:")
    results = redaction_per_mb(sizes)
    for name, per_size in results.items():
        flat = max(per_size.values()) / min(per_size.values())
        print(f"  {name:12s} max/min over {sizes[0]}-{sizes[-1]} MB: {flat:.2f}")
    total = 20 if quick else 200
    print(f"export of a {total} MB transcript (peak RSS of the child):")
    large = _export_rss("large", lambda path: _write_large(path, total))
    print(f"  {json.dumps(large)}")
    print("export of a transcript with one 50 MB line (over the cap: skipped unread):")
    line = _export_rss("line", lambda path: _write_one_line(path, 50))
    print(f"  {json.dumps(line)}")
    print("export of a transcript with one 15 MB line (under the cap: read, cleaned and redacted):")
    under = _export_rss("under", lambda path: _write_one_line(path, 15))
    print(f"  {json.dumps(under)}")


if __name__ == "__main__":
    main()
