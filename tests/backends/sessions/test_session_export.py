"""The session export's settings, collection name, planning and applying (write only what changed).

The safety of user files is tested in test_session_export_safety.py.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.backends.sessions.session_export import DAY_MS, apply_session_export
from memwarm_cli.backends.settings.qmd_collections import sessions_collection_name
from memwarm_cli.backends.settings.qmd_settings import (
    QmdSessionSettings,
    resolve_retention_days,
    resolve_session_settings,
)
from tests.backends.session_export_support import Layout, layout, snapshot

__all__ = ["layout"]  # the fixture, imported for pytest


# --------------------------------------------------------------------------------------------------------
# Settings and the collection name


def settings_for(sessions: dict[str, Any], tmp_path: Path, agent_id: str = "main") -> QmdSessionSettings:
    return resolve_session_settings(
        {"sessions": sessions},
        agent_id=agent_id,
        workspace=tmp_path / "ws",
        state_dir=tmp_path / "state",
        env={"HOME": str(tmp_path / "home")},
    )


def test_export_dir_default_relative_home_and_absolute(tmp_path: Path) -> None:
    default = tmp_path / "state" / "agents" / "main" / "qmd" / "sessions"
    assert settings_for({}, tmp_path).export_dir == default
    assert settings_for({"exportDir": " \u00a0"}, tmp_path).export_dir == default
    assert settings_for({"exportDir": 5}, tmp_path).export_dir == default
    assert settings_for({"exportDir": " out/../exp "}, tmp_path).export_dir == tmp_path / "ws" / "exp"
    assert settings_for({"exportDir": "~/exp"}, tmp_path).export_dir == tmp_path / "home" / "exp"
    assert settings_for({"exportDir": "/abs//x/"}, tmp_path).export_dir == Path("/abs/x")
    assert settings_for({"exportDir": "rel"}, tmp_path).export_dir_configured
    assert not settings_for({}, tmp_path).export_dir_configured


def test_sources_use_the_normalized_agent_id_and_the_default_export_dir_the_id_as_given(
    tmp_path: Path,
) -> None:
    settings = settings_for({}, tmp_path, agent_id="Ops")
    assert settings.sessions_dir == tmp_path / "state" / "agents" / "ops" / "sessions"
    assert settings.export_dir == tmp_path / "state" / "agents" / "Ops" / "qmd" / "sessions"


@pytest.mark.parametrize(
    ("value", "days"),
    [
        *[(7, 7), (1.9, 1), (0.5, None), (0, None), (-3, None), (None, None), (True, None), ("7", None)],
        *[(float("inf"), None), (float("nan"), None), (1e300, int(1e300))],
    ],
)
def test_retention_days(value: Any, days: int | None) -> None:
    assert resolve_retention_days(value) == days


@pytest.mark.parametrize(("value", "enabled"), [(True, True), (1, True), ("yes", True), ({}, True)])
def test_enabled_is_js_truthiness(value: Any, enabled: bool, tmp_path: Path) -> None:
    assert settings_for({"enabled": value}, tmp_path).enabled is enabled
    assert settings_for({"enabled": 0}, tmp_path).enabled is False
    assert settings_for({}, tmp_path).enabled is False


def test_collection_name_segment_and_uniqueness() -> None:
    taken = {"memory-root-main", "sessions-main"}
    assert sessions_collection_name("main", taken) == "sessions-main-2"
    assert "sessions-main-2" in taken  # recorded, like ensure_unique_name
    assert sessions_collection_name("Ops.Bot__2", set()) == "sessions-ops-bot-2"
    assert sessions_collection_name("__", set()) == "sessions-agent"


# --------------------------------------------------------------------------------------------------------
# Planning and applying


def test_plan_touches_nothing_and_apply_does_what_it_listed(layout: Layout) -> None:
    layout.transcript("a.jsonl", "hello")
    before = snapshot(layout.base)
    plan = layout.plan()
    assert snapshot(layout.base) == before
    assert not layout.export.exists()
    assert plan.create_export_dir and plan.writes == ("a.md",) and plan.deletes == ()
    assert plan.files == {"a.md": "# Session a\n\nUser: hello\n"}
    result = apply_session_export(plan)
    assert result.created_export_dir and result.written == ("a.md",)
    assert (layout.export / "a.md").read_text() == "# Session a\n\nUser: hello\n"


def test_only_changed_exports_are_written(layout: Layout) -> None:
    layout.transcript("a.jsonl", "one")
    layout.transcript("b.jsonl", "two")
    apply_session_export(layout.plan())
    old_ns = 1_000_000_000_000_000_000
    for name in ("a.md", "b.md"):
        os.utime(layout.export / name, ns=(old_ns, old_ns))
    layout.transcript("b.jsonl", "two, edited")
    plan = layout.plan()
    assert plan.writes == ("b.md",)
    result = apply_session_export(plan)
    assert result.written == ("b.md",)
    assert (layout.export / "a.md").stat().st_mtime_ns == old_ns
    assert (layout.export / "b.md").stat().st_mtime_ns != old_ns
    assert layout.plan().writes == ()


def test_an_export_edited_by_someone_else_is_restored(layout: Layout) -> None:
    """memwarm compares bytes on disk, so a one-shot run repairs what a long-lived manager would not."""
    layout.transcript("a.jsonl", "one")
    apply_session_export(layout.plan())
    (layout.export / "a.md").write_text("# Session a\n\nUser: tampered\n")
    assert apply_session_export(layout.plan()).written == ("a.md",)
    assert (layout.export / "a.md").read_text() == "# Session a\n\nUser: one\n"


def test_new_exports_are_0600_and_rewritten_ones_keep_their_mode(layout: Layout) -> None:
    layout.transcript("a.jsonl", "one")
    layout.transcript("b.jsonl", "two")
    layout.export.mkdir(parents=True)
    (layout.export / "b.md").write_text("old")
    os.chmod(layout.export / "b.md", 0o644)
    old_umask = os.umask(0o022)
    try:
        apply_session_export(layout.plan())
    finally:
        os.umask(old_umask)
    assert (layout.export / "a.md").stat().st_mode & 0o777 == 0o600
    assert (layout.export / "b.md").stat().st_mode & 0o777 == 0o644


def test_retention_cutoff_of_exactly_zero_disables_the_check(layout: Layout) -> None:
    layout.transcript("old.jsonl", "x", mtime_ms=-5)  # before 1970, older than any cutoff but 0
    assert [t.name for t in layout.plan(retention_days=1, now_ms=DAY_MS).targets] == ["old.md"]
    assert layout.plan(retention_days=1, now_ms=DAY_MS + 1).expired == ("old.jsonl",)


def test_two_transcripts_for_one_target_the_later_name_wins(layout: Layout) -> None:
    layout.transcript(".jsonl", "whole name")
    layout.transcript(".jsonl.jsonl", "double suffix")
    plan = layout.plan()
    assert [(t.name, t.source) for t in plan.targets] == [(".jsonl.md", ".jsonl.jsonl")]


def test_undecodable_names_are_skipped_like_node_does(layout: Layout) -> None:
    bad = os.fsdecode(b"bad-\xff")
    layout.transcript(bad + ".jsonl", "never exported")
    layout.export.mkdir(parents=True)
    (layout.export / (bad + ".md")).write_text("kept: Node cannot address this name")
    plan = layout.plan()
    assert plan.targets == ()
    assert [note.name for note in plan.unreadable] == [bad + ".jsonl"]
    assert [note.name for note in plan.left_alone] == [bad + ".md"]
    apply_session_export(plan)
    assert (layout.export / (bad + ".md")).exists()
