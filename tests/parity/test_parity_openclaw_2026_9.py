"""Every 2026.9.6 prelude golden case (tests/golden/openclaw-2026.9/cases) through the CLI with
`--openclaw 2026.9.6`, byte for byte: the same inputs as the 2026.6.35 cases, the release's outputs."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.conftest import GOLDEN_DIR
from tests.parity.case_files import load_json_cases
from tests.parity.prelude_runs import (
    CaseRun,
    check_prelude_json,
    check_prelude_text,
    check_scan_blocks,
    run_case,
)

pytestmark = pytest.mark.golden("prelude 2026.9.6")

CASES = load_json_cases(GOLDEN_DIR / "openclaw-2026.9" / "cases")


@pytest.fixture(scope="module", params=CASES, ids=[case["name"] for case in CASES])
def case_run(request: pytest.FixtureRequest) -> Iterator[CaseRun]:
    case = request.param
    assert case["openclaw"] == "2026.9.6"
    yield run_case(case, case["expected"], case["openclaw"])


def test_there_are_golden_cases() -> None:
    assert len(CASES) >= 100


def test_prelude_json_matches_golden(case_run: CaseRun) -> None:
    check_prelude_json(case_run)


def test_prelude_text_is_exact_bytes(case_run: CaseRun) -> None:
    check_prelude_text(case_run)


def test_scan_included_blocks_join_to_the_prelude(case_run: CaseRun) -> None:
    check_scan_blocks(case_run)
