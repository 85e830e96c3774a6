"""`$include` fan-out: the total work of one config's includes is bounded, and the limit is named.

Upstream bounds each file (2 MiB) and the depth (10) but not the total, so ten small files that each
include the next ten times ask for 10^10 loads. memwarm counts every inclusion against a budget of files
and bytes, fails at the include that crosses it, and merges in linear time.
"""

from __future__ import annotations

import json
import resource
import subprocess
import time
from pathlib import Path

import pytest

from memwarm_cli.config.includes import MAX_INCLUDE_FILES, MAX_INCLUDE_TOTAL_BYTES, deep_merge
from memwarm_cli.exitcodes import ExitCode
from tests.conftest import MEMWARM, isolated_env

MEMORY_LIMIT = 1024 * 1024 * 1024  # address space: the old code needed 1.5 GB on this input


def write_fan_out(root: Path, files: int = 10, fan: int = 10) -> Path:
    """`f0` includes `f1` ten times, `f1` includes `f2` ten times, ...; about 48 KB in all."""
    filler = ", ".join(['"' + "x" * 40 + '"'] * 100)
    for i in range(files):
        if i + 1 < files:
            includes = ", ".join([f'"f{i + 1}.json5"'] * fan)
            text = f'{{"$include": [{includes}], k{i}: [{filler}]}}'
        else:
            text = f"{{leaf: [{filler}]}}"
        (root / f"f{i}.json5").write_text(text)
    return root / "f0.json5"


def run_limited(args: list[str], home: Path, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    return subprocess.run(
        [MEMWARM, *args],
        env=isolated_env(home),
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        preexec_fn=limit_memory,
    )


@pytest.fixture
def fan_out(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    cfg_dir = tmp_path / "cfg"
    cfg_dir.mkdir()
    return write_fan_out(cfg_dir)


def test_fan_out_fails_fast_naming_the_limit(fan_out: Path) -> None:
    home = fan_out.parent.parent / "home"
    started = time.monotonic()
    result = run_limited(["--config", str(fan_out), "config", "path"], home, timeout=120)
    assert result.returncode == ExitCode.CONFIG, result.stderr
    (line,) = result.stderr.splitlines()
    limit = f"more than {MAX_INCLUDE_TOTAL_BYTES // (1024 * 1024)} MiB read from $include files in total"
    assert line.startswith("memwarm: error: ") and f"Include limit exceeded: {limit}" in line
    took = time.monotonic() - started
    assert took < 60, (
        f"{took:.1f} s (bound sized for load 10 on 2 cores: about 4 s unloaded; 10^10 loads never end)"
    )


def test_fan_out_in_config_check_is_one_finding(fan_out: Path) -> None:
    home = fan_out.parent.parent / "home"
    result = run_limited(["--config", str(fan_out), "config", "check"], home)
    assert result.returncode == ExitCode.FINDINGS, result.stderr
    # (The files' own keys are no OpenClaw keys: those unknown keys are errors of their own.)
    errors = [
        line for line in result.stdout.splitlines() if ": error: " in line and "unknown key" not in line
    ]
    (error,) = errors
    assert "Include limit exceeded" in error and "Traceback" not in result.stderr


def test_past_the_depth_limit_each_failing_include_is_reported_once(tmp_path: Path) -> None:
    # 13 files, each including the next twice: 2^10 loads reach the depth limit, each failing twice.
    for i in range(13):
        includes = ", ".join([f'"f{i + 1}.json5"'] * 2)
        (tmp_path / f"f{i}.json5").write_text(f"{{$include: [{includes}], k{i}: 1}}" if i < 12 else "{}")
    (tmp_path / "home").mkdir()
    result = run_limited(["--config", str(tmp_path / "f0.json5"), "config", "check"], tmp_path / "home")
    errors = [
        line for line in result.stdout.splitlines() if ": error: " in line and "unknown key" not in line
    ]
    assert [e.split(": error: ")[1] for e in errors] == [
        "$include[0]: Maximum include depth (10) exceeded at: f11.json5",
        "$include[1]: Maximum include depth (10) exceeded at: f11.json5",
    ]


def test_file_count_limit(tmp_path: Path) -> None:
    (tmp_path / "tiny.json5").write_text("{a: [1]}")
    cfg = tmp_path / "openclaw.json5"
    cfg.write_text(json.dumps({"$include": ["tiny.json5"] * (MAX_INCLUDE_FILES + 1)}))
    (tmp_path / "home").mkdir()
    result = run_limited(["--config", str(cfg), "prelude"], tmp_path / "home")
    assert result.returncode == ExitCode.CONFIG
    (line,) = result.stderr.splitlines()
    assert f"more than {MAX_INCLUDE_FILES} $include files loaded in total" in line
    assert line.endswith("at: tiny.json5")


def test_deep_merge_updates_the_target_in_place() -> None:
    # Copying the accumulator at every merge made n inclusions of one list O(n^2) (3,000 took ~7 s).
    target: dict[str, object] = {"a": [1], "b": {"x": 1}}
    a_list = target["a"]
    merged, _ = deep_merge(target, None, {"a": [2], "b": {"y": 2}}, None)
    assert merged is target and target["a"] is a_list
    assert merged == {"a": [1, 2], "b": {"x": 1, "y": 2}}


def test_positions_survive_the_limit(tmp_path: Path) -> None:
    # Content merged before the limit keeps pointing at its file when later includes are cut off.
    from memwarm_cli.config.includes import IncludeError
    from memwarm_cli.config.loader import load_config

    (tmp_path / "first.json5").write_text("{agents: {defaults: {userTimezone: 'UTC'}}}")
    (tmp_path / "tiny.json5").write_text("{}")
    cfg = tmp_path / "openclaw.json5"
    cfg.write_text(json.dumps({"$include": ["first.json5"] + ["tiny.json5"] * (MAX_INCLUDE_FILES + 5)}))
    errors: list[IncludeError] = []
    loaded = load_config(str(cfg), {"HOME": str(tmp_path)}, track=True, include_errors=errors)
    assert [e.message.startswith("Include limit exceeded") for e in errors] == [True]
    assert loaded.positions is not None
    zone = loaded.positions.child("agents").child("defaults").child("userTimezone")  # type: ignore[union-attr]
    assert zone is not None and zone.loc.file == str(tmp_path / "first.json5")
