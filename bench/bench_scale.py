"""Benchmark memwarm on configs with thousands of agents and on a large YAML config.

Every per-agent lookup used to rescan the agent list, so 2,000 agents took 6-7.5 s for `config
show|check|path` and `scan --all-agents`; an 8 MB YAML config took over a minute. Each must now grow
linearly: the benchmark times each command at 1,000 and 10,000 agents (and 2,000, the size of the
report) and prints the growth, about 10x (less the fixed start-up) when linear, about 100x when
quadratic; the 2 MB and 8 MB YAML configs likewise.

Targets (2-core dev machine): `config check` on 10,000 agents under 2 s; every growth below 25x for
10x the agents and below 8x for 4x the YAML (quadratic work gives 100x and 16x; the margin is for file
system and machine noise, which dominate `scan`, whose cost is mostly stats of the agents' notes).
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from bench.common import MEMWARM, WORK_DIR, compile_package, median, time_process

AGENT_COUNTS = (1_000, 2_000, 10_000)
COMMANDS = (
    ("config check", ["config", "check"]),
    ("config path", ["config", "path"]),
    ("config show", ["config", "show"]),
    ("scan --all-agents", ["scan", "--all-agents", "--at", "2026-04-11T18:00:00Z"]),
)
YAML_SIZES_MB = (2, 8)
LINEAR_GROWTH_10X = 25.0
LINEAR_GROWTH_4X = 8.0
CHECK_10K_TARGET_S = 2.0


def scale_dir() -> Path:
    return WORK_DIR / "scale"


def workspaces(count: int) -> Path:
    """`count` agent workspaces, each with memory/ and one note (cached across runs)."""
    root = scale_dir() / "ws"
    marker = root / f".complete-{count}"
    if marker.exists():
        return root
    for index in range(count):
        memory = root / f"agent-{index}" / "memory"
        memory.mkdir(parents=True, exist_ok=True)
        note = memory / "2026-04-11.md"
        if not note.exists():
            note.write_text(f"notes of agent {index}\n", encoding="utf-8")
    marker.touch()
    return root


def agent_entry(index: int, root: Path) -> dict[str, object]:
    """A realistic entry: an id, a workspace; some with memory search settings of their own."""
    entry: dict[str, object] = {"id": f"agent-{index}", "workspace": str(root / f"agent-{index}")}
    if index % 3 == 0:
        entry["memorySearch"] = {"extraPaths": ["notes", f"docs/{index}"]}
    if index % 7 == 0:
        entry["memorySearch"] = {"enabled": False}
    return entry


def agents_config(count: int) -> Path:
    path = scale_dir() / f"agents-{count}.json"
    if path.exists():
        return path
    root = workspaces(count)
    config = {
        "agents": {
            "defaults": {
                "userTimezone": "Europe/Berlin",
                "startupContext": {"dailyMemoryDays": 2},
                "memorySearch": {"provider": "local"},
            },
            "list": [agent_entry(index, root) for index in range(count)],
        },
        "memory": {
            "backend": "qmd",
            "qmd": {"command": "qmd", "paths": [{"path": "notes", "name": "notes"}]},
        },
    }
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path


def yaml_config(megabytes: int) -> Path:
    """A YAML config of about `megabytes` MB: agents with block-style settings (cached)."""
    path = scale_dir() / f"config-{megabytes}mb.yaml"
    if path.exists():
        return path
    lines = [
        "agents:",
        "  defaults:",
        "    userTimezone: Europe/Berlin",
        "    workspace: /nonexistent/memwarm-bench",
        "  list:",
    ]
    size, index = 0, 0
    while size < megabytes * 1024 * 1024:
        block = [
            f"    - id: agent-{index}",
            f"      workspace: /nonexistent/memwarm-bench/agent-{index}",
            f'      name: "Agent number {index}"',
            "      memorySearch:",
            f"        enabled: {'true' if index % 2 else 'false'}",
            f"        extraPaths: [notes, docs/{index}]",
        ]
        lines += block
        size += sum(len(line) + 1 for line in block)
        index += 1
    lines += ["memory:", "  backend: qmd"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def timed(config: Path, command: list[str], runs: int, env: dict[str, str]) -> float:
    return median(time_process([MEMWARM, "--config", str(config), *command], runs, env=env, warmup=0))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    scale_dir().mkdir(parents=True, exist_ok=True)
    compile_package()
    # A PATH without qmd: `config check` then reports it once, the same on every machine.
    env = {**os.environ, "TZ": "UTC", "PATH": "/usr/bin:/bin", "HOME": str(scale_dir() / "home")}
    print(f"memwarm scale benchmark: median of {args.runs} runs, wall clock per whole process")
    print(
        f"{'command':<20}"
        + "".join(f"{f'{n:,} agents':>15}" for n in AGENT_COUNTS)
        + f"{'growth 1k->10k':>16}"
    )
    verdicts: list[tuple[str, bool]] = []
    for label, command in COMMANDS:
        seconds = {count: timed(agents_config(count), command, args.runs, env) for count in AGENT_COUNTS}
        growth = seconds[10_000] / seconds[1_000]
        cells = "".join(f"{seconds[count]:>13.2f} s" for count in AGENT_COUNTS)
        print(f"{label:<20}{cells}{growth:>15.1f}x")
        verdicts.append(
            (f"{label}: 10x the agents, under {LINEAR_GROWTH_10X:g}x the time", growth < LINEAR_GROWTH_10X)
        )
        if label == "config check":
            verdicts.append(
                (
                    f"config check, 10,000 agents, under {CHECK_10K_TARGET_S:g} s",
                    seconds[10_000] < CHECK_10K_TARGET_S,
                )
            )
    print()
    yaml_seconds: dict[int, float] = {}
    for megabytes in YAML_SIZES_MB:
        config = yaml_config(megabytes)
        size_mb = config.stat().st_size / (1024 * 1024)
        yaml_seconds[megabytes] = timed(config, ["config", "check"], args.runs, env)
        print(f"config check, {size_mb:.1f} MB YAML config: {yaml_seconds[megabytes]:.2f} s")
    growth = yaml_seconds[8] / yaml_seconds[2]
    print(f"growth 2 MB -> 8 MB: {growth:.1f}x")
    verdicts.append(
        (f"YAML config: 4x the size, under {LINEAR_GROWTH_4X:g}x the time", growth < LINEAR_GROWTH_4X)
    )
    print()
    for label, ok in verdicts:
        print(f"{'PASS' if ok else 'MISS'}  {label}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
