"""qmd output parsing, glob matching for fingerprints, the version cache and file locks (no qmd needed)."""

from __future__ import annotations

import os
from pathlib import Path

from memwarm_cli.backends import fingerprint as fp
from memwarm_cli.backends import process, qmdcli
from memwarm_cli.backends.locks import FileLock
from memwarm_cli.backends.qmd_collections import CollectionSpec

LIST_TEXT = """Collections (2):

memory-dir-main (qmd://memory-dir-main/)
  Pattern:  **/*.md
  Files:    1
  Updated:  1s ago

memory-root-main (qmd://memory-root-main/)
  Pattern:  MEMORY.md
  Files:    1
  Updated:  1s ago
"""

CONFLICT = """A collection already exists for this path and pattern:
  Name: memory-alt-main (qmd://memory-alt-main/)
  Pattern: MEMORY.md

Use 'qmd update' to re-index it, or remove it first with 'qmd collection remove memory-alt-main'
"""


def test_collection_list_text_and_json() -> None:
    listed = qmdcli.parse_collection_list(LIST_TEXT)
    assert set(listed) == {"memory-dir-main", "memory-root-main"}
    assert listed["memory-dir-main"].pattern == "**/*.md"
    assert listed["memory-dir-main"].path is None
    as_json = qmdcli.parse_collection_list('[{"name": "a", "path": "/x", "mask": "*.md"}, "b"]')
    assert as_json["a"] == qmdcli.ListedCollection("a", "/x", "*.md")
    assert as_json["b"].path is None


def test_index_yml_fills_in_paths(tmp_path: Path) -> None:
    yml = tmp_path / "index.yml"
    yml.write_text("collections:\n  memory-dir-main:\n    path: /ws/memory\n    pattern: '**/*.md'\n")
    merged = qmdcli.merge_listing(qmdcli.parse_collection_list(LIST_TEXT), qmdcli.read_index_yml(yml))
    assert merged["memory-dir-main"].path == "/ws/memory"
    assert merged["memory-root-main"].path is None  # unknown: never rebound
    assert qmdcli.read_index_yml(tmp_path / "missing.yml") == {}
    (tmp_path / "bad.yml").write_text("collections: [\n")
    assert qmdcli.read_index_yml(tmp_path / "bad.yml") == {}


def test_error_classification() -> None:
    assert qmdcli.conflicting_collection(CONFLICT) == "memory-alt-main"
    assert qmdcli.conflicting_collection("Collection 'x' already exists.") is None
    assert qmdcli.is_name_taken("Collection 'x' already exists.\nUse a different name")
    assert not qmdcli.is_name_taken(CONFLICT)
    assert qmdcli.is_retryable_update_error("SqliteError: SQLITE_BUSY: database is locked")
    assert qmdcli.is_retryable_update_error("qmd update timed out after 120000ms")
    assert not qmdcli.is_retryable_update_error("qmd update failed (code 1): boom")
    assert qmdcli.parse_version("qmd 2.8.3 (facd35e)\n") == "qmd 2.8.3 (facd35e)"


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


def test_version_cache_follows_the_executable(tmp_path: Path) -> None:
    exe = tmp_path / "bin" / "qmd"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    first = fp.executable_identity(str(exe))
    assert first is not None
    cache = tmp_path / "cache.json"
    fp.store_version(cache, first, "qmd 1")
    assert fp.read_version_cache(cache) == {first: "qmd 1"}
    (tmp_path / "package.json").write_text("{}")  # a reinstall next to it changes the identity
    assert fp.executable_identity(str(exe)) != first
    os.utime(exe, ns=(1, 1))
    assert fp.executable_identity(str(exe)) != first


def test_file_lock_excludes_a_second_holder(tmp_path: Path) -> None:
    path = tmp_path / "x" / "lock"
    first, second = FileLock(path), FileLock(path)
    assert first.try_acquire()
    assert not second.try_acquire()
    first.release()
    assert second.try_acquire()
    second.release()


def test_run_command_clamps_a_timeout_poll_would_refuse(tmp_path: Path) -> None:
    """Above 2**31-1 ms poll() raised "timeout is too large"; Node's setTimeout caps there too."""
    assert process.clamp_timeout_ms(3e9) == process.clamp_timeout_ms(float("inf")) == 2**31 - 1
    assert process.clamp_timeout_ms(0.2) == 1
    assert process.timeout_ms_from_seconds(1e308) == 2**31 - 1
    assert process.timeout_ms_from_seconds(0.3) == 300
    result = process.run_command(
        "true",
        [],
        env={"PATH": "/usr/bin:/bin"},
        cwd=tmp_path,
        timeout_ms=10**15,
        token=process.CancelToken(),
    )
    assert (result.exit_code, result.timeout_ms) == (0, 2**31 - 1)
