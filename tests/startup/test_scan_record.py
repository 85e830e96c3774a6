"""scan's record: `file_record_json` and `file_record_lines` (the hand-written JSON of `scan --json`) and
`file_record_indented` (`context --json`'s) are exactly the stdlib's JSON of `file_record`, for every
status and for hostile names and content."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from memwarm_cli.profiles.releases import P0
from memwarm_cli.startup.file_rows import Status
from memwarm_cli.startup.plan import StartupPlan, build_plan
from memwarm_cli.startup.scan_record import (
    file_record,
    file_record_indented,
    file_record_json,
    file_record_lines,
)
from memwarm_cli.textsafe import json_safe
from tests.conftest import write_memory_note
from tests.scenarios.test_scan import AT_MS, STATUS_CASES, Builder
from tests.terminal_safety import HOSTILE

ZONE = ZoneInfo("America/Chicago")


def stdlib_json(record: dict[str, Any]) -> str:
    return json_safe(json.dumps(record, ensure_ascii=False, separators=(", ", ": ")))


def _hostile(ws: Path, out: Path) -> dict[str, Any]:
    write_memory_note(ws, "2026-04-11.md", f'"quoted" \\ {HOSTILE} 😀 ```')  # the block holds it all
    write_memory_note(ws, f"2026-04-11-{HOSTILE}.md", "named")
    write_memory_note(ws, f"{HOSTILE}.md", "misnamed")
    raw = os.path.join(os.fsencode(ws / "memory"), b"2026-04-11-caf\xe9.md")  # not UTF-8: vanished
    with open(raw, "wb") as handle:
        handle.write(b"x")
    target = out / f"evil{HOSTILE}"
    target.write_text("outside", encoding="utf-8")
    (ws / "memory" / "2026-04-10.md").symlink_to(target)  # its detail quotes the target path
    return {"maxTotalChars": 5000}


CASES: dict[str, Builder] = {status.value: builder for status, (builder, _) in STATUS_CASES.items()}
CASES["hostile"] = _hostile


def case_plan(tmp_path: Path, case: str) -> StartupPlan:
    """The plan, every row included, of CASES[case]'s workspace (built under tmp_path)."""
    ws, out = tmp_path / "ws", tmp_path / "out"
    ws.mkdir()
    out.mkdir()
    limits = CASES[case](ws, out)
    cfg = {"agents": {"defaults": {"userTimezone": "America/Chicago", "startupContext": limits}}}
    plan = build_plan(ws, cfg, AT_MS, include_others=True, profile=P0)
    assert plan.rows
    return plan


@pytest.mark.parametrize("case", sorted(CASES))
def test_file_record_json_is_the_stdlib_json_of_file_record(tmp_path: Path, case: str) -> None:
    plan = case_plan(tmp_path, case)
    for row in plan.rows:
        assert file_record_json(row, ZONE) == stdlib_json(file_record(row, ZONE)), row
    # The lines `scan --json` writes (the `--all` rows by run, from one template): the same, in order.
    assert list(file_record_lines(plan, ZONE)) == [stdlib_json(file_record(row, ZONE)) for row in plan.rows]
    # `context --json`'s rows, as json.dumps(indent=2) writes them at any depth.
    for row in plan.rows:
        indented = json_safe(json.dumps(file_record(row, ZONE), ensure_ascii=False, indent=2))
        for indent in ("", "      "):
            assert file_record_indented(row, ZONE, indent) == indented.replace("\n", "\n" + indent), row


def test_every_status_is_covered() -> None:
    covered = {status for status, _ in STATUS_CASES.items()} | {Status.VANISHED}
    # unreadable: root reads every file here; symlink-refused: 2026.8.1+ only (test_prelude_profiles.py)
    assert covered >= set(Status) - {Status.UNREADABLE, Status.SYMLINK_REFUSED}
