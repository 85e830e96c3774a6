"""The bootstrap plan: one row per file with its status, the 64-unit floor, and no config vs `{}`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.bootstrap.context_plan import BootstrapPlan, BootstrapStatus, build_bootstrap_plan
from memwarm_cli.profiles.releases import P0
from tests.parity.bootstrap_cases import all_case_workspaces, load_bootstrap_cases


def write(ws: Path, name: str, text: str | bytes) -> Path:
    path = ws / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def statuses(plan: BootstrapPlan) -> dict[str, str]:
    return {row.file.name: row.status.value for row in plan.rows}


def test_every_read_failure_is_a_missing_file_with_its_own_status(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    write(outside, "soul.md", "outside the workspace")
    (ws / "SOUL.md").symlink_to(outside / "soul.md")
    write(ws, "TOOLS.md", "tools")
    os.link(ws / "TOOLS.md", ws / "IDENTITY.md")
    (ws / "USER.md").mkdir()
    write(ws, "HEARTBEAT.md", b"x" * (2 * 1024 * 1024 + 1))
    write(ws, "AGENTS.md", "rules")
    plan = build_bootstrap_plan(ws, {}, None, profile=P0)
    assert statuses(plan) == {
        "AGENTS.md": "included",
        "SOUL.md": "symlink-escape",
        "TOOLS.md": "hardlink",
        "IDENTITY.md": "hardlink",
        "USER.md": "not-regular",
        "HEARTBEAT.md": "too-large",
        "BOOTSTRAP.md": "hidden",  # missing, and bootstrap mode is none: its marker is not shown
    }
    assert all(s.missing for s in plan.injected if s.name != "AGENTS.md")
    soul = next(row for row in plan.rows if row.file.name == "SOUL.md")
    assert soul.injected_chars == len("[MISSING] Expected at: " + str(ws / "SOUL.md"))
    assert soul.detail is not None and soul.detail.startswith("points to ")


def test_filters_empty_and_injection_never(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    for name in (
        "AGENTS.md",
        "SOUL.md",
        "TOOLS.md",
        "IDENTITY.md",
        "USER.md",
        "HEARTBEAT.md",
        "BOOTSTRAP.md",
    ):
        write(ws, name, f"# {name}\n")
    write(ws, "USER.md", " \n\t")
    write(ws, "openclaw-workspace-state.json", json.dumps({"setupCompletedAt": "2026-01-01"}))
    cfg: dict[str, Any] = {"agents": {"defaults": {"heartbeat": {"every": "0m"}}}}
    plan = build_bootstrap_plan(ws, cfg, "agent:main:main", profile=P0)
    assert statuses(plan) == {
        "AGENTS.md": "included",
        "SOUL.md": "included",
        "TOOLS.md": "included",
        "IDENTITY.md": "included",
        "USER.md": "empty",
        "HEARTBEAT.md": "heartbeat-off",
        "BOOTSTRAP.md": "setup-completed",
    }
    cron = build_bootstrap_plan(ws, {}, "agent:main:cron:nightly", profile=P0)
    assert statuses(cron)["HEARTBEAT.md"] == "session-filter"
    assert statuses(cron)["SOUL.md"] == "included"
    never = build_bootstrap_plan(
        ws, {"agents": {"defaults": {"contextInjection": "never"}}}, None, profile=P0
    )
    assert set(statuses(never).values()) == {"injection-never"}
    assert never.blocks.project_context is None and never.injected == []


def test_truncated_and_budget_exhausted_rows_say_why(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "AGENTS.md", "a" * 100)
    write(ws, "SOUL.md", "s" * 500)
    write(ws, "TOOLS.md", "t" * 10)
    cfg = {"agents": {"defaults": {"bootstrapMaxChars": 1000, "bootstrapTotalMaxChars": 250}}}
    plan = build_bootstrap_plan(ws, cfg, None, profile=P0)
    rows = {row.file.name: row for row in plan.rows}
    soul = rows["SOUL.md"]
    assert soul.status is BootstrapStatus.TRUNCATED
    assert soul.placement is not None and soul.placement.limit == 150
    assert soul.placement.limit_cause == "total budget"
    assert rows["TOOLS.md"].status is BootstrapStatus.BUDGET_EXHAUSTED
    assert rows["TOOLS.md"].detail == f"{250 - 100 - soul.budget_chars} chars left"
    assert plan.truncation_notice is not None


@pytest.mark.parametrize(("agents_len", "placed"), [(250 - 64, True), (250 - 63, False)])
def test_a_present_file_needs_64_units_left(tmp_path: Path, agents_len: int, placed: bool) -> None:
    ws = tmp_path / "ws"
    write(ws, "AGENTS.md", "a" * agents_len)
    write(ws, "SOUL.md", "soul")
    plan = build_bootstrap_plan(
        ws, {"agents": {"defaults": {"bootstrapTotalMaxChars": 250}}}, None, profile=P0
    )
    soul = next(row for row in plan.rows if row.file.name == "SOUL.md")
    assert (soul.status is BootstrapStatus.INCLUDED) is placed
    assert (soul.status is BootstrapStatus.BUDGET_EXHAUSTED) is not placed


def test_the_workspace_is_not_modified(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write(ws, "AGENTS.md", "rules " * 5000)
    write(ws, "BOOTSTRAP.md", "hello")
    write(ws, "MEMORY.md", "memory")

    def snapshot() -> dict[str, tuple[bytes, int]]:
        return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in ws.iterdir()}

    before = snapshot()
    build_bootstrap_plan(ws, {"agents": {"defaults": {"bootstrapMaxChars": 500}}}, None, profile=P0)
    assert snapshot() == before


# Builds the bootstrap cases at their fixed roots, as tests/parity/test_bootstrap_parity.py does: same worker.
@pytest.mark.xdist_group("bootstrap-case-roots")
def test_no_config_gives_what_an_empty_config_gives_for_every_case() -> None:
    """The CLI reads a missing config file as `{}`; for these cases that is the same as no config at all."""
    cases = [case for case in load_bootstrap_cases() if case["config"] is None]
    assert len(cases) > 20
    with all_case_workspaces(cases) as workspaces:
        for case in cases:
            without = build_bootstrap_plan(workspaces[case["name"]], None, case["sessionKey"], profile=P0)
            empty = build_bootstrap_plan(workspaces[case["name"]], {}, case["sessionKey"], profile=P0)
            assert (without.injected, without.blocks, without.context_files, without.bootstrap_mode) == (
                empty.injected,
                empty.blocks,
                empty.context_files,
                empty.bootstrap_mode,
            ), case["name"]
