"""Benchmark how soon `--timeout` and SIGTERM end an init-backends whose session export has a 15 MiB message.

One agent with `memory.qmd.sessions.enabled` and one transcript holding a single 15 MiB message (under the
16 MiB line cap: read, cleaned and redacted), no export cache, a fake qmd that answers at once (only the
export costs). Measured as whole processes, medians of `--runs`:
- `init-backends --timeout 3`: seconds from the start to the exit (issue 31, class 4: `--timeout 5` fired
  after 18.7 s, because the export check before the agent's steps did not count against it);
- SIGTERM sent 1.5 s after the start (inside the export check): seconds from the signal to the exit
  (it took 11 s).

Target: `--timeout 3` returns within a few seconds of its limit (under 6 s from the start on an idle
machine); SIGTERM ends the run within 2 s. The layout is cached under bench/.work/export-timeout.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from bench.common import MEMWARM, WORK_DIR, compile_package

MESSAGE_BYTES = 15 * 1024 * 1024
TIMEOUT_S = 3.0
TARGET_TIMEOUT_S = 6.0
TARGET_SIGNAL_S = 2.0
SIGNAL_AFTER_S = 1.5
FAKE_QMD = '#!/bin/sh\ncase "$1" in --version) echo "qmd 2.8.3";; esac\nexit 0\n'


def build(root: Path) -> dict[str, str]:
    """The state dir, workspace, transcript and fake qmd; returns the environment to run in."""
    state = root / "state"
    sessions = state / "agents" / "main" / "sessions"
    transcript = sessions / "big.jsonl"
    if not transcript.exists():
        sessions.mkdir(parents=True, exist_ok=True)
        words = "the quick brown fox jumps over the lazy dog token=abc123 path /home/user/notes.md "
        text = (words * (MESSAGE_BYTES // len(words) + 1))[:MESSAGE_BYTES]
        line = json.dumps({"type": "message", "message": {"role": "user", "content": text}}) + "\n"
        transcript.write_text(line, encoding="utf-8")
    workspace = root / "ws"
    (workspace / "memory").mkdir(parents=True, exist_ok=True)
    (workspace / "memory" / "2026-04-10.md").write_text("# Day\nA note.\n", encoding="utf-8")
    fake_bin = root / "bin"
    fake_bin.mkdir(exist_ok=True)
    (fake_bin / "qmd").write_text(FAKE_QMD, encoding="utf-8")
    (fake_bin / "qmd").chmod(0o755)
    config = {
        "memory": {"backend": "qmd", "qmd": {"sessions": {"enabled": True}}},
        "agents": {"list": [{"id": "main", "workspace": str(workspace)}]},
    }
    (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    env = dict(os.environ)
    env.update(
        OPENCLAW_STATE_DIR=str(state),
        PATH=f"{fake_bin}{os.pathsep}{env.get('PATH', '')}",
        XDG_CACHE_HOME=str(root / "cache"),
        HOME=str(root),
    )
    return env


def _reset(root: Path) -> None:
    """No export, cache or record from an earlier run: every run renders the transcript."""
    qmd_dir = root / "state" / "agents" / "main" / "qmd"
    for path in sorted(qmd_dir.rglob("*"), reverse=True) if qmd_dir.exists() else []:
        if path.is_dir() and not path.is_symlink():
            path.rmdir()
        else:
            path.unlink()


def timed_out_run(root: Path, env: dict[str, str]) -> tuple[float, int, float]:
    """Wall-clock seconds, exit code, and CPU seconds (wait4: what an idle machine's wall clock is near)."""
    _reset(root)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [MEMWARM, "init-backends", "--timeout", str(TIMEOUT_S), "-q"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - start, proc.returncode, usage.ru_utime + usage.ru_stime


def signalled_run(root: Path, env: dict[str, str]) -> tuple[float, int]:
    _reset(root)
    proc = subprocess.Popen(
        [MEMWARM, "init-backends", "-q"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    time.sleep(SIGNAL_AFTER_S)
    sent = time.perf_counter()
    proc.send_signal(signal.SIGTERM)
    code = proc.wait()
    return time.perf_counter() - sent, code


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    compile_package()
    root = WORK_DIR / "export-timeout"
    env = build(root)
    load = os.getloadavg()[0]
    timeouts = [timed_out_run(root, env) for _ in range(args.runs)]
    signals = [signalled_run(root, env) for _ in range(args.runs)]
    timeout_s = statistics.median(seconds for seconds, _, _ in timeouts)
    timeout_cpu = statistics.median(cpu for _, _, cpu in timeouts)
    signal_s = statistics.median(seconds for seconds, _ in signals)
    print(
        f"init-backends, one 15 MiB message, medians of {args.runs} (load average {load:.1f} at the start):"
    )
    codes = sorted({code for _, code, _ in timeouts}), sorted({code for _, code in signals})
    shown = f"{timeout_s:6.2f} s from the start, {timeout_cpu:.2f} s CPU"
    print(f"  --timeout {TIMEOUT_S:g}: {shown} (exit codes {codes[0]})")
    print(f"  SIGTERM after {SIGNAL_AFTER_S:g} s: {signal_s:6.2f} s to the exit (exit codes {codes[1]})")
    ok = timeout_s < TARGET_TIMEOUT_S and signal_s < TARGET_SIGNAL_S
    verdict = "PASS" if ok else "MISS"
    print(f"{verdict}  --timeout under {TARGET_TIMEOUT_S:g} s, SIGTERM under {TARGET_SIGNAL_S:g} s")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
