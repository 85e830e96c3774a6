"""Fingerprints: glob matching like qmd's indexer, snapshots and their digests, the stored file."""

from __future__ import annotations

import json
import pickle
import re
import time
from pathlib import Path

import pytest

from memwarm_cli.backends.freshness import file_walk
from memwarm_cli.backends.freshness import fingerprint as fp
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.backends.state.state_files import StatePath


def _snapshot(spec: CollectionSpec) -> fp.Snapshot:
    digest, count = file_walk.collection_digest(spec)
    return fp.Snapshot("s" * 64, "qmd 2.8.3", {spec.name: digest}, None, {spec.name: count}, (spec,))


def test_a_collections_part_changes_with_its_files_and_its_directory_appearing(tmp_path: Path) -> None:
    spec = CollectionSpec("memory-dir-main", tmp_path / "memory", "**/*.md", "default", "t")
    missing = _snapshot(spec)
    assert missing.collections == {spec.name: None} and missing.file_count == 0
    (tmp_path / "memory").mkdir()
    empty = _snapshot(spec)
    assert empty.parts("i" * 64).digest() != missing.parts("i" * 64).digest()
    (tmp_path / "memory" / "n.md").write_text("note")
    one = _snapshot(spec)
    assert one.file_count == 1 and one.parts("i" * 64).digest() != empty.parts("i" * 64).digest()
    # The index's identity is a part: the same files under an index written since match nothing.
    assert one.parts("i" * 64).digest() != one.parts("j" * 64).digest()


def test_a_collection_taken_again_after_the_export_gets_the_digest_the_walk_gives(tmp_path: Path) -> None:
    spec = CollectionSpec("sessions-main", tmp_path / "exports", "**/*.md", "sessions", "t")
    (tmp_path / "exports").mkdir()
    before = _snapshot(spec)
    (tmp_path / "exports" / "s1.md").write_text("# Session s1\n")
    after = before.with_collection(spec.name, file_walk.snapshot_collection(spec))
    assert after.collections == _snapshot(spec).collections and after.file_count == 1
    assert after.files[spec.name] == file_walk.collection_files(spec)


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


def test_a_snapshot_crosses_a_fork_with_its_digests_and_no_file_list(tmp_path: Path) -> None:
    """forked_map pickles each judgement: the parts travel, the files do not (walked again only when
    `--probe` asks for them)."""
    (tmp_path / "a.md").write_text("x")
    spec = CollectionSpec("c", tmp_path, "**/*.md", "custom", "t")
    snapshot = _snapshot(spec)
    back = pickle.loads(pickle.dumps(snapshot))
    assert back == snapshot and back.parts(None) == snapshot.parts(None)
    assert len(pickle.dumps(snapshot)) < 2000
    assert dict(back.files) == {"c": file_walk.collection_files(spec)}


def test_a_record_with_parts_and_the_index_identity_round_trips(tmp_path: Path) -> None:
    path = StatePath.of(tmp_path, tmp_path / fp.FINGERPRINT_NAME)
    parts = fp.FingerprintParts("a" * 64, "qmd 2.8.3", "b" * 64, {"c": "d" * 64, "gone": None}, None)
    stored = fp.StoredFingerprint(parts.digest(), 1.0, True, 0, ("c",), 4, parts=parts)
    fp.write_fingerprint(path, stored)
    assert fp.read_fingerprint(path) == stored
    # An earlier memwarm's parts (index.yml's digest, no identity) read as a record that vouches for nothing.
    old = json.loads(path.path.read_text())
    old["parts"].pop("index")
    old["parts"]["indexYml"] = "e" * 64
    path.path.write_text(json.dumps(old))
    read = fp.read_fingerprint(path)
    assert read is not None and read.parts is not None and read.parts.index is None


@pytest.mark.parametrize(
    "text", ["a" * 64, "0123456789abcdef" * 4, "A" * 64, "a" * 63, "a" * 65, "g" * 64, "a" * 63 + "\n", ""]
)
def test_a_digest_is_what_its_expression_matched(text: str) -> None:
    """fingerprint reads a digest without compiling `[0-9a-f]{64}\\Z` (it says why): the same verdicts."""
    assert fp._is_digest(text) == bool(re.match(r"[0-9a-f]{64}\Z", text))
