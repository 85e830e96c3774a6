"""The session export never harms user files: transcripts, notes outside the export dir, symlink targets.

Real symlinks, hard links, FIFOs and a real file-size limit (for a write that fails half-way).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memwarm_cli.backends.sessions.export_cache import FileIdentity
from memwarm_cli.backends.sessions.session_export import (
    ExportTarget,
    SessionExportFailed,
    SessionExportPlan,
    SessionExportRefused,
    apply_session_export,
    plan_session_export,
)
from memwarm_cli.backends.sessions.session_export_files import check_entry_name
from memwarm_cli.backends.settings.qmd_settings import resolve_session_settings
from tests.backends.session_export_support import NOW_MS, Layout, layout, record, snapshot
from tests.conftest import REPO_ROOT

__all__ = ["layout"]  # the fixture, imported for pytest


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


def test_a_hard_linked_transcript_is_not_read(layout: Layout) -> None:
    """The release reads it (it is a regular file); memwarm does not: a hard link can bring in the bytes
    of a file from anywhere on the file system."""
    elsewhere = layout.outside / "private.jsonl"
    elsewhere.write_text(record("text from outside the sessions dir"))
    os.link(elsewhere, layout.sessions / "linked.jsonl")
    layout.transcript("own.jsonl", "own text")
    plan = layout.plan()
    assert [t.name for t in plan.targets] == ["own.md"]
    (note,) = plan.unreadable
    assert note.name == "linked.jsonl" and "2 hard links" in note.reason
    apply_session_export(plan)
    assert layout.export_names() == ["own.md"]


def test_a_symlinked_sessions_dir_is_not_read_and_nothing_is_deleted(layout: Layout) -> None:
    """The release lists a symlinked sessions dir; memwarm reads nothing through it, and since it cannot
    tell which exports are stale then, it deletes none."""
    layout.transcript("a.jsonl", "exported while the dir was real")
    apply_session_export(layout.plan())
    real = layout.outside / "sessions-elsewhere"
    os.rename(layout.sessions, real)
    os.symlink(real, layout.sessions)
    plan = layout.plan()
    assert plan.targets == () and plan.deletes == ()
    (note,) = plan.unreadable
    assert "symbolic link" in note.reason and "\n" not in note.reason
    apply_session_export(plan)
    assert layout.export_names() == ["a.md"]


def test_a_transcript_swapped_after_listing_is_not_read(layout: Layout) -> None:
    from memwarm_cli.backends.sessions.session_export_files import SessionsDir

    layout.transcript("a.jsonl", "listed")
    sessions = SessionsDir.open(layout.sessions)
    assert sessions is not None
    with sessions:
        (listed,) = sessions.regular_files()
        (layout.sessions / "a.jsonl").unlink()
        os.symlink(layout.outside / "x", layout.sessions / "a.jsonl")
        with pytest.raises(OSError):
            sessions.open_transcript(listed)


# --------------------------------------------------------------------------------------------------------
# Safety: what may be deleted


def test_stale_cleanup_removes_md_entries_directly_inside_and_nothing_they_point_to(layout: Layout) -> None:
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
    assert plan.deletes == ("dirlink.md", "hardlink.md", "link.md", "pipe.md", "stale.md")
    result = apply_session_export(plan)
    assert result.deleted == plan.deletes
    assert layout.export_names() == ["keep.txt", "live.md", "sub"]
    assert victim.read_text() == "the user's own note"
    assert hard.read_text() == "hard-linked elsewhere"
    assert (layout.export / "sub" / "nested.md").read_text() == "nested"
    assert sorted(os.listdir(layout.outside)) == ["hard.md", "notes.md"]


def test_a_directory_named_md_is_removed_only_when_empty_and_never_fails_the_pass(layout: Layout) -> None:
    layout.transcript("a.jsonl", "written")
    layout.export.mkdir(parents=True)
    (layout.export / "empty.md").mkdir()
    (layout.export / "folder.md").mkdir()
    (layout.export / "folder.md" / "inside.md").write_text("untouched")
    plan = layout.plan()
    assert not plan.blocked and plan.config_error is None and plan.deletes == ("empty.md",)
    assert [note.name for note in plan.left_alone] == ["folder.md"]
    result = apply_session_export(plan)
    assert (result.written, result.deleted) == (("a.md",), ("empty.md",))
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
        targets=(ExportTarget("../evil.md", "evil.jsonl", "0" * 64, 1, b"x", FileIdentity(0, 0, 1, 0, 0)),),
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
                layout.sessions,
                export_dir,
                retention_days=None,
                now_ms=NOW_MS,
                agent_qmd_dir=None,
                protected_dirs=protected,
            )
    # Inside the workspace but not over anything protected is fine (a relative exportDir lands there).
    plan_session_export(
        layout.sessions,
        workspace / "exports",
        retention_days=None,
        now_ms=NOW_MS,
        agent_qmd_dir=None,
        protected_dirs=[workspace / "memory"],
    )


def _workspace_with_notes(layout: Layout) -> Path:
    workspace = layout.base / "ws"
    (workspace / "memory" / "projects").mkdir(parents=True)
    (layout.base / "home").mkdir()
    (workspace / "memory" / "projects" / "plan.md").write_text("the user's note")
    (layout.base / "home" / "todo.md").write_text("a note in the home dir")
    os.symlink(workspace / "memory", layout.base / "memlink")
    return workspace


@pytest.mark.parametrize(
    ("export_dir", "why"),
    [
        ("memory/projects", "is inside"),  # relative: taken from the workspace
        ("memory/projects/", "is inside"),  # a trailing slash names the same dir
        ("./memory/../memory/projects", "is inside"),
        ("~/../ws/memory/projects", "is inside"),  # `~` is the home dir
        ("{base}/memlink/projects", "is inside"),  # through a symlink on the way
        ("~", "the home directory"),
        ("~/", "the home directory"),
        ("{base}", "is or contains"),  # an ancestor of the workspace (and of the home dir)
        ("/", "is or contains"),
        ("..", "is or contains"),  # the workspace's parent
    ],
)
def test_export_dirs_whose_cleanup_would_delete_notes_are_refused_in_every_spelling(
    layout: Layout, export_dir: str, why: str
) -> None:
    """Stale cleanup deletes every `*.md` directly in the export dir: memwarm refuses `memory/` and
    everything inside it, the home dir and every ancestor of the workspace or the home dir, however the
    path is written. The release uses all of them."""
    workspace = _workspace_with_notes(layout)
    home = layout.base / "home"
    settings = resolve_session_settings(
        {"sessions": {"enabled": True, "exportDir": export_dir.format(base=layout.base)}},
        agent_id="main",
        workspace=workspace,
        state_dir=layout.base / "state",
        env={"HOME": str(home)},
    )
    before = snapshot(layout.base)
    with pytest.raises(SessionExportRefused) as caught:
        plan_session_export(
            settings.sessions_dir,
            settings.export_dir,
            retention_days=None,
            now_ms=NOW_MS,
            agent_qmd_dir=None,
            protected_dirs=[workspace, workspace / "memory"],
            notes_dirs=[workspace / "memory"],
            homes=[home],
        )
    assert why in str(caught.value) and "\n" not in str(caught.value)
    assert snapshot(layout.base) == before


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
        from memwarm_cli.backends.sessions.session_export import apply_session_export, plan_session_export
        from memwarm_cli.backends.sessions.session_export import SessionExportFailed
        plan = plan_session_export(Path({str(layout.sessions)!r}), Path({str(layout.export)!r}),
                                   retention_days=None, now_ms={NOW_MS}, agent_qmd_dir=None)
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
