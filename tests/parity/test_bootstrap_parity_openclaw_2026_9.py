"""Every 2026.9.6 bootstrap golden case (tests/golden/openclaw-2026.9/bootstrap) through the CLI with
`--openclaw 2026.9.6`, byte for byte; and the 7 cases 2026.9.6 refuses (`excluded.json`: their workspaces
hold legacy setup state) give the release's error, exit 1."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.conftest import GOLDEN_DIR
from tests.parity.bootstrap_cases import load_bootstrap_cases
from tests.parity.bootstrap_runs import (
    EXPECTED_KEYS,
    BootstrapRuns,
    check_error,
    check_key,
    check_text_view,
    run_bootstrap_cases,
)
from tests.parity.case_files import load_json_cases

pytestmark = [pytest.mark.xdist_group("bootstrap-case-roots"), pytest.mark.golden("bootstrap 2026.9.6")]

SET_DIR = GOLDEN_DIR / "openclaw-2026.9" / "bootstrap"
OPENCLAW = "2026.9.6"
CASES = load_json_cases(SET_DIR / "cases")
EXCLUDED = json.loads((SET_DIR / "excluded.json").read_text(encoding="utf-8"))
# The excluded cases' inputs are those of the 2026.6.35 cases of the same name.
INPUTS = {case["name"]: case for case in load_bootstrap_cases()}
ERROR_CASES = [INPUTS[item["name"]] for item in EXCLUDED]
TEXT_CASES = frozenset(
    {
        "basic_all_present",
        "surrogates_at_head_and_tail_cuts",
        "context_injection_never",
        "agents_policy_digest",
        "total_budget_missing_markers_clamped",
        "memory_symlink_inside_workspace_followed",  # an [UNREADABLE] entry
    }
)


@pytest.fixture(scope="module")
def case_runs() -> Iterator[BootstrapRuns]:
    expected = {case["name"]: case["expected"] for case in CASES}
    expected.update({item["name"]: item for item in EXCLUDED})
    with run_bootstrap_cases([*CASES, *ERROR_CASES], {OPENCLAW: (expected, OPENCLAW)}, TEXT_CASES) as runs:
        yield runs[OPENCLAW]


def test_there_are_bootstrap_cases() -> None:
    assert len(CASES) >= 60 and len(EXCLUDED) >= 7
    assert all(case["openclaw"] == OPENCLAW for case in CASES)


@pytest.mark.parametrize("name", [case["name"] for case in CASES])
@pytest.mark.parametrize("key", EXPECTED_KEYS)
def test_json_matches_golden(case_runs: BootstrapRuns, name: str, key: str) -> None:
    check_key(case_runs, name, key, case_runs.expected[name][key])


@pytest.mark.parametrize("name", sorted(TEXT_CASES))
def test_text_view_is_the_exact_blocks(case_runs: BootstrapRuns, name: str) -> None:
    check_text_view(case_runs, name, case_runs.expected[name])


@pytest.mark.parametrize("name", [item["name"] for item in EXCLUDED])
def test_legacy_setup_state_gives_the_release_error(case_runs: BootstrapRuns, name: str) -> None:
    item = case_runs.expected[name]
    check_error(case_runs, name, item["error"], item["errorCode"])
