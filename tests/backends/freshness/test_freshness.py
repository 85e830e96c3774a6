"""Freshness: the one judgement init-backends and status share, and its reasons part by part."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

from memwarm_cli.backends.freshness import fingerprint as fp
from memwarm_cli.backends.freshness.freshness import (
    Freshness,
    file_list_path,
    judge_freshness,
    read_file_lists,
    write_file_lists,
)
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.backends.state.state_files import StatePath

YML = "a" * 64  # the digest of qmd's index.yml


def _spec(root: Path) -> CollectionSpec:
    return CollectionSpec("memory-dir-main", root, "**/*.md", "default", "test")


def _record(snapshot: fp.Snapshot, tmp_path: Path) -> tuple[fp.StoredFingerprint, StatePath]:
    """What a successful run records: the file lists, then the fingerprint with its parts."""
    parts = snapshot.parts(YML)
    path = StatePath.of(tmp_path, tmp_path / "state" / fp.FINGERPRINT_NAME)
    write_file_lists(file_list_path(path), snapshot, parts)
    stored = fp.StoredFingerprint(parts.digest(), 1.0, True, 0, tuple(snapshot.files), 0, parts=parts)
    fp.write_fingerprint(path, stored)
    read = fp.read_fingerprint(path)
    assert read == stored  # the parts survive the round trip
    return stored, path


def _judge(
    snapshot: fp.Snapshot, stored: fp.StoredFingerprint | None, path: StatePath, *, index_present: bool = True
) -> Freshness:
    return judge_freshness(
        snapshot,
        stored,
        index_present=index_present,
        index_yml_digest=YML,
        explain=True,
        load_file_lists=lambda parts: read_file_lists(file_list_path(path), parts),
    )


def _notes(root: Path, *names: str) -> None:
    root.mkdir(parents=True, exist_ok=True)
    for index, name in enumerate(names):
        (root / name).write_text(f"note {name}")
        os.utime(root / name, (1_000_000 + index, 1_000_000 + index))


def test_a_matching_fingerprint_is_fresh_and_every_change_is_named(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    _notes(memory, "a.md", "b.md", "c.md")
    spec = _spec(memory)
    stored, path = _record(fp.take_snapshot({"k": 1}, "qmd 1", [spec]), tmp_path)
    fresh = _judge(fp.take_snapshot({"k": 1}, "qmd 1", [spec]), stored, path)
    assert fresh == judge_freshness(
        fp.take_snapshot({"k": 1}, "qmd 1", [spec]),
        stored,
        index_present=True,
        index_yml_digest=YML,
        explain=False,
    )
    assert fresh.fresh and fresh.reasons == ()

    (memory / "d.md").write_text("new")
    (memory / "b.md").write_text("changed, longer")
    (memory / "c.md").unlink()
    now = _judge(fp.take_snapshot({"k": 2}, "qmd 2", [spec]), stored, path)
    assert not now.fresh
    kinds = [r.kind for r in now.reasons]
    assert kinds == ["settings", "qmd-version", "files"]
    files = now.reasons[2].changes
    assert files is not None
    assert (files.added, files.changed, files.removed) == (("d.md",), ("b.md",), ("c.md",))
    assert now.stale_files == 3
    assert now.reasons[1].text == "the qmd version changed (qmd 1 -> qmd 2)"
    assert now.reasons[2].text == ("memory-dir-main: 1 added (d.md); 1 changed (b.md); 1 removed (c.md)")


def test_without_explain_a_mismatch_carries_no_reasons(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    _notes(memory, "a.md")
    stored, _ = _record(fp.take_snapshot({}, "qmd 1", [_spec(memory)]), tmp_path)
    (memory / "b.md").write_text("x")

    def fail(_parts: fp.FingerprintParts) -> None:
        raise AssertionError("init-backends must not read the file lists")

    verdict = judge_freshness(
        fp.take_snapshot({}, "qmd 1", [_spec(memory)]),
        stored,
        index_present=True,
        index_yml_digest=YML,
        explain=False,
        load_file_lists=fail,
    )
    assert not verdict.fresh and verdict.reasons == ()


def test_missing_index_unsuccessful_run_and_no_record(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    _notes(memory, "a.md")
    snapshot = fp.take_snapshot({}, "qmd 1", [_spec(memory)])
    stored, path = _record(snapshot, tmp_path)
    missing = _judge(snapshot, stored, path, index_present=False)
    assert [r.kind for r in missing.reasons] == ["index-missing"]
    failed_probe = replace(stored, digest=fp.UNSUCCESSFUL_DIGEST)
    assert [r.kind for r in _judge(snapshot, failed_probe, path).reasons] == ["unsuccessful"]
    assert [r.kind for r in _judge(snapshot, None, path).reasons] == ["no-record"]


def test_a_directory_appearing_and_lists_of_another_run(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    snapshot = fp.take_snapshot({}, "qmd 1", [_spec(memory)])
    stored, path = _record(snapshot, tmp_path)
    _notes(memory, "a.md")
    appeared = _judge(fp.take_snapshot({}, "qmd 1", [_spec(memory)]), stored, path)
    assert [r.kind for r in appeared.reasons] == ["directory-appeared"]

    # Lists written for another fingerprint are not used: the change is named without its files.
    other = fp.take_snapshot({"other": True}, "qmd 1", [_spec(memory)])
    write_file_lists(file_list_path(path), other, other.parts(YML))
    (memory / "b.md").write_text("x")
    stored_with_files = replace(stored, parts=fp.take_snapshot({}, "qmd 1", [_spec(memory)]).parts(YML))
    (memory / "c.md").write_text("y")
    unknown = _judge(fp.take_snapshot({}, "qmd 1", [_spec(memory)]), stored_with_files, path)
    (reason,) = unknown.reasons
    assert reason.kind == "files" and reason.changes is not None and reason.changes.known is False
    assert "not available" in reason.text


def test_file_lists_keep_names_that_are_not_utf8(tmp_path: Path) -> None:
    memory = tmp_path / "memory"
    memory.mkdir()
    (memory / os.fsdecode(b"caf\xe9.md")).write_text("x")
    snapshot = fp.take_snapshot({}, "qmd 1", [_spec(memory)])
    path = StatePath.of(tmp_path, tmp_path / fp.FILE_LIST_NAME)
    parts = snapshot.parts(None)
    write_file_lists(path, snapshot, parts)
    stored = read_file_lists(path, parts)
    assert stored is not None and stored.collections == dict(snapshot.files)
