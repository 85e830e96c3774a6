"""Freshness judged from qmd's index itself (index_check.py, freshness.py), against indexes the real qmd
2.8.3 built (tools/bin/qmd): content hashes as qmd records them, the mtime fast path, whitespace-only
and undecodable files, pending embeddings, and memwarm's record as a cache that never decides alone."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from memwarm_cli.backends.freshness import fingerprint as fp
from memwarm_cli.backends.freshness import index_check
from memwarm_cli.backends.freshness.export_check import FreshnessJob
from memwarm_cli.backends.freshness.freshness import judge
from memwarm_cli.backends.freshness.index_check import check_collection, content_hash, js_mtime_ms
from memwarm_cli.backends.freshness.qmd_glob import compile_mask
from memwarm_cli.backends.qmd.index_stats import index_identity, open_index, read_index_stats
from memwarm_cli.backends.settings.agent_backend import resolve_agent_backend
from memwarm_cli.profiles.releases import P0
from tests.conftest import require_tool

NOTES = {
    "top.md": "# Top\nzebra\n",
    "a/deep.md": "# Deep\nokapi\n",
    "bom.md": "\ufeff# Bom\nwith a byte order mark\n",
    "UPPER.MD": "not matched\n",
    "empty.md": "  \n",
    ".dot.md": "hidden\n",
    "node_modules/x/n.md": "excluded\n",
}
BAD = b"# Bad\n\xff\xfe broken \xc3( utf-8 \xed\xa0\x80 surrogate\n"


def qmd(env: dict[str, str], cwd: Path, *args: str) -> None:
    proc = subprocess.run(
        [str(require_tool("qmd")), *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr


@pytest.fixture
def indexed(tmp_path: Path) -> Iterator[tuple[Path, Path, dict[str, str]]]:
    """A tree and the index the real qmd built of it (collection `c`, `**/*.md`), in its own env."""
    root = tmp_path / "notes"
    for rel, text in NOTES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "bad.md").write_bytes(BAD)
    (root / "link.md").symlink_to(root / "top.md")
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "xc"),
        "XDG_CACHE_HOME": str(tmp_path / "xk"),
        "QMD_CONFIG_DIR": str(tmp_path / "xc" / "qmd"),
        "NO_COLOR": "1",
    }
    qmd(env, root, "collection", "add", str(root), "--name", "c", "--mask", "**/*.md")
    yield root, tmp_path / "xk" / "qmd" / "index.sqlite", env


def _check(root: Path, index: Path) -> index_check.FileChanges:
    matcher = compile_mask("**/*.md")
    assert matcher is not None
    with open_index(index) as db:
        return check_collection(db, "c", str(root), matcher).changes


@pytest.mark.qmd
def test_the_index_qmd_built_holds_every_file_with_its_hash(
    indexed: tuple[Path, Path, dict[str, str]],
) -> None:
    root, index, _ = indexed
    with sqlite3.connect(index) as db:
        rows = dict(db.execute("SELECT path, hash FROM documents WHERE active = 1"))
    assert sorted(rows) == ["a/deep.md", "bad.md", "bom.md", "top.md"]  # no link, hidden, excluded, blank
    for rel, stored in rows.items():
        assert content_hash(str(root / rel)) == stored, rel  # invalid UTF-8 and the BOM as qmd hashes them
    assert content_hash(str(root / "empty.md")) == index_check.WHITESPACE_ONLY
    assert _check(root, index).count == 0


@pytest.mark.qmd
def test_touched_files_are_read_once_changed_ones_are_stale(
    indexed: tuple[Path, Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch
) -> None:
    root, index, env = indexed
    read: list[str] = []
    real_hash = index_check.content_hash

    def counted(path: str) -> str | None:
        read.append(path)
        return real_hash(path)

    monkeypatch.setattr(index_check, "content_hash", counted)
    # Every mtime is the one qmd recorded: only the blank file, which has no row, is read (it is blank).
    assert _check(root, index).count == 0 and read == [str(root / "empty.md")]
    read.clear()
    os.utime(root / "top.md", ns=(0, (root / "top.md").stat().st_mtime_ns + 5_000_000_000))  # V6.2
    (root / "bom.md").write_text("  \n")  # V6.3: qmd leaves the old row
    assert _check(root, index).count == 0
    assert sorted(read) == [str(root / name) for name in ("bom.md", "empty.md", "top.md")]
    (root / "a" / "deep.md").write_text("# Deep\nokapi moved\n")
    (root / "new.md").write_text("# New\n")
    (root / "bad.md").unlink()
    changes = _check(root, index)
    assert (changes.added, changes.changed, changes.removed) == (1, 1, 1)
    assert changes.examples == (("new.md",), ("a/deep.md",), ("bad.md",))
    qmd(env, root, "update")  # the index refreshed after the edits: current again
    assert _check(root, index).count == 0


def test_mtimes_are_rounded_as_node_rounds_them(tmp_path: Path) -> None:
    node = require_tool("node")
    names = []
    for index, nsec in enumerate((0, 123_600_000, 560_499_943, 779_499_960, 499_499_529, 999_999_999)):
        path = tmp_path / f"f{index}"
        path.write_text("x")
        os.utime(path, ns=(0, 1_796_169_461 * 10**9 + nsec))
        names.append(str(path))
    script = (
        "const fs = require('fs');"
        "console.log(JSON.stringify(process.argv.slice(1).map((f) => fs.statSync(f).mtime.getTime())))"
    )
    proc = subprocess.run([str(node), "-e", script, *names], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert [js_mtime_ms(os.stat(name).st_mtime_ns) for name in names] == json.loads(proc.stdout)


def test_pending_embeddings_count_complete_vector_sets_of_the_current_model(tmp_path: Path) -> None:
    index = tmp_path / "index.sqlite"
    with sqlite3.connect(index) as db:
        db.execute("CREATE TABLE documents (collection TEXT, path TEXT, hash TEXT, active INTEGER)")
        db.execute(
            "CREATE TABLE content_vectors (hash TEXT, seq INTEGER, model TEXT, embed_fingerprint TEXT, "
            "total_chunks INTEGER, embedded_at TEXT)"
        )
        docs = [("c", f"{h}.md", h, 1) for h in ("whole", "partial", "old", "none")] + [
            ("c", "x.md", "gone", 0)
        ]
        db.executemany("INSERT INTO documents VALUES (?, ?, ?, ?)", docs)
        vectors = [
            ("whole", 0, "m2", "f2", 2, "2026-02-01"),
            ("whole", 1, "m2", "f2", 2, "2026-02-01"),
            ("partial", 0, "m2", "f2", 3, "2026-02-01"),  # 1 of 3 chunks
            ("old", 0, "m1", "f1", 1, "2026-01-01"),  # only the model embedded before
        ]
        db.executemany("INSERT INTO content_vectors VALUES (?, ?, ?, ?, ?, ?)", vectors)
    assert read_index_stats(index).pending_embeddings == {"c": 3}  # partial, old, none


def _settings(workspace: Path, state: Path) -> tuple[FreshnessJob, Path]:
    settings = resolve_agent_backend(
        {"memory": {"backend": "qmd"}}, "main", None, workspace, state, {}, profile=P0
    )
    assert settings.qmd is not None
    job = FreshnessJob(settings.qmd, settings.paths.index_path, workspace, 0)
    return job, settings.paths.index_path


@pytest.mark.qmd
def test_the_record_vouches_only_while_the_files_and_the_index_are_as_they_were(tmp_path: Path) -> None:
    workspace, state = tmp_path / "ws", tmp_path / "state"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "MEMORY.md").write_text("# M\n")
    (workspace / "memory" / "a.md").write_text("# A\n")
    job, index = _settings(workspace, state)
    assert [r.kind for r in judge(job).freshness.reasons] == ["index-missing"]
    qmd_dir = index.parent.parent.parent
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(qmd_dir / "xdg-config"),
        "XDG_CACHE_HOME": str(qmd_dir / "xdg-cache"),
        "QMD_CONFIG_DIR": str(qmd_dir / "xdg-config" / "qmd"),
    }
    qmd(
        env,
        workspace,
        "collection",
        "add",
        str(workspace),
        "--name",
        "memory-root-main",
        "--mask",
        "MEMORY.md",
    )
    qmd(env, workspace, "collection", "add", str(workspace / "memory"), "--name", "memory-dir-main")
    judged = judge(job)
    assert judged.freshness.fresh and not judged.freshness.from_record  # from the index: no record yet
    identity = index_identity(index)
    assert identity is not None
    parts = judged.snapshot.parts(fp.sha256_text(identity))
    stored = fp.StoredFingerprint(
        parts.digest(), 1.0, True, 0, ("memory-root-main", "memory-dir-main"), 2, parts=parts
    )
    vouched = judge(FreshnessJob(job.qmd, index, workspace, 0, stored))
    assert vouched.freshness.fresh and vouched.freshness.from_record

    # A record is never the truth: the index written since (a collection removed) is read again.
    qmd(env, workspace, "collection", "remove", "memory-root-main")
    again = judge(FreshnessJob(job.qmd, index, workspace, 0, stored))
    assert [r.kind for r in again.freshness.reasons] == ["unregistered"] and not again.freshness.from_record
