"""The computed bootstrap outputs of 2026.7.35 (P1) and 2026.8.2 (P2) for the public cases' inputs
(tests/golden_computed/: not official cases; its README says how the releases' own code produced them)
through the CLI with `--openclaw`, byte for byte; 2026.8.2's refusals of legacy setup state give its
plain `Error`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.conftest import REPO_ROOT
from tests.parity.bootstrap_cases import load_bootstrap_cases
from tests.parity.bootstrap_runs import (
    EXPECTED_KEYS,
    BootstrapRuns,
    check_error,
    check_key,
    run_bootstrap_cases,
)

pytestmark = pytest.mark.xdist_group("bootstrap-case-roots")

COMPUTED = REPO_ROOT / "tests" / "golden_computed"
RELEASES = ("2026.7.35", "2026.8.2")
CASES = load_bootstrap_cases()
EXPECTED = {
    release: json.loads((COMPUTED / f"bootstrap-{release}.json").read_text(encoding="utf-8"))
    for release in RELEASES
}


@pytest.fixture(scope="module")
def release_runs() -> Iterator[dict[str, BootstrapRuns]]:
    with run_bootstrap_cases(CASES, {release: (EXPECTED[release], release) for release in RELEASES}) as runs:
        yield runs


@pytest.mark.parametrize(
    ("release", "case"),
    [
        pytest.param(
            release,
            case,
            marks=pytest.mark.golden(f"bootstrap {release} (computed)"),
            id=f"{release}-{case['name']}",
        )
        for release in RELEASES
        for case in CASES
    ],
)
def test_bootstrap_matches_the_computed_output(
    release_runs: dict[str, BootstrapRuns], release: str, case: dict[str, Any]
) -> None:
    runs = release_runs[release]
    expected = runs.expected[case["name"]]
    if "error" in expected:
        check_error(runs, case["name"], expected["error"], expected.get("errorCode"))
        return
    for key in EXPECTED_KEYS:
        check_key(runs, case["name"], key, expected[key])
