"""The computed prelude outputs of 2026.7.35 (P1) and 2026.8.2 (P2) for the public cases' inputs
(tests/golden_computed/: not official cases; its README says how the releases' own code produced them)
through the CLI with `--openclaw`, byte for byte."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import REPO_ROOT
from tests.parity.prelude_runs import check_prelude_json, check_prelude_text, check_scan_blocks, run_case
from tests.parity.workspace import load_cases

COMPUTED = REPO_ROOT / "tests" / "golden_computed"
RELEASES = ("2026.7.35", "2026.8.2")
CASES = load_cases()
EXPECTED = {
    release: json.loads((COMPUTED / f"prelude-{release}.json").read_text(encoding="utf-8"))
    for release in RELEASES
}


@pytest.mark.parametrize(
    ("release", "case"),
    [
        pytest.param(
            release,
            case,
            marks=pytest.mark.golden(f"prelude {release} (computed)"),
            id=f"{release}-{case['name']}",
        )
        for release in RELEASES
        for case in CASES
    ],
)
def test_prelude_matches_the_computed_output(release: str, case: dict[str, Any]) -> None:
    assert set(EXPECTED[release]) == {c["name"] for c in CASES}
    run = run_case(case, EXPECTED[release][case["name"]], release)
    check_prelude_json(run)
    check_prelude_text(run)
    check_scan_blocks(run)
