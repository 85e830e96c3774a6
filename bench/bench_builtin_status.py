"""Benchmark `memwarm status` on the builtin index of OpenClaw 2026.9.6: 10 agents x 10,000 notes, all
warm (issue 30). Not part of `make test`: `make bench-builtin` (installs what `make interop` does).

The index is the release's own: `openclaw memory index` of openclaw@2026.9.6 (`make interop` installs it
and Node 24 into tools/) builds agent-0's once, keyword-only (`memory.search.provider: "none"`). The ten
workspaces hold the same notes with the same mtimes, and the index stores paths relative to the
workspace with each file's hash, mtime and size, so agent-0's database is a right, warm index for each
of the others too: it is copied to them, with the one row naming its agent changed (the release's own
`memory status` must then call all ten clean: checked once, when built). Each step is cached under
build/bench-builtin-status/ (the cold 10,000-note build took 775 s here, at load 14); delete it to
rebuild.

Reported: CPU seconds (user + system, from wait4: memwarm and the workers it forks) of one `status` run
over the ten agents, and per agent; the median of RUNS runs after one warm-up. Target: well under 1 CPU s
per agent.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench.common import MEMWARM, REPO_ROOT, compile_package, median

AGENTS = 10
NOTES = 10_000
RUNS = 5
TARGET_CPU_PER_AGENT_S = 1.0
ROOT = REPO_ROOT / "build" / "bench-builtin-status"
NODE24_BIN = REPO_ROOT / "tools" / "node24" / "node_modules" / ".bin"
OPENCLAW_ENTRY = REPO_ROOT / "tools" / "openclaw-2026.9.6" / "node_modules" / "openclaw" / "openclaw.mjs"
NOTE_MTIME_S = 1_796_000_000  # the same for every note of every workspace
DB = Path("agents") / "{agent}" / "agent" / "openclaw-agent.sqlite"


def _note(number: int) -> tuple[str, str]:
    day = f"2026-{1 + number % 12:02d}-{1 + number % 28:02d}"
    text = (
        f"# Note {number}\n" + f"Work log {number}: the pelican importer, batch {number % 97}. " * 10 + "\n"
    )
    return f"{number // 1000:02d}/{day}-n{number}.md", text


def _env(bin_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENCLAW_", "MEMWARM_"))}
    env.update(
        HOME=str(ROOT / "home"),
        OPENCLAW_STATE_DIR=str(ROOT / "state"),
        OPENCLAW_CONFIG_PATH=str(ROOT / "openclaw.json"),
        PATH=f"{bin_dir}{os.pathsep}{NODE24_BIN}{os.pathsep}/usr/local/bin:/usr/bin:/bin",
        NO_COLOR="1",
    )
    return env


def _write_workspaces(bin_dir: Path) -> None:
    shutil.rmtree(ROOT, ignore_errors=True)
    for directory in (bin_dir, ROOT / "home", ROOT / "state"):
        directory.mkdir(parents=True)
    (bin_dir / "openclaw").symlink_to(OPENCLAW_ENTRY)
    started = time.monotonic()
    for agent in range(AGENTS):
        workspace = ROOT / f"ws-{agent}"
        files = [("MEMORY.md", "# Memory\nLong-term facts.\n"), *(_note(n) for n in range(NOTES))]
        for name, text in files:
            path = workspace / ("memory" if name != "MEMORY.md" else "") / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            os.utime(path, (NOTE_MTIME_S, NOTE_MTIME_S))
    config = {
        "agents": {
            "entries": {f"agent-{a}": {"workspace": str(ROOT / f"ws-{a}")} for a in range(AGENTS)},
            "ownership": "explicit",
        },
        "memory": {"search": {"provider": "none"}},
    }
    (ROOT / "openclaw.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    print(f"  wrote {AGENTS} x {NOTES + 1} files in {time.monotonic() - started:.0f} s", flush=True)


def _copy_index(agent: str) -> None:
    """agent-0's database for `agent`: the database names the agent it belongs to (schema_meta.agent_id,
    checked by the release on open), the only row that differs; the WAL was empty, so the main file is
    the whole index."""
    import sqlite3

    source = ROOT / "state" / str(DB).format(agent="agent-0")
    target = ROOT / "state" / str(DB).format(agent=agent)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(source, target)
    db = sqlite3.connect(target, isolation_level=None)
    try:
        db.execute("UPDATE schema_meta SET agent_id = ?", (agent,))
    finally:
        db.close()


def build() -> dict[str, str]:
    """The workspaces, config and indexes, each step cached; the environment both programs run with."""
    if not OPENCLAW_ENTRY.is_file():
        raise SystemExit(f"{OPENCLAW_ENTRY} is missing: run `make interop` (Node 24 and openclaw@2026.9.6)")
    bin_dir = ROOT / "bin"
    env = _env(bin_dir)
    files, indexed, complete = (
        ROOT / f".{step}-{AGENTS}x{NOTES}" for step in ("files", "indexed", "complete")
    )
    if complete.exists():
        return env
    if not files.exists():
        _write_workspaces(bin_dir)
        files.touch()
    openclaw = [str(NODE24_BIN / "node"), str(OPENCLAW_ENTRY)]
    if not indexed.exists():
        started = time.monotonic()
        subprocess.run([*openclaw, "memory", "index", "--agent", "agent-0"], env=env, check=True)
        print(f"  openclaw memory index (agent-0, cold): {time.monotonic() - started:.0f} s", flush=True)
        indexed.touch()
    for agent in range(1, AGENTS):
        _copy_index(f"agent-{agent}")
    status = subprocess.run(
        [*openclaw, "memory", "status", "--json"], env=env, check=True, capture_output=True, text=True
    ).stdout
    entries = json.loads(status[status.index("[") :])
    dirty = {entry["agentId"]: entry["status"]["dirty"] for entry in entries}
    if any(dirty.values()) or len(dirty) != AGENTS:
        raise SystemExit(f"openclaw memory status: not all warm: {dirty}")
    print(f"  openclaw memory status: all {AGENTS} agents clean", flush=True)
    complete.touch()
    return env


def cpu_run(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """(CPU seconds user+system of the process and its reaped children, wall seconds, exit code)."""
    import tempfile

    start = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=err)
        assert proc.stdout is not None
        out = proc.stdout.read()
        _, status, usage = os.wait4(proc.pid, 0)  # before Popen reaps it: wait4 gives its rusage
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
        err.seek(0)
        stderr = err.read().decode(errors="replace")
    report = json.loads(out)
    if {agent["status"] for agent in report["agents"]} != {"warm"}:
        raise SystemExit(f"status is not all warm: {report['summary']}\n{stderr}")
    return usage.ru_utime + usage.ru_stime, wall, proc.returncode


def main() -> None:
    compile_package()
    env = build()
    argv = [MEMWARM, "--config", str(ROOT / "openclaw.json"), "status", "--json"]
    cpu_run(argv, env)  # warm-up: the page cache, .pyc files
    cpu, wall = [], []
    for _ in range(RUNS):
        seconds, elapsed, _ = cpu_run(argv, env)
        cpu.append(seconds)
        wall.append(elapsed)
    per_agent = median(cpu) / AGENTS
    print(
        f"status, {AGENTS} agents x {NOTES:,} notes, all warm (builtin index, openclaw 2026.9.6): "
        f"CPU {median(cpu):.2f} s median of {RUNS} (min {min(cpu):.2f}, max {max(cpu):.2f}), "
        f"{per_agent:.3f} CPU s per agent; wall {median(wall):.2f} s"
    )
    verdict = "within" if per_agent < TARGET_CPU_PER_AGENT_S else "OVER"
    print(f"  target: under {TARGET_CPU_PER_AGENT_S:.0f} CPU s per agent: {verdict}")
    sys.exit(0 if per_agent < TARGET_CPU_PER_AGENT_S else 1)


if __name__ == "__main__":
    main()
