"""Start-up cost side by side, in CPU time: what a small run pays beyond the interpreter, and the big
workspace against OpenClaw's own startup-context code under Node.

Every figure is the CPU time (user + system) that `os.wait4` reports for a whole process. On Linux that is
the process's own time plus that of every descendant it waited for (the kernel's RUSAGE_BOTH of the
zombie): `status`'s forked workers and any `qmd` it runs and reaps are counted, a detached grandchild
would not be (memwarm leaves none). CPU time, unlike wall time, hardly moves when the shared machine is
busy. The commands of a row run in alternation (one untimed round first), so a machine that slows down
affects both alike; each row gives medians, min and max, and the ratio of the medians.

Rows and targets (issue 33):
- `prelude` on 10 notes against `python -c pass` on the same interpreter: at most 2.5x;
- `status` on one warm qmd agent with 10 notes against `python -c pass`: at most 4x;
- `prelude` on 100,000 notes against OpenClaw's code (bench/openclaw_prelude.py): at most 0.3x;
- `context --json` against `prelude --json` on the same 100,000 notes: at most 1.25x.
Also shown: `prelude` on 10 notes against OpenClaw's code. Before timing, the prelude of each workspace
is checked byte for byte against OpenClaw's.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from collections.abc import Mapping, Sequence
from datetime import date, datetime, timedelta
from pathlib import Path

from bench.bench_prelude import build_workspace
from bench.common import MEMWARM, REPO_ROOT, TOOLS_BIN, WORK_DIR, compile_package, qmd_env
from bench.openclaw_prelude import write_driver, write_module

ROOT = WORK_DIR / "startup"
NODE = str(TOOLS_BIN / "node")
OPENCLAW_DIST = REPO_ROOT / "tools" / "openclaw" / "node_modules" / "openclaw" / "dist"
AT = "2026-04-11T18:00:00Z"
LAST_DAY = date(2026, 4, 11)
BIG = 100_000
PYTHON = sys.executable


def cpu_ms(argv: Sequence[str], env: Mapping[str, str], cwd: Path | None = None) -> float:
    """CPU milliseconds (user + system) of one whole run of argv and the children it reaped."""
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"benchmark command failed ({proc.returncode}): {list(argv)}\n{err.decode()}")
    return (usage.ru_utime + usage.ru_stime) * 1000


class Row:
    def __init__(self, label: str, argv: Sequence[str], env: Mapping[str, str]) -> None:
        self.label, self.argv, self.env, self.samples = label, list(argv), env, list[float]()

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    def summary(self) -> str:
        return f"{self.median:7.1f} ms (min {min(self.samples):6.1f}, max {max(self.samples):6.1f})"


def alternate(rows: Sequence[Row], runs: int) -> None:
    for row in rows:  # one untimed round: page cache, .pyc files
        cpu_ms(row.argv, row.env)
    for _ in range(runs):
        for row in rows:
            row.samples.append(cpu_ms(row.argv, row.env))


def small_workspace() -> Path:
    """memory/ with 10 notes, all in a two-day window: per day the daily note and four slugged ones,
    their mtimes fixed (the slugged ones are ordered newest first)."""
    workspace = ROOT / "ws-10"
    memory = workspace / "memory"
    shutil.rmtree(workspace, ignore_errors=True)
    memory.mkdir(parents=True)
    body = "- worked on the thing\n" * 8
    for offset in range(2):
        stamp = (LAST_DAY - timedelta(days=offset)).isoformat()
        for index in range(5):
            path = memory / (f"{stamp}.md" if index == 0 else f"{stamp}-note-{index}.md")
            path.write_text(f"# {path.name}\n{body}", encoding="utf-8")
            moment = 1_775_000_000 - offset * 86_400 + index * 60
            os.utime(path, (moment, moment))
    return workspace


def write_json(path: Path, value: object) -> Path:
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return path


def at_ms() -> int:
    return int(datetime.fromisoformat(AT.replace("Z", "+00:00")).timestamp() * 1000)


def same_prelude(env: Mapping[str, str], config: Path, workspace: Path, openclaw: Sequence[str]) -> None:
    """memwarm's prelude and OpenClaw's, byte for byte, or exit."""
    argv = [MEMWARM, "--config", str(config), "prelude", "--workspace", str(workspace), "--at", AT]
    ours = subprocess.run(argv, env=env, capture_output=True, check=True).stdout
    theirs = subprocess.run(openclaw, env=env, capture_output=True, check=True).stdout
    if ours != theirs or not ours:
        raise SystemExit(
            f"prelude differs from OpenClaw's on {workspace} ({len(ours)} vs {len(theirs)} bytes)"
        )
    print(f"  same prelude as OpenClaw's on {workspace.name}: {len(ours)} bytes")


def warm_status(workspace: Path) -> tuple[list[str], dict[str, str]]:
    """One qmd agent on the 10-note workspace, armed by init-backends with the real qmd; status's
    argv and environment."""
    state = ROOT / "state"
    state.mkdir(parents=True, exist_ok=True)
    write_json(
        state / "openclaw.json",
        {"memory": {"backend": "qmd"}, "agents": {"list": [{"id": "main", "workspace": str(workspace)}]}},
    )
    env = {**qmd_env(state, ROOT), "TZ": "UTC"}
    argv = [MEMWARM, "status", "--format", "plain"]
    # Every time, not only when status fails: a status stays "warm" after qmd is reinstalled (same
    # version, new mtimes) but asks `qmd --version` on every run until init-backends records it again.
    subprocess.run([MEMWARM, "init-backends", "-q"], env=env, check=True)
    return argv, env


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=21)
    args = parser.parse_args()
    compile_package()
    ROOT.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "TZ": "UTC"}
    config = write_json(ROOT / "openclaw.json", {"agents": {"defaults": {"userTimezone": "America/Chicago"}}})
    big_config = write_json(
        ROOT / "openclaw-days14.json",
        {
            "agents": {
                "defaults": {"userTimezone": "America/Chicago", "startupContext": {"dailyMemoryDays": 14}}
            }
        },
    )
    small = small_workspace()
    big = build_workspace(BIG)
    module = write_module(OPENCLAW_DIST, ROOT / "openclaw-startup-context.mjs")
    driver = write_driver(ROOT / "openclaw-prelude.mjs")

    def openclaw(workspace: Path, cfg: Path) -> list[str]:
        return [NODE, str(driver), module.as_uri(), str(workspace), str(cfg), str(at_ms())]

    def memwarm(cfg: Path, command: str, workspace: Path, *extra: str) -> list[str]:
        return [MEMWARM, "--config", str(cfg), command, "--workspace", str(workspace), "--at", AT, *extra]

    print(f"start-up in CPU time (wait4: user + sys), {args.runs} alternating runs per row, medians")
    with open("/proc/loadavg", encoding="ascii") as loadavg:
        print(f"  load average at the start: {' '.join(loadavg.read().split()[:3])}")
    same_prelude(env, config, small, openclaw(small, config))
    same_prelude(env, big_config, big, openclaw(big, big_config))
    status_argv, status_env = warm_status(small)
    pass_argv = [PYTHON, "-c", "pass"]
    comparisons = [
        (
            "prelude, 10 notes",
            Row("prelude", memwarm(config, "prelude", small), env),
            Row("python -c pass", pass_argv, env),
            2.5,
        ),
        (
            "status, one agent, 10 notes",
            Row("status", status_argv, status_env),
            Row("python -c pass", pass_argv, env),
            4.0,
        ),
        (
            "prelude, 10 notes, vs OpenClaw",
            Row("prelude", memwarm(config, "prelude", small), env),
            Row("OpenClaw (node)", openclaw(small, config), env),
            None,
        ),
        (
            f"prelude, {BIG:,} notes, vs OpenClaw",
            Row("prelude", memwarm(big_config, "prelude", big), env),
            Row("OpenClaw (node)", openclaw(big, big_config), env),
            0.3,
        ),
        (
            f"context --json vs prelude --json, {BIG:,} notes",
            Row("context --json", memwarm(big_config, "context", big, "--json"), env),
            Row("prelude --json", memwarm(big_config, "prelude", big, "--json"), env),
            1.25,
        ),
    ]
    missed = 0
    for title, ours, anchor, target in comparisons:
        alternate([ours, anchor], args.runs)
        ratio = ours.median / anchor.median
        verdict = "" if target is None else ("PASS" if ratio <= target else "MISS") + f" (target {target}x)"
        missed += verdict.startswith("MISS")
        print(f"{title}: {ratio:.2f}x {verdict}")
        print(f"  {ours.label:16} {ours.summary()}")
        print(f"  {anchor.label:16} {anchor.summary()}")
    with open("/proc/loadavg", encoding="ascii") as loadavg:
        print(f"  load average at the end: {' '.join(loadavg.read().split()[:3])}")
    return 1 if missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
