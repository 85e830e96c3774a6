"""The prelude by release group: surrogate-safe cuts from 2026.7.33 (P1), symlinks refused on the read
path from 2026.8.1 (P2, P3). Vectors from the releases' own code (research versions.md §A)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memwarm_cli.profiles.releases import P0, P1, P2, P3, Profile
from memwarm_cli.startup.file_rows import Status
from memwarm_cli.startup.plan import build_plan
from memwarm_cli.startup.text import TRUNCATION_SUFFIX, fit_block, trim_content
from tests.conftest import write_memory_note

AT_MS = 1775930400000  # 2026-04-11T18:00:00Z, 13:00 in Chicago
CHICAGO = {"agents": {"defaults": {"userTimezone": "America/Chicago"}}}
ROCKET = "\U0001f680"


def _limits(**limits: int) -> dict[str, object]:
    return {"agents": {"defaults": {"userTimezone": "America/Chicago", "startupContext": limits}}}


def test_the_per_file_cut_keeps_surrogate_pairs_whole_from_p1() -> None:
    text = "x" * 79 + ROCKET + "tail"
    assert trim_content(text, 80) == "x" * 79 + "\ud83d" + TRUNCATION_SUFFIX  # P0: half a pair
    assert trim_content(text, 80, safe=True) == "x" * 79 + TRUNCATION_SUFFIX  # P1+: one unit shorter
    assert trim_content("ab\U0001f600cd", 3, safe=True) == "ab" + TRUNCATION_SUFFIX
    assert trim_content("abc", 3, safe=True) == "abc"  # nothing to cut


def test_every_trial_cut_of_the_budget_fit_is_safe_too() -> None:
    # 40 rockets, a 150-unit budget: P1+ keeps 18 and no half (149 units), P0 18 and a lone high half.
    content = ROCKET * 40
    unsafe = fit_block("memory/2026-04-11.md", content, 150)
    safe = fit_block("memory/2026-04-11.md", content, 150, safe=True)
    assert unsafe is not None and safe is not None
    assert ROCKET * 18 + "\ud83d" + TRUNCATION_SUFFIX in unsafe.text
    assert ROCKET * 18 + TRUNCATION_SUFFIX in safe.text and "\ud83d\n" not in safe.text


@pytest.mark.parametrize(("profile", "cut"), [(P0, True), (P1, False), (P2, False), (P3, False)])
def test_the_plan_uses_the_profiles_cut(tmp_path: Path, profile: Profile, cut: bool) -> None:
    write_memory_note(tmp_path, "2026-04-11.md", "x" * 79 + ROCKET + "tail")
    plan = build_plan(tmp_path, _limits(maxFileChars=80), AT_MS, profile=profile)
    assert plan.prelude is not None
    assert ("\ud83d\n...[truncated]..." in plan.prelude) is cut


def _symlinked_memory_dir(ws: Path) -> None:
    real = ws / "real-memory"
    real.mkdir(parents=True)
    (real / "2026-04-11.md").write_text("today")
    (real / "2026-04-11-slug.md").write_text("slugged")
    (ws / "memory").symlink_to("real-memory")


def test_a_symlinked_memory_dir_is_listed_but_not_read_from_2026_8(tmp_path: Path) -> None:
    _symlinked_memory_dir(tmp_path)
    for profile in (P0, P1):
        assert build_plan(tmp_path, CHICAGO, AT_MS, profile=profile).prelude is not None
    for profile in (P2, P3):
        plan = build_plan(tmp_path, CHICAGO, AT_MS, profile=profile)
        assert plan.prelude is None
        rows = {row.name: row for row in plan.rows}
        # Both candidates (the slug took a cap slot), both refused, with fs-safe's words.
        assert rows["2026-04-11.md"].status is Status.SYMLINK_REFUSED
        assert rows["2026-04-11-slug.md"].status is Status.SYMLINK_REFUSED
        assert rows["2026-04-11.md"].detail == "symlink path component not allowed"


def test_a_symlinked_note_is_refused_even_inside_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "today.md").write_text("linked")
    write_memory_note(tmp_path, "2026-04-11-a.md", "regular slug")
    (tmp_path / "memory" / "2026-04-11.md").symlink_to(tmp_path / "notes" / "today.md")
    p1 = build_plan(tmp_path, CHICAGO, AT_MS, profile=P1)
    assert p1.prelude is not None and "linked" in p1.prelude and "regular slug" in p1.prelude
    p3 = build_plan(tmp_path, CHICAGO, AT_MS, profile=P3)
    assert p3.prelude is not None and "linked" not in p3.prelude and "regular slug" in p3.prelude
    # A relative, dangling link: refused before its target is even looked at.
    (tmp_path / "memory" / "2026-04-11.md").unlink()
    (tmp_path / "memory" / "2026-04-11.md").symlink_to("t.md")
    assert build_plan(tmp_path, CHICAGO, AT_MS, profile=P3).rows[0].status is Status.SYMLINK_REFUSED


def test_a_symlinked_workspace_root_or_ancestor_is_fine(tmp_path: Path) -> None:
    real = tmp_path / "real"
    write_memory_note(real, "2026-04-11.md", "today")
    (tmp_path / "alias").symlink_to(real)
    (tmp_path / "up").symlink_to(tmp_path)
    for ws in (tmp_path / "alias", tmp_path / "up" / "real", Path(f"{real}{os.sep}.{os.sep}")):
        assert build_plan(ws, CHICAGO, AT_MS, profile=P3).prelude is not None


def test_an_escaping_directory_link_says_so(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "2026-04-11.md").write_text("out")
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "memory").symlink_to(outside)
    row = build_plan(ws, CHICAGO, AT_MS, profile=P3).rows[0]
    assert row.status is Status.SYMLINK_ESCAPE
