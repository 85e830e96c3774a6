"""One prelude golden case through the CLI (run in process) for one OpenClaw release, and the checks
every prelude set shares (tests/golden/README.md): `prelude --json` for both actions, `prelude` as text
(the exact stdout bytes), and `scan --json`, whose included blocks joined as the prelude joins them must
equal it. The release is named with `--openclaw`, so the run never depends on what is installed."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memwarm_cli.jsstring import to_well_formed
from memwarm_cli.startup.text import HEADER_LINES
from tests.conftest import CliResult, isolated_env, run_memwarm
from tests.parity.workspace import build_case_workspace


@dataclass
class CaseRun:
    case: dict[str, Any]  # the inputs (a case of tests/golden/cases)
    expected: dict[str, Any]  # prelude, applyNew, applyReset: the release's outputs
    new: dict[str, Any]
    reset: dict[str, Any]
    text: CliResult
    scan: dict[str, Any]


def run_case(
    case: dict[str, Any],
    expected: dict[str, Any],
    openclaw: str,
    runner: Callable[..., CliResult] = run_memwarm,
) -> CaseRun:
    with tempfile.TemporaryDirectory(prefix="memwarm-parity-") as tmp:
        base = Path(os.path.realpath(tmp))
        case_dir = base / "case"
        case_dir.mkdir()
        workspace = build_case_workspace(case, case_dir)
        home = base / "home"
        home.mkdir()
        extra: dict[str, str] = {}
        global_args = ["--openclaw", openclaw]
        if case["config"] is None:
            # No config at all: the default location (an empty state dir) has no file.
            state = base / "state"
            state.mkdir()
            extra["OPENCLAW_STATE_DIR"] = str(state)
        else:
            config_file = base / "openclaw.json"
            config_file.write_text(json.dumps(case["config"]), encoding="utf-8")
            global_args += ["--config", str(config_file)]
        env = isolated_env(home, extra)
        common = ["--workspace", str(workspace), "--at", str(case["nowMs"])]
        commands = {
            "new": [*global_args, "prelude", *common, "--action", "new", "--json"],
            "reset": [*global_args, "prelude", *common, "--action", "reset", "--json"],
            "text": [*global_args, "prelude", *common, "--action", "new"],
            "scan": [*global_args, "scan", *common, "--json"],
        }
        done = {key: runner(args, env) for key, args in commands.items()}
        for key, result in done.items():
            assert result.returncode == 0, (key, result.stderr)
        return CaseRun(
            case,
            expected,
            json.loads(done["new"].stdout),
            json.loads(done["reset"].stdout),
            done["text"],
            json.loads(done["scan"].stdout),
        )


def check_prelude_json(run: CaseRun) -> None:
    expected = run.expected
    assert run.new["prelude"] == expected["prelude"], ascii(run.new["prelude"])
    assert run.reset["prelude"] == expected["prelude"]
    assert run.new["applied"] is expected["applyNew"]
    assert run.reset["applied"] is expected["applyReset"]
    assert (run.new["reason"] is None) is expected["applyNew"]


def check_prelude_text(run: CaseRun) -> None:
    expected = run.expected
    stdout = run.text.stdout_bytes
    if not expected["applyNew"] or expected["prelude"] is None:
        assert stdout == b""
        assert run.text.stderr, "a skipped prelude says why on stderr"
    else:
        # Not a terminal: nothing added; a lone surrogate is written as U+FFFD, as Node writes it.
        assert stdout == to_well_formed(expected["prelude"]).encode("utf-8")


def check_scan_blocks(run: CaseRun) -> None:
    expected = run.expected["prelude"]
    scan = run.scan
    if expected is None:
        assert scan["prelude"]["loaded"] is False
        assert not any(f["block"] for f in scan["files"])
        return
    blocks = [f["block"] for f in scan["files"] if f["status"] in ("included", "truncated", "shrunk")]
    assert all(blocks)
    sections = blocks + (
        ["...[additional startup memory truncated]..."] if scan["prelude"]["markerEmitted"] else []
    )
    assert "\n".join([*HEADER_LINES, *sections]) == expected
    assert scan["budget"]["used"] == sum(f["chars"]["block"] for f in scan["files"] if f["block"])
