"""Fingerprints: glob matching like qmd's indexer, snapshots and their digests, the stored file."""

from __future__ import annotations

from pathlib import Path

from memwarm_cli.backends import fingerprint as fp
from memwarm_cli.backends.qmd_collections import CollectionSpec


def test_glob_masks_match_like_qmd() -> None:
    def matches(pattern: str, path: str) -> bool:
        regex = fp.glob_regex(pattern)
        assert regex is not None
        return regex.match(path) is not None

    assert matches("**/*.md", "a.md") and matches("**/*.md", "x/y/a.md")
    assert not matches("**/*.md", "a.txt")
    assert matches("MEMORY.md", "MEMORY.md") and not matches("MEMORY.md", "sub/MEMORY.md")
    assert matches("*.{md,txt}", "a.txt") and not matches("*.{md,txt}", "d/a.txt")
    assert matches("notes/**", "notes/a/b.md")
    assert fp.split_glob_mask("a.md,*.txt,{x,y}.md") == ["a.md", "*.txt", "{x,y}.md"]
    assert fp.glob_regex("!(x)") is None  # unsure: match everything


def test_collection_files_skip_what_qmd_skips(tmp_path: Path) -> None:
    for rel in ("a.md", "sub/b.md", ".hidden/c.md", "node_modules/d.md", "build/e.md", "f.txt", ".g.md"):
        target = tmp_path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(rel)
    spec = CollectionSpec("c", tmp_path, "**/*.md", "custom", "test")
    assert [f[0] for f in fp.collection_files(spec)] == ["a.md", "sub/b.md"]
    root_only = CollectionSpec("r", tmp_path, "*.md", "custom", "test")
    assert [f[0] for f in fp.collection_files(root_only)] == ["a.md"]


def test_snapshot_digest_changes_with_files_and_settings(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("one")
    spec = CollectionSpec("c", tmp_path, "**/*.md", "custom", "test")
    first = fp.take_snapshot({"k": 1}, "qmd 1", [spec]).digest("yml")
    assert fp.take_snapshot({"k": 1}, "qmd 1", [spec]).digest("yml") == first
    assert fp.take_snapshot({"k": 2}, "qmd 1", [spec]).digest("yml") != first
    assert fp.take_snapshot({"k": 1}, "qmd 2", [spec]).digest("yml") != first
    assert fp.take_snapshot({"k": 1}, "qmd 1", [spec]).digest("other") != first
    (tmp_path / "a.md").write_text("two!")
    assert fp.take_snapshot({"k": 1}, "qmd 1", [spec]).digest("yml") != first


def test_snapshot_digest_notices_a_collection_directory_appearing(tmp_path: Path) -> None:
    """A missing memory/ gets no collection; its appearing (even empty) must make the next run act."""
    spec = CollectionSpec("c", tmp_path / "memory", "**/*.md", "default", "test")
    missing = fp.take_snapshot({"k": 1}, "qmd 1", [spec])
    assert missing.file_count == 0
    (tmp_path / "memory").mkdir()
    empty = fp.take_snapshot({"k": 1}, "qmd 1", [spec])
    assert empty.digest("yml") != missing.digest("yml")
    (tmp_path / "memory" / "n.md").write_text("note")
    assert fp.take_snapshot({"k": 1}, "qmd 1", [spec]).digest("yml") != empty.digest("yml")


def test_fingerprint_round_trip_and_backoff(tmp_path: Path) -> None:
    path = tmp_path / fp.FINGERPRINT_NAME
    stored = fp.StoredFingerprint("d", 12.5, False, 2, ("a", "b"), 7)
    fp.write_fingerprint(path, stored)
    assert fp.read_fingerprint(path) == stored
    path.write_text("{not json")
    assert fp.read_fingerprint(path) is None
    assert [fp.embed_backoff_seconds(n) for n in (0, 1, 2, 7, 8)] == [0, 60, 120, 3600, 3600]
