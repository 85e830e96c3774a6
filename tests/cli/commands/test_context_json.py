"""`context --json`'s `scan.files` rows (scan_record.FileRowText: a template for the rows past the slug
cap, scan_record.file_record_indented for the rest) are exactly the stdlib's indented JSON of
`file_record`, for every status, hostile names, a mtime outside Python's dates and any depth."""

from __future__ import annotations

import json
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from memwarm_cli.profiles.releases import P0
from memwarm_cli.startup.file_rows import FileRow, Status
from memwarm_cli.startup.plan import build_plan
from memwarm_cli.startup.scan_record import FileRowText, file_record
from memwarm_cli.textsafe import json_safe
from tests.scenarios.test_scan import AT_MS
from tests.startup.test_scan_record import CASES, case_plan

ZONE = ZoneInfo("America/Chicago")
INDENTS = ("", "      ")


def stdlib_indented(row: FileRow, indent: str) -> str:
    text = json_safe(json.dumps(file_record(row, ZONE), ensure_ascii=False, indent=2))
    return text.replace("\n", "\n" + indent)


@pytest.mark.parametrize("case", sorted(CASES))
def test_rows_are_the_stdlib_json_of_file_record(tmp_path: Path, case: str) -> None:
    plan = case_plan(tmp_path, case)
    text = FileRowText(ZONE)
    for row in plan.rows:
        for indent in INDENTS:
            assert text(row, indent) == stdlib_indented(row, indent), row


def test_rows_past_the_slug_cap_come_from_the_template(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    for day in ("2026-04-10", "2026-04-11"):
        for index in range(9):
            (memory / f"{day}-note-{index}.md").write_text(f"note {index}\n", encoding="utf-8")
    cfg = {"agents": {"defaults": {"userTimezone": "America/Chicago"}}}
    plan = build_plan(tmp_path, cfg, AT_MS, include_others=True, profile=P0)
    capped = [row for row in plan.rows if row.status is Status.SLUG_CAP]
    assert len(capped) == 10
    text = FileRowText(ZONE)
    for row in plan.rows:
        for indent in INDENTS:
            assert text(row, indent) == stdlib_indented(row, indent), row
    # One template per (stamp, clock, kind, status, candidate, indent): the capped rows of two days (and
    # the daily notes, missing: a name and nothing else too).
    assert {(stamp, status) for stamp, _, _, status, _, _ in text.templates} == {
        (day, status) for day in ("2026-04-10", "2026-04-11") for status in (Status.SLUG_CAP, Status.MISSING)
    }


@pytest.mark.parametrize("mtime_ms", [None, 1_775_000_000_123.0, -1_000.0, 9e18, 1e300])
def test_a_bare_row_at_any_mtime(mtime_ms: float | None) -> None:
    row = FileRow("2026-04-11", "both", "2026-04-11-x.md", "slugged", Status.SLUG_CAP, candidate=False)
    row.mtime_ms = mtime_ms
    text = FileRowText(ZONE)
    for indent in INDENTS:
        assert text(row, indent) == stdlib_indented(row, indent)
    assert text.templates
