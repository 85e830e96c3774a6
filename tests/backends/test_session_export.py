"""The session export's plan/apply core: settings, write-only-if-changed, and the safety of user files.

Everything runs on real directories: symlinks, hard links, FIFOs and a real file-size limit (for a write
that fails half-way) instead of mocks.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.backends.session_export import (
    DAY_MS,
    ExportTarget,
    SessionExportFailed,
    SessionExportPlan,
    SessionExportRefused,
    apply_session_export,
    plan_session_export,
    resolve_retention_days,
    resolve_session_export_settings,
    sessions_collection_name,
)
from memwarm_cli.backends.session_export_files import check_entry_name
from tests.conftest import REPO_ROOT

NOW_MS = 1_775_930_400_000


def record(text: str, role: str = "user") -> str:
    return json.dumps({"type": "message", "message": {"role": role, "content": text}}) + "\n"


@dataclass
class Layout:
    base: Path
    sessions: Path
    export: Path
    outside: Path

    def transcript(self, name: str, *texts: str, mtime_ms: int = NOW_MS - 3_600_000) -> Path:
        path = self.sessions / name
        path.write_text("".join(record(t) for t in texts), encoding="utf-8")
        os.utime(path, ns=(mtime_ms * 1_000_000,) * 2)
        return path

    def plan(self, **kwargs: Any) -> SessionExportPlan:
        kwargs.setdefault("retention_days", None)
        kwargs.setdefault("now_ms", NOW_MS)
        return plan_session_export(self.sessions, self.export, **kwargs)

    def export_names(self) -> list[str]:
        return sorted(os.listdir(self.export))


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    base = Path(os.path.realpath(tmp_path))
    sessions = base / "state" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    outside = base / "outside"
    outside.mkdir()
    return Layout(base, sessions, base / "state" / "agents" / "main" / "qmd" / "sessions", outside)


def snapshot(directory: Path) -> dict[str, tuple[bytes, int, int]]:
    """Content (regular files), mtime and mode of every entry under `directory`, symlinks not followed."""
    found: dict[str, tuple[bytes, int, int]] = {}
    for root, dirs, files in os.walk(directory):
        for name in dirs + files:
            path = Path(root, name)
            info = path.lstat()
            data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
            found[str(path.relative_to(directory))] = (data, info.st_mtime_ns, info.st_mode)
    return found


# --------------------------------------------------------------------------------------------------------
# Settings and the collection name


def settings_for(sessions: dict[str, Any], tmp_path: Path, agent_id: str = "main") -> Any:
    return resolve_session_export_settings(
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


# --------------------------------------------------------------------------------------------------------
# Safety: transcripts


def test_transcripts_are_read_only_and_symlinked_ones_are_not_followed(layout: Layout) -> None:
    layout.transcript("a.jsonl", "hello")
    os.chmod(layout.sessions / "a.jsonl", 0o444)
    secret = layout.outside / "elsewhere.jsonl"
    secret.write_text(record("outside text"))
    os.symlink(secret, layout.sessions / "link.jsonl")
    (layout.sessions / "fifo.jsonl").parent.mkdir(exist_ok=True)
    os.mkfifo(layout.sessions / "fifo.jsonl")
    before = snapshot(layout.base / "state" / "agents" / "main" / "sessions"), snapshot(layout.outside)
    plan = layout.plan()
    apply_session_export(plan)
    assert [t.name for t in plan.targets] == ["a.md"]
    after = snapshot(layout.base / "state" / "agents" / "main" / "sessions"), snapshot(layout.outside)
    assert after == before
    assert "outside text" not in (layout.export / "a.md").read_text()


# --------------------------------------------------------------------------------------------------------
# Safety: what may be deleted


def test_stale_cleanup_removes_only_regular_md_files_directly_inside(layout: Layout) -> None:
    layout.transcript("live.jsonl", "live")
    layout.export.mkdir(parents=True)
    victim = layout.outside / "notes.md"
    victim.write_text("the user's own note")
    os.symlink(victim, layout.export / "link.md")
    os.symlink(layout.outside, layout.export / "dirlink.md")
    os.mkfifo(layout.export / "pipe.md")
    (layout.export / "sub").mkdir()
    (layout.export / "sub" / "nested.md").write_text("nested")
    (layout.export / "stale.md").write_text("old export")
    (layout.export / "keep.txt").write_text("not markdown")
    hard = layout.outside / "hard.md"
    hard.write_text("hard-linked elsewhere")
    os.link(hard, layout.export / "hardlink.md")

    plan = layout.plan()
    assert plan.deletes == ("hardlink.md", "stale.md")
    assert {note.name for note in plan.left_alone} == {"link.md", "dirlink.md", "pipe.md"}
    result = apply_session_export(plan)
    assert result.deleted == ("hardlink.md", "stale.md")
    assert layout.export_names() == ["dirlink.md", "keep.txt", "link.md", "live.md", "pipe.md", "sub"]
    assert victim.read_text() == "the user's own note"
    assert hard.read_text() == "hard-linked elsewhere"
    assert (layout.export / "sub" / "nested.md").read_text() == "nested"


def test_a_directory_named_md_fails_the_pass_after_the_other_work(layout: Layout) -> None:
    layout.transcript("a.jsonl", "written first")
    layout.export.mkdir(parents=True)
    (layout.export / "folder.md").mkdir()
    (layout.export / "folder.md" / "inside.md").write_text("untouched")
    (layout.export / "stale.md").write_text("old")
    plan = layout.plan()
    assert plan.fails and [note.name for note in plan.blocked] == ["folder.md"]
    with pytest.raises(SessionExportFailed) as caught:
        apply_session_export(plan)
    assert caught.value.code == "ERR_FS_EISDIR"
    assert "folder.md" in str(caught.value) and "\n" not in str(caught.value)
    assert (caught.value.partial.written, caught.value.partial.deleted) == (("a.md",), ("stale.md",))
    assert (layout.export / "folder.md" / "inside.md").read_text() == "untouched"


def test_names_that_are_not_one_plain_component_are_refused(layout: Layout) -> None:
    for name in ("../evil.md", "a/b.md", "..", ".", "", "x\0.md"):
        with pytest.raises(SessionExportRefused):
            check_entry_name(name)
    check_entry_name("..md")  # a legitimate export name ("..jsonl" -> "..md")
    (layout.base / "state" / "agents" / "main" / "qmd").mkdir(parents=True)
    (layout.base / "state" / "agents" / "main" / "qmd" / "precious.md").write_text("user file")
    escaping = SessionExportPlan(
        sessions_dir=layout.sessions,
        export_dir=layout.export,
        create_export_dir=True,
        targets=(ExportTarget("../evil.md", "evil.jsonl", "x"),),
        writes=("../evil.md",),
        deletes=("../precious.md",),
        blocked=(),
        left_alone=(),
        expired=(),
        unreadable=(),
    )
    with pytest.raises(SessionExportRefused):
        apply_session_export(escaping)
    assert not layout.export.exists()
    assert not (layout.export.parent / "evil.md").exists()
    assert (layout.export.parent / "precious.md").read_text() == "user file"


# --------------------------------------------------------------------------------------------------------
# Safety: the export dir


def test_an_export_dir_that_is_a_symlink_is_refused(layout: Layout) -> None:
    layout.transcript("a.jsonl", "x")
    real = layout.outside / "real-exports"
    real.mkdir()
    (real / "user.md").write_text("a user's note")
    layout.export.parent.mkdir(parents=True)
    os.symlink(real, layout.export)
    with pytest.raises(SessionExportRefused, match="symbolic link"):
        layout.plan()
    assert os.listdir(real) == ["user.md"]


def test_an_export_dir_swapped_for_a_symlink_after_planning_is_not_written_through(layout: Layout) -> None:
    layout.transcript("a.jsonl", "x")
    layout.export.mkdir(parents=True)
    (layout.export / "stale.md").write_text("old")
    plan = layout.plan()
    real = layout.outside / "real-exports"
    real.mkdir()
    (real / "stale.md").write_text("a user's note with the same name")
    os.rename(layout.export, layout.base / "moved-away")
    os.symlink(real, layout.export)
    with pytest.raises(SessionExportFailed) as caught:
        apply_session_export(plan)
    assert caught.value.code == "ELOOP"
    assert caught.value.partial.written == ()
    assert sorted(os.listdir(real)) == ["stale.md"]
    assert (real / "stale.md").read_text() == "a user's note with the same name"


def test_an_export_dir_that_is_a_file_is_refused(layout: Layout) -> None:
    layout.export.parent.mkdir(parents=True)
    layout.export.write_text("not a dir")
    with pytest.raises(SessionExportRefused, match="not a directory"):
        layout.plan()


def test_an_export_dir_holding_user_notes_is_refused(layout: Layout) -> None:
    workspace = layout.base / "ws"
    (workspace / "memory").mkdir(parents=True)
    for export_dir, protected in [
        (workspace / "memory", [workspace / "memory"]),
        (workspace, [workspace / "memory"]),  # contains it
        (layout.base, [workspace]),
        (layout.sessions, []),  # the transcripts' own dir is always protected
        (layout.sessions.parent, []),
    ]:
        with pytest.raises(SessionExportRefused, match="is or contains"):
            plan_session_export(
                layout.sessions, export_dir, retention_days=None, now_ms=NOW_MS, protected_dirs=protected
            )
    # Inside the workspace but not over anything protected is fine (a relative exportDir lands there).
    plan_session_export(
        layout.sessions,
        workspace / "exports",
        retention_days=None,
        now_ms=NOW_MS,
        protected_dirs=[workspace / "memory"],
    )


# --------------------------------------------------------------------------------------------------------
# Safety: how exports are written


def test_a_planted_symlink_at_a_target_is_replaced_not_followed(layout: Layout) -> None:
    layout.transcript("a.jsonl", "export text")
    layout.export.mkdir(parents=True)
    victim = layout.outside / "victim.txt"
    victim.write_text("must stay")
    os.symlink(victim, layout.export / "a.md")
    apply_session_export(layout.plan())
    assert not (layout.export / "a.md").is_symlink()
    assert (layout.export / "a.md").read_text() == "# Session a\n\nUser: export text\n"
    assert victim.read_text() == "must stay"


def test_a_hard_linked_target_gets_a_new_inode(layout: Layout) -> None:
    layout.transcript("a.jsonl", "export text")
    layout.export.mkdir(parents=True)
    other = layout.outside / "other-name.md"
    other.write_text("shared content")
    os.link(other, layout.export / "a.md")
    apply_session_export(layout.plan())
    assert other.read_text() == "shared content"
    assert (layout.export / "a.md").read_text() == "# Session a\n\nUser: export text\n"


def test_a_directory_at_a_target_fails_and_leaves_no_temp_file(layout: Layout) -> None:
    layout.transcript("a.jsonl", "first")
    layout.transcript("b.jsonl", "blocked")
    layout.transcript("c.jsonl", "never reached")
    layout.export.mkdir(parents=True)
    (layout.export / "b.md").mkdir()
    (layout.export / "stale.md").write_text("kept: a failed write stops the pass before cleanup")
    plan = layout.plan()
    assert [note.name for note in plan.blocked] == ["b.md"]
    with pytest.raises(SessionExportFailed) as caught:
        apply_session_export(plan)
    assert caught.value.code == "EISDIR"
    assert caught.value.partial.written == ("a.md",)
    assert layout.export_names() == ["a.md", "b.md", "stale.md"]


def test_a_write_that_fails_half_way_leaves_no_temp_file_and_the_old_export(layout: Layout) -> None:
    """A real short write: the file-size limit (RLIMIT_FSIZE) makes the second write fail with EFBIG."""
    layout.transcript("a.jsonl", "x" * 10_000)
    layout.export.mkdir(parents=True)
    (layout.export / "a.md").write_text("previous export")
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        from pathlib import Path
        from memwarm_cli.backends.session_export import apply_session_export, plan_session_export
        from memwarm_cli.backends.session_export import SessionExportFailed
        plan = plan_session_export(Path({str(layout.sessions)!r}), Path({str(layout.export)!r}),
                                   retention_days=None, now_ms={NOW_MS})
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        try:
            apply_session_export(plan)
        except SessionExportFailed as failure:
            print(failure.code, failure.partial.written)
            sys.exit(0)
        sys.exit("the write did not fail")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "EFBIG ()"
    assert layout.export_names() == ["a.md"]
    assert (layout.export / "a.md").read_text() == "previous export"
