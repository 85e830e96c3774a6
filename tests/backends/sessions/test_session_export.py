"""The session export's settings, planning and applying: which files, write only what changed, the
INVALID_CONFIG refusal, the release's stale cleanup, and the per-transcript cache.

The safety of user files is tested in test_session_export_safety.py.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.backends.sessions.export_cache import cache_json, parse_cache
from memwarm_cli.backends.sessions.session_config import sessions_config_error
from memwarm_cli.backends.sessions.session_export import DAY_MS, KEEP_RENDERED_BYTES, apply_session_export
from memwarm_cli.backends.sessions.session_export_files import SessionExportFailed
from memwarm_cli.backends.settings.qmd_collections import sessions_collection_name
from memwarm_cli.backends.settings.qmd_settings import QmdSessionSettings, resolve_session_settings
from tests.backends.session_export_support import Layout, layout, record, snapshot

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
    assert settings_for({"exportDir": " out/../exp "}, tmp_path).export_dir == tmp_path / "ws" / "exp"
    assert settings_for({"exportDir": "~/exp"}, tmp_path).export_dir == tmp_path / "home" / "exp"
    assert settings_for({"exportDir": "/abs//x/"}, tmp_path).export_dir == Path("/abs/x")


def test_sources_use_the_normalized_agent_id_and_the_default_export_dir_the_id_as_given(
    tmp_path: Path,
) -> None:
    settings = settings_for({}, tmp_path, agent_id="Ops")
    assert settings.sessions_dir == tmp_path / "state" / "agents" / "ops" / "sessions"
    assert settings.export_dir == tmp_path / "state" / "agents" / "Ops" / "qmd" / "sessions"


def test_collection_name_segment_and_uniqueness() -> None:
    taken = {"memory-root-main", "sessions-main"}
    assert sessions_collection_name("main", taken) == "sessions-main-2"
    assert sessions_collection_name("Ops.Bot__2", set()) == "sessions-ops-bot-2"
    assert sessions_collection_name("__", set()) == "sessions-agent"


@pytest.mark.parametrize(
    ("sessions", "valid"),
    [
        *[(None, True), ({}, True), ({"enabled": True, "retentionDays": 0}, True)],
        *[({"retentionDays": v}, True) for v in (1, 1.0, -0.0, 2**53 - 1)],
        *[({"retentionDays": v}, False) for v in (0.5, 1.5, 1e-7, -3, 2**53, 1e300, "7", True, None)],
        *[({"enabled": "yes"}, False), ({"exportDir": 5}, False), ({"other": 1}, False), ([], False)],
    ],
)
def test_the_sessions_block_is_validated_as_the_release_does(sessions: Any, valid: bool) -> None:
    """memory.qmd.sessions is `{enabled?: boolean, exportDir?: string, retentionDays?: int >= 0}`, strict:
    anything else is INVALID_CONFIG in the release (an explicit null too, in a real config file)."""
    assert (sessions_config_error(sessions) is None) is valid


def test_an_invalid_config_fails_the_pass_before_anything_is_read_written_or_deleted(layout: Layout) -> None:
    layout.transcript("a.jsonl", "hello")
    layout.export.mkdir(parents=True)
    (layout.export / "stale.md").write_text("old export")
    before = snapshot(layout.base)
    plan = layout.plan(config_error=sessions_config_error({"retentionDays": 1.5}))
    assert (plan.blocked or plan.config_error is not None) and plan.targets == () and plan.deletes == ()
    with pytest.raises(SessionExportFailed) as caught:
        apply_session_export(plan)
    assert caught.value.code == "INVALID_CONFIG"
    assert "retentionDays" in str(caught.value) and "\n" not in str(caught.value)
    assert (caught.value.partial.written, caught.value.partial.deleted) == ((), ())
    assert snapshot(layout.base) == before


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


def test_reset_and_deleted_archives_are_exported_under_their_own_names(layout: Layout) -> None:
    layout.transcript("a.jsonl", "live")
    layout.transcript("a.jsonl.reset.2026-01-02T03-04-05Z", "before the reset")
    layout.transcript("a.jsonl.deleted.2026-01-02T03-04-05.678Z", "deleted")
    layout.transcript("a.jsonl.bak.2026-01-02T03-04-05Z", "a backup: no session")
    layout.transcript(".jsonl", "no session id")
    layout.transcript("t.trajectory.jsonl", "a trajectory")
    files = layout.plan().files
    assert files == {
        "a.md": "# Session a\n\nUser: live\n",
        "a.jsonl.reset.2026-01-02T03-04-05Z.md": "# Session a.jsonl.reset\n\nUser: before the reset\n",
        "a.jsonl.deleted.2026-01-02T03-04-05.678Z.md": (
            "# Session a.jsonl.deleted.2026-01-02T03-04-05\n\nUser: deleted\n"
        ),
    }


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
    archive = "x.jsonl.reset.2026-01-02T03-04-05Z"
    layout.transcript(archive, "the archive")
    layout.transcript(archive + ".jsonl", "a primary transcript of the same stem")
    plan = layout.plan()
    assert [(t.name, t.source) for t in plan.targets] == [(archive + ".md", archive + ".jsonl")]


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


def test_stale_cleanup_is_the_releases_and_never_fails(layout: Layout) -> None:
    """`remove_path` without recursion: an empty `*.md` directory and a `*.md` symlink (the link, not its
    target) go, a non-empty directory stays, and the pass succeeds."""
    layout.transcript("live.jsonl", "live")
    layout.export.mkdir(parents=True)
    (layout.export / "empty.md").mkdir()
    (layout.export / "full.md").mkdir()
    (layout.export / "full.md" / "inside.md").write_text("untouched")
    target = layout.outside / "target.md"
    target.write_text("the link's target stays")
    os.symlink(target, layout.export / "link.md")
    (layout.export / "stale.md").write_text("old")
    (layout.export / "keep.txt").write_text("not markdown")
    plan = layout.plan()
    assert plan.deletes == ("empty.md", "link.md", "stale.md")
    assert [note.name for note in plan.left_alone] == ["full.md"]
    result = apply_session_export(plan)
    assert result.deleted == ("empty.md", "link.md", "stale.md")
    assert layout.export_names() == ["full.md", "keep.txt", "live.md"]
    assert (layout.export / "full.md" / "inside.md").read_text() == "untouched"
    assert target.read_text() == "the link's target stays"


# --------------------------------------------------------------------------------------------------------
# The cache: an unchanged transcript is not read again


def test_an_unchanged_transcript_is_not_parsed_again(layout: Layout) -> None:
    path = layout.transcript("a.jsonl", "the original text")
    first = apply_session_export(layout.plan())
    assert first.cache is not None
    info = path.stat()
    cached = layout.plan(cache=first.cache)
    assert cached.writes == () and cached.targets[0].data is None  # taken from the cache, not rendered
    # The same size, inode and mtime, other bytes: the ctime moved, so it is rendered again (issue 31,
    # class 8: a secret removed by hand stayed in the export and the index).
    with path.open("r+b") as handle:
        handle.write(record("THE ORIGINAL TEXT").encode())
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert (path.stat().st_size, path.stat().st_mtime_ns) == (info.st_size, info.st_mtime_ns)
    again = layout.plan(cache=first.cache)
    assert again.writes == ("a.md",) and again.targets[0].text == "# Session a\n\nUser: THE ORIGINAL TEXT\n"


def test_a_cached_export_that_is_gone_is_rendered_again_when_written(layout: Layout) -> None:
    layout.transcript("a.jsonl", "kept in the cache only as a digest")
    first = apply_session_export(layout.plan())
    (layout.export / "a.md").unlink()
    plan = layout.plan(cache=first.cache)
    assert plan.writes == ("a.md",) and plan.targets[0].data is None
    apply_session_export(plan)
    assert (layout.export / "a.md").read_text() == "# Session a\n\nUser: kept in the cache only as a digest\n"


def test_the_cache_round_trips_and_ignores_what_it_did_not_write(layout: Layout) -> None:
    layout.transcript("a.jsonl", "x")
    entries = apply_session_export(layout.plan()).cache
    assert entries is not None
    data = cache_json(entries, str(layout.export))
    assert data["schema"] == 1
    assert parse_cache(data, str(layout.export)) == entries
    other_dir = parse_cache(data, "/elsewhere")
    assert other_dir["a.jsonl"].export is None and other_dir["a.jsonl"].digest == entries["a.jsonl"].digest
    assert parse_cache({**data, "renderer": "other"}, str(layout.export)) == {}
    assert parse_cache({"schema": 1, "renderer": data["renderer"], "transcripts": {"a": 5}}, "x") == {}


def test_a_large_export_is_not_kept_in_memory_and_written_by_rendering_again(layout: Layout) -> None:
    words = " ".join(["word"] * 60)
    layout.transcript("big.jsonl", *[words] * (KEEP_RENDERED_BYTES // len(words) + 10))
    plan = layout.plan()
    (target,) = plan.targets
    assert target.data is None and target.size > KEEP_RENDERED_BYTES
    apply_session_export(plan)
    written = (layout.export / "big.md").read_bytes()
    assert len(written) == target.size
    assert written.startswith(b"# Session big\n\nUser: word word")


def test_a_50_mb_line_is_skipped_without_being_held_whole(layout: Layout) -> None:
    """A transcript line over the 16 MiB cap is read in 1 MiB steps and dropped: the exporting process
    stays far below the size of the line (the former exporter read the whole file, then decoded it)."""
    import subprocess
    import sys
    import textwrap

    from tests.conftest import REPO_ROOT

    path = layout.sessions / "big.jsonl"
    with path.open("w", encoding="utf-8") as out:
        out.write(record("before"))
        out.write('{"type":"message","message":{"role":"user","content":"')
        for _ in range(50):
            out.write("x" * 1_000_000)
        out.write('"}}\n')
        out.write(record("after"))
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from memwarm_cli.backends.sessions.session_export import apply_session_export, plan_session_export
        plan = plan_session_export(Path({str(layout.sessions)!r}), Path({str(layout.export)!r}),
                                   retention_days=None, now_ms=0, agent_qmd_dir=None)
        apply_session_export(plan)
        print([note.reason for note in plan.skipped_lines])
        print(next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")) // 1024)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    skipped, peak_mib = done.stdout.splitlines()
    assert skipped == "['line 2 is longer than 16777216 bytes: skipped unread']"
    assert int(peak_mib) < 80  # the interpreter, the 16 MiB it reads before it knows, one 1 MiB step
    assert (layout.export / "big.md").read_text() == "# Session big\n\nUser: before\nUser: after\n"
