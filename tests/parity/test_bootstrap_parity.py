"""Every bootstrap golden case through the CLI (run in process), byte for byte (tests/golden/bootstrap/),
with `--openclaw 2026.6.35`, the release the cases come from (tests/parity/bootstrap_runs.py).

One `context --json` per case carries every expected key; a handful of cases also go through the text
view, whose stdout must be exactly the blocks. The fixed roots are shared by every test process on the
machine: the modules that build them run in one pytest-xdist worker (their xdist_group).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.parity.bootstrap_cases import case_roots_locked, load_bootstrap_cases
from tests.parity.bootstrap_runs import (
    EXPECTED_KEYS,
    BootstrapRuns,
    check_key,
    check_text_view,
    run_bootstrap_cases,
)

pytestmark = [pytest.mark.xdist_group("bootstrap-case-roots"), pytest.mark.golden("bootstrap 2026.6.35")]

CASES = load_bootstrap_cases()
OPENCLAW = "2026.6.35"
TEXT_CASES = frozenset(
    {
        "basic_all_present",  # both blocks
        "heartbeat_only_dynamic_block_heading",  # only the dynamic block, headed "# Project Context"
        "surrogates_at_head_and_tail_cuts",  # lone surrogates are written as U+FFFD
        "context_injection_never",  # nothing at all
        "unicode_workspace_path_counts_utf16",
        "agents_policy_digest",
        "total_budget_missing_markers_clamped",
    }
)


@pytest.fixture(scope="module")
def case_runs() -> Iterator[BootstrapRuns]:
    expected = {case["name"]: case["expected"] for case in CASES}
    with run_bootstrap_cases(CASES, {OPENCLAW: (expected, OPENCLAW)}, TEXT_CASES) as runs:
        yield runs[OPENCLAW]


def test_there_are_bootstrap_cases() -> None:
    assert len(CASES) >= 70


def test_case_roots_are_removed(case_runs: BootstrapRuns) -> None:
    with case_roots_locked():  # not while another test process has its cases built
        assert not any(Path(case["root"]).exists() for case in CASES)


@pytest.mark.parametrize("name", [case["name"] for case in CASES])
@pytest.mark.parametrize("key", EXPECTED_KEYS)
def test_json_matches_golden(case_runs: BootstrapRuns, name: str, key: str) -> None:
    check_key(case_runs, name, key, case_runs.expected[name][key])


@pytest.mark.parametrize("name", sorted(TEXT_CASES))
def test_text_view_is_the_exact_blocks(case_runs: BootstrapRuns, name: str) -> None:
    check_text_view(case_runs, name, case_runs.expected[name])
