"""Every golden case through the CLI (run in process), byte for byte (tests/golden/README.md).

Per case: `prelude --json` for both actions (prelude, applyNew, applyReset), `prelude` as text (the exact
stdout bytes), and `scan --json`, whose included blocks joined as the prelude joins them must equal it.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.jsstring import to_well_formed
from memwarm_cli.startup.text import HEADER_LINES
from tests.conftest import CliResult, isolated_env, run_memwarm, run_memwarm_process
from tests.parity.workspace import build_case_workspace, load_cases

pytestmark = pytest.mark.golden("prelude 2026.6.35")

CASES = load_cases()


@dataclass
class CaseRun:
    case: dict[str, Any]
    new: dict[str, Any]
    reset: dict[str, Any]
    text: CliResult
    scan: dict[str, Any]


def _run_case(case: dict[str, Any], runner: Callable[..., CliResult] = run_memwarm) -> CaseRun:
    with tempfile.TemporaryDirectory(prefix="memwarm-parity-") as tmp:
        base = Path(os.path.realpath(tmp))
        case_dir = base / "case"
        case_dir.mkdir()
        workspace = build_case_workspace(case, case_dir)
        home = base / "home"
        home.mkdir()
        extra: dict[str, str] = {}
        global_args: list[str] = []
        if case["config"] is None:
            # No config at all: the default location (an empty state dir) has no file.
            state = base / "state"
            state.mkdir()
            extra["OPENCLAW_STATE_DIR"] = str(state)
        else:
            config_file = base / "openclaw.json"
            config_file.write_text(json.dumps(case["config"]), encoding="utf-8")
            global_args = ["--config", str(config_file)]
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
            json.loads(done["new"].stdout),
            json.loads(done["reset"].stdout),
            done["text"],
            json.loads(done["scan"].stdout),
        )


@pytest.fixture(scope="module", params=CASES, ids=[case["name"] for case in CASES])
def case_run(request: pytest.FixtureRequest) -> Iterator[CaseRun]:
    yield _run_case(request.param)


def test_there_are_golden_cases() -> None:
    assert len(CASES) >= 100


def test_prelude_json_matches_golden(case_run: CaseRun) -> None:
    expected = case_run.case["expected"]
    assert case_run.new["prelude"] == expected["prelude"], ascii(case_run.new["prelude"])
    assert case_run.reset["prelude"] == expected["prelude"]
    assert case_run.new["applied"] is expected["applyNew"]
    assert case_run.reset["applied"] is expected["applyReset"]
    assert (case_run.new["reason"] is None) is expected["applyNew"]


def test_prelude_text_is_exact_bytes(case_run: CaseRun) -> None:
    expected = case_run.case["expected"]
    stdout = case_run.text.stdout_bytes
    if not expected["applyNew"] or expected["prelude"] is None:
        assert stdout == b""
        assert case_run.text.stderr, "a skipped prelude says why on stderr"
    else:
        # Not a terminal: nothing added; a lone surrogate is written as U+FFFD, as Node writes it.
        assert stdout == to_well_formed(expected["prelude"]).encode("utf-8")


def test_scan_included_blocks_join_to_the_prelude(case_run: CaseRun) -> None:
    expected = case_run.case["expected"]["prelude"]
    scan = case_run.scan
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


# A few cases through the installed command too: exact bytes (a lone surrogate written as U+FFFD, emoji),
# the host-zone default, and both prelude routes' JSON, as a real process writes them.
_PROCESS_CASES = [
    "oc_v3b_surrogate_split_by_maxfilechars",
    "config_missing_uses_host_utc",
    "emoji_split_by_total_budget",
]


@pytest.mark.parametrize("name", _PROCESS_CASES)
def test_a_process_gives_the_same_as_the_in_process_run(name: str) -> None:
    (case,) = [case for case in CASES if case["name"] == name]
    runs = [_run_case(case), _run_case(case, run_memwarm_process)]
    # Each run has its own temporary directory; only its name may differ.
    seen = [re.sub(r"memwarm-parity-[^/]+", "<tmp>", repr(run)) for run in runs]
    assert seen[0] == seen[1]
