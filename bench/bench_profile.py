"""Benchmark what choosing the run's OpenClaw release costs (memwarm_cli/profiles/choice.py).

Two measures:
- in process: `resolve_openclaw` per call, for each way the release is found (the flag; nothing
  installed, so down to the config's shape; a 64 KiB wrapper of slashes, which is no openclaw; an npm
  global link; the official installer's wrapper; the released 2026.9.6 package through a linked bin,
  when `make interop` has installed it in tools/);
- whole processes: `memwarm prelude` on the sample workspace with no `openclaw` on PATH, with a fake npm
  install on PATH (found and read at every start), and with `--openclaw 2026.9.6` (no search), timed in
  alternation.

Target: the detection adds well under 100 ms to a fast command; the in-process figures are in
microseconds. Layouts are real files in bench/.work/profile (package.json, dist/build-info.json,
openclaw.mjs, a bin link or wrapper); Node is never started.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from bench.common import MEMWARM, REPO_ROOT, WORK_DIR, compile_package, median

AT = "2026-11-28T09:30:00Z"
BASE = [MEMWARM, "--config", "sample_workspace/openclaw.json5", "prelude", "--at", AT]
REAL_96 = REPO_ROOT / "tools" / "openclaw-2026.9.6" / "node_modules" / "openclaw"  # `make interop`
TARGET_MS = 100.0


def _package(root: Path, version: str) -> Path:
    package = root / "lib" / "node_modules" / "openclaw"
    (package / "dist").mkdir(parents=True)
    (package / "package.json").write_text(
        json.dumps({"name": "openclaw", "version": version, "engines": {"node": ">=24.16.0 <25 || >=26.1.0"}})
    )
    (package / "dist" / "build-info.json").write_text(json.dumps({"version": version, "commit": "0" * 40}))
    (package / "openclaw.mjs").write_text("#!/usr/bin/env node\n")
    (package / "openclaw.mjs").chmod(0o755)
    (package / "dist" / "entry.js").write_text("// entry\n")
    return package


def layouts(work: Path) -> dict[str, str]:
    """name -> a PATH on which `openclaw` is that layout (a few unrelated directories first)."""
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    decoys = [str(work / f"empty{i}") for i in range(4)]
    for decoy in decoys:
        os.mkdir(decoy)
    npm = work / "npm"
    _package(npm, "2026.9.6")
    (npm / "bin").mkdir()
    os.symlink("../lib/node_modules/openclaw/openclaw.mjs", npm / "bin" / "openclaw")
    installer = work / "installer"
    package = _package(installer / "tools" / "node-v24", "2026.9.6")
    (installer / "bin").mkdir()
    wrapper = installer / "bin" / "openclaw"
    wrapper.write_text(
        f'#!/usr/bin/env bash\nset -euo pipefail\nexec "/x/node" "{package}/dist/entry.js" "$@"\n'
    )
    wrapper.chmod(0o755)
    # A 64 KiB "wrapper" of slashes (issue 31, class 3): a quadratic read of it stalled every command
    # for over a minute; the linear scan reads it like any other wrapper.
    slashes = work / "slashes"
    slashes.mkdir()
    (slashes / "openclaw").write_text("#!/bin/sh\nexec node " + "/" * (64 * 1024 - 64) + "\n")
    (slashes / "openclaw").chmod(0o755)
    paths = {
        "64 KiB wrapper of slashes": os.pathsep.join([*decoys, str(slashes)]),
        "nothing installed": os.pathsep.join(decoys),
        "npm global link": os.pathsep.join([*decoys, str(npm / "bin")]),
        "installer wrapper": os.pathsep.join([*decoys, str(installer / "bin")]),
    }
    if REAL_96.is_dir():
        real = work / "real"
        real.mkdir()
        os.symlink(REAL_96 / "openclaw.mjs", real / "openclaw")
        paths["released 2026.9.6 (linked)"] = os.pathsep.join([*decoys, str(real)])
    return paths


def _per_call_us(call: Callable[[], object], calls: int) -> float:
    call()
    start = time.perf_counter()
    for _ in range(calls):
        call()
    return (time.perf_counter() - start) / calls * 1e6


def in_process(paths: dict[str, str], calls: int) -> None:
    from memwarm_cli.profiles.choice import resolve_openclaw

    cfg = {"agents": {"list": [{"id": "main"}]}}
    print(f"resolve_openclaw, in process (mean of {calls} calls):")
    flag = _per_call_us(lambda: resolve_openclaw("2026.9.6", {"PATH": paths["npm global link"]}, cfg), calls)
    print(f"  {'--openclaw 2026.9.6':<30} {flag:>9.1f} us")
    for name, path in paths.items():
        env = {"PATH": path}
        choice = resolve_openclaw(None, env, cfg)
        us = _per_call_us(lambda env=env: resolve_openclaw(None, env, cfg), calls)  # type: ignore[misc]
        print(f"  {name:<30} {us:>9.1f} us  -> {choice.profile.name} ({choice.source})")


def _once(argv: Sequence[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - start
    if proc.returncode != 0:
        raise SystemExit(f"benchmark command failed ({proc.returncode}): {argv}\n{proc.stderr.decode()}")
    return elapsed


def processes(paths: dict[str, str], runs: int) -> list[tuple[str, bool]]:
    base_env = {
        **os.environ,
        "TZ": "UTC",
        "MEMWARM_SAMPLE_DIR": str(REPO_ROOT / "sample_workspace"),
    }
    base_env.pop("MEMWARM_OPENCLAW", None)
    system = os.environ.get("PATH", os.defpath)
    variants = {
        "no openclaw on PATH": (BASE, paths["nothing installed"] + os.pathsep + system),
        "npm install on PATH": (BASE, paths["npm global link"] + os.pathsep + system),
        "--openclaw 2026.9.6": (
            [*BASE, "--openclaw", "2026.9.6"],
            paths["npm global link"] + os.pathsep + system,
        ),
    }
    envs = {name: {**base_env, "PATH": path} for name, (_, path) in variants.items()}
    for name, (argv, _) in variants.items():
        _once(argv, envs[name])  # warm-up
    timings: dict[str, list[float]] = {name: [] for name in variants}
    for _ in range(runs):
        for name, (argv, _) in variants.items():
            timings[name].append(_once(argv, envs[name]))
    print(f"memwarm prelude on sample_workspace/, median of {runs} alternating runs, wall clock:")
    medians = {name: median(values) for name, values in timings.items()}
    for name, value in medians.items():
        print(f"  {name:<24} {value * 1000:>8.1f} ms")
    added = (medians["npm install on PATH"] - medians["no openclaw on PATH"]) * 1000
    print(f"  detection adds {added:+.1f} ms to a prelude run")
    return [(f"installed-openclaw detection adds under {TARGET_MS:.0f} ms to prelude", added < TARGET_MS)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    compile_package()
    subprocess.run([sys.executable, "sample_workspace/stamp_mtimes.py"], cwd=REPO_ROOT, check=True)
    paths = layouts(WORK_DIR / "profile")
    in_process(paths, args.calls)
    verdicts = processes(paths, args.runs)
    for label, ok in verdicts:
        print(f"{'PASS' if ok else 'MISS'}  {label}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
