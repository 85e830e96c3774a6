"""Every golden case through the CLI (run in process), byte for byte (tests/golden/README.md), with
`--openclaw 2026.6.35`, the release the cases come from.

Per case: `prelude --json` for both actions (prelude, applyNew, applyReset), `prelude` as text (the exact
stdout bytes), and `scan --json`, whose included blocks joined as the prelude joins them must equal it
(tests/parity/prelude_runs.py; the 2026.9.6 set and the computed ones run the same checks).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.conftest import CliResult, run_memwarm, run_memwarm_process
from tests.parity.prelude_runs import (
    CaseRun,
    check_prelude_json,
    check_prelude_text,
    check_scan_blocks,
    run_case,
)
from tests.parity.workspace import load_cases

pytestmark = pytest.mark.golden("prelude 2026.6.35")

CASES = load_cases()


OPENCLAW = "2026.6.35"


def _run_case(case: dict[str, Any], runner: Callable[..., CliResult] = run_memwarm) -> CaseRun:
    return run_case(case, case["expected"], OPENCLAW, runner)


@pytest.fixture(scope="module", params=CASES, ids=[case["name"] for case in CASES])
def case_run(request: pytest.FixtureRequest) -> Iterator[CaseRun]:
    yield _run_case(request.param)


def test_there_are_golden_cases() -> None:
    assert len(CASES) >= 100


def test_prelude_json_matches_golden(case_run: CaseRun) -> None:
    check_prelude_json(case_run)


def test_prelude_text_is_exact_bytes(case_run: CaseRun) -> None:
    check_prelude_text(case_run)


def test_scan_included_blocks_join_to_the_prelude(case_run: CaseRun) -> None:
    check_scan_blocks(case_run)


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
