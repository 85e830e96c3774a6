"""Fingerprints: glob matching like qmd's indexer, snapshots and their digests, the stored file."""

from __future__ import annotations

import json
import pickle
import time
from pathlib import Path

import pytest

from memwarm_cli.backends.freshness import file_walk
from memwarm_cli.backends.freshness import fingerprint as fp
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.backends.state.state_files import StatePath


def test_glob_masks_match_like_qmd() -> None:
    def matches(pattern: str, path: str) -> bool:
        regex = file_walk.glob_regex(pattern)
        assert regex is not None
        return regex.match(path) is not None

    assert matches("**/*.md", "a.md") and matches("**/*.md", "x/y/a.md")
    assert not matches("**/*.md", "a.txt")
    assert matches("MEMORY.md", "MEMORY.md") and not matches("MEMORY.md", "sub/MEMORY.md")
    assert matches("*.{md,txt}", "a.txt") and not matches("*.{md,txt}", "d/a.txt")
    assert matches("notes/**", "notes/a/b.md")
    assert file_walk.split_glob_mask("a.md,*.txt,{x,y}.md") == ["a.md", "*.txt", "{x,y}.md"]
    assert file_walk.glob_regex("!(x)") is None  # unsure: match everything


def test_collection_files_skip_what_qmd_skips(tmp_path: Path) -> None:
    for rel in ("a.md", "sub/b.md", ".hidden/c.md", "node_modules/d.md", "build/e.md", "f.txt", ".g.md"):
        target = tmp_path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(rel)
    spec = CollectionSpec("c", tmp_path, "**/*.md", "custom", "test")
    assert [f[0] for f in file_walk.collection_files(spec)] == ["a.md", "sub/b.md"]
    root_only = CollectionSpec("r", tmp_path, "*.md", "custom", "test")
    assert [f[0] for f in file_walk.collection_files(root_only)] == ["a.md"]


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
    path = StatePath.of(tmp_path, tmp_path / "qmd" / fp.FINGERPRINT_NAME)
    stored = fp.StoredFingerprint("d" * 64, 12.5, False, 2, ("a", "b"), 7)
    fp.write_fingerprint(path, stored)
    assert fp.read_fingerprint(path) == stored
    path.path.write_text("{not json")
    assert fp.read_fingerprint(path) is None
    assert [fp.embed_backoff_seconds(n) for n in (0, 1, 2, 7, 8)] == [0, 60, 120, 3600, 3600]


def _stored_json(**overrides: object) -> dict[str, object]:
    data: dict[str, object] = {
        "version": 2,
        "digest": "b" * 64,
        "recordedAt": 100.0,
        "vectorsCurrent": True,
        "embedFailures": 0,
        "managedCollections": ["memory-root-main"],
        "fileCount": 3,
        "embedFailedAt": 0,
    }
    data.update(overrides)
    return data


@pytest.mark.parametrize(
    ("overrides", "problem"),
    [
        ({"embedFailures": "3"}, "embedFailures is not a number"),
        ({"embedFailures": None}, "embedFailures is not a number"),
        ({"embedFailures": True}, "embedFailures is not a number"),
        ({"embedFailures": -1}, "embedFailures is not a finite number >= 0"),
        ({"recordedAt": 10**400}, "recordedAt is not a finite number"),
        ({"fileCount": [1]}, "fileCount is not a number"),
        ({"digest": 5}, "digest is not a sha256 in hex"),
        ({"digest": "../../etc"}, "digest is not a sha256 in hex"),
        ({"vectorsCurrent": "yes"}, "vectorsCurrent is not true or false"),
        ({"managedCollections": "memory-root-main"}, "managedCollections is not a list of collection names"),
        ({"managedCollections": [1]}, "managedCollections is not a list of collection names"),
        ({"version": "2"}, "version is not an integer"),
    ],
)
def test_an_invalid_fingerprint_is_discarded_with_one_warning(
    tmp_path: Path, overrides: dict[str, object], problem: str
) -> None:
    """These raised ValueError/TypeError (int("3") is fine, int(None) is not...) and failed the agent."""
    path = StatePath.of(tmp_path, tmp_path / fp.FINGERPRINT_NAME)
    path.path.write_text(json.dumps(_stored_json(**overrides)))  # 10**400 is written as 400 digits
    warnings: list[str] = []
    assert fp.read_fingerprint(path, warnings.append) is None
    assert warnings == [f"ignoring {path.path}: {problem}; continuing as if it were absent"]


def test_absurd_numbers_are_clamped_not_computed(tmp_path: Path) -> None:
    """embedFailures 1e14 made the backoff compute 2**(1e14-1): minutes of CPU and gigabytes."""
    path = StatePath.of(tmp_path, tmp_path / fp.FINGERPRINT_NAME)
    path.path.write_text(json.dumps(_stored_json(embedFailures=1e14, embedFailedAt=1e300, recordedAt=1e300)))
    stored = fp.read_fingerprint(path)
    assert stored is not None
    assert stored.embed_failures == fp.MAX_EMBED_FAILURES
    assert stored.embed_failed_at <= fp.now() and stored.recorded_at <= fp.now()  # not in the future
    started = time.monotonic()
    assert fp.embed_backoff_seconds(10**14) == 3600
    took = time.monotonic() - started
    assert took < 10, f"{took:.1f} s (bound sized for load 10 on 2 cores; computing 2**(1e14-1) took minutes)"


def test_another_format_version_is_ignored_quietly(tmp_path: Path) -> None:
    path = StatePath.of(tmp_path, tmp_path / fp.FINGERPRINT_NAME)
    path.path.write_text(json.dumps(_stored_json(version=1)))
    warnings: list[str] = []
    assert fp.read_fingerprint(path, warnings.append) is None
    assert warnings == []


def test_a_snapshot_crosses_a_fork_packed_and_comes_back_equal() -> None:
    """forked_map pickles each walked snapshot: file lists travel as flat columns and are unpacked only
    when read; the digests computed in the walker come along, so a fresh run never unpacks a list."""
    files = [("a.md", 3, 1_700_000_000_000_000_000), ("caf\udce9.md", 0, -5), ("sub/b.md", 2**40, 0)]
    snapshot = fp.Snapshot({"searchMode": "search"}, "qmd 2.8.3", {"dir": files, "gone": None, "empty": []})
    parts = snapshot.parts(None)
    back = pickle.loads(pickle.dumps(snapshot))
    assert back._digests == snapshot._digests
    assert not back.files._lists  # type: ignore[attr-defined]  # nothing unpacked yet
    assert back.parts(None) == parts
    assert back == snapshot and dict(back.files) == {"dir": files, "gone": None, "empty": []}
    assert back.file_count == 3 and back.with_version("v2").files["dir"] == files
