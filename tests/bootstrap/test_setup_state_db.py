"""Setup state read from OpenClaw's SQLite state store (2026.8.1+), read only.

The data is the store as openclaw@2026.9.6 itself wrote it: data/setup-state-2026.9.6.sqlite.gz, recorded
by scripts/record_setup_state_db.py (the release's `openclaw doctor --fix` imported four workspaces'
legacy `.openclaw/workspace-state.json`; data/setup-state-2026.9.6.json says under which root). Each test
unpacks it into its own state dir and moves the rows from the recorded root to its own workspaces (the
keys recomputed as the release computes them, sha256 of the path); tests/interop/test_setup_state_release.py
holds the same reads to the release itself, unmoved.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from memwarm_cli.bootstrap.context_plan import build_bootstrap_plan
from memwarm_cli.bootstrap.setup_state_db import read_setup_state_db, state_db_path, workspace_identities
from memwarm_cli.profiles.releases import P0, P3

DATA = Path(__file__).with_name("data")
SIDECAR = json.loads((DATA / "setup-state-2026.9.6.json").read_text(encoding="utf-8"))
RECORDED_ROOT: str = SIDECAR["recordedRoot"]
COMPLETED_AT = SIDECAR["legacyState"]["done"]["setupCompletedAt"]


def _key(path: str) -> str:
    return hashlib.sha256(path.encode()).hexdigest()


def _recorded_rows(tmp_path: Path) -> list[tuple[str, str]]:
    copy = tmp_path / "recorded.sqlite"
    copy.write_bytes(gzip.decompress((DATA / "setup-state-2026.9.6.sqlite.gz").read_bytes()))
    with sqlite3.connect(copy) as db:
        return db.execute("SELECT workspace_key, workspace_path FROM workspace_setup_state").fetchall()


class Store:
    """The recorded store under `tmp_path/state`, its rows moved to workspaces under `tmp_path`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.state_dir = root / "state"
        self.db = state_db_path(self.state_dir)
        self.db.parent.mkdir(parents=True)
        self.db.write_bytes(gzip.decompress((DATA / "setup-state-2026.9.6.sqlite.gz").read_bytes()))
        for agent in ("done", "seeded", "fresh"):
            (root / f"ws-{agent}").mkdir()
            (root / f"ws-{agent}" / "BOOTSTRAP.md").write_text("# Bootstrap\nSay hello.\n")
        (root / "real-linked").mkdir()
        (root / "ws-linked").symlink_to(root / "real-linked")
        db = sqlite3.connect(self.db, isolation_level=None)
        try:
            for table, key_path in (
                ("workspace_setup_state", [("workspace_key", "workspace_path")]),
                (
                    "workspace_path_aliases",
                    [("alias_key", "alias_path"), ("workspace_key", "workspace_path")],
                ),
            ):
                for key_column, path_column in key_path:
                    for (path,) in db.execute(f"SELECT DISTINCT {path_column} FROM {table}").fetchall():
                        moved = str(root) + path[len(RECORDED_ROOT) :]
                        db.execute(
                            f"UPDATE {table} SET {key_column} = ?, {path_column} = ? WHERE {path_column} = ?",
                            (_key(moved), moved, path),
                        )
        finally:
            db.close()  # the last connection: SQLite folds the WAL in and removes -wal and -shm

    def read(self, agent: str) -> tuple[bool, str | None, str | None]:
        return tuple(read_setup_state_db(str(self.root / f"ws-{agent}"), self.state_dir))  # type: ignore[return-value]

    def execute(self, sql: str, *args: object) -> None:
        db = sqlite3.connect(self.db, isolation_level=None)
        try:
            db.execute(sql, args)
        finally:
            db.close()


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path)


def test_the_recorded_keys_are_sha256_of_the_workspace_path(tmp_path: Path) -> None:
    rows = _recorded_rows(tmp_path)
    assert {path for _, path in rows} == {
        f"{RECORDED_ROOT}/{name}" for name in ("ws-done", "ws-seeded", "real-linked")
    }
    assert all(key == _key(path) for key, path in rows)
    assert all(key == workspace_identities(path)[-1][1] for key, path in rows if not path.endswith("linked"))


def test_completed_setup_is_read_from_the_store(store: Store) -> None:
    assert store.read("done") == (True, str(store.db), COMPLETED_AT)


def test_a_seeded_setup_is_not_completed(store: Store) -> None:
    assert store.read("seeded") == (False, str(store.db), None)


def test_a_workspace_without_a_row_is_not_completed(store: Store) -> None:
    assert store.read("fresh") == (False, str(store.db), None)


def test_a_workspace_named_through_a_symlink_finds_its_canonical_row(store: Store) -> None:
    """The release keys the row by the canonical path and records the link's path as an alias."""
    assert store.read("linked") == (True, str(store.db), COMPLETED_AT)
    store.execute("DELETE FROM workspace_path_aliases")
    assert store.read("linked") == (True, str(store.db), COMPLETED_AT)  # the canonical key alone


def test_no_store_means_not_completed_and_nothing_created(tmp_path: Path) -> None:
    assert read_setup_state_db(str(tmp_path), tmp_path / "state") == (False, None, None)
    assert not (tmp_path / "state").exists()


@pytest.mark.parametrize(
    ("sql", "why"),
    [
        ("UPDATE workspace_setup_state SET version = 2", "a setup version the release does not support"),
        (
            "UPDATE workspace_setup_state SET setup_completed_at = '2026-11-01T10:00:00Z'",
            "not toISOString's form",
        ),
        ("UPDATE workspace_setup_state SET setup_completed_at = '2026-02-30T10:00:00.000Z'", "no such day"),
        ("UPDATE workspace_setup_state SET updated_at = NULL", "no update time"),
        ("UPDATE workspace_setup_state SET workspace_path = workspace_path || '/x'", "key collision"),
        ("UPDATE workspace_path_aliases SET alias_path = alias_path || '/x'", "alias key collision"),
        ("DROP TABLE workspace_path_aliases", "no alias table"),
        ("UPDATE workspace_setup_state SET attested_at_ms = -1", "a negative attestation time"),
    ],
)
def test_what_the_release_throws_on_counts_as_not_completed(store: Store, sql: str, why: str) -> None:
    store.execute(sql)
    assert store.read("done") == (False, str(store.db), None), why


def test_an_attestation_only_row_with_a_completion_counts(store: Store) -> None:
    """A row without a version is not checked, and its setup_completed_at is still used, as the release
    spreads it into the snapshot."""
    store.execute("UPDATE workspace_setup_state SET version = NULL, setup_completed_at = 'whenever'")
    assert store.read("done") == (True, str(store.db), "whenever")


@pytest.mark.parametrize("leftovers", [False, True])
def test_reading_writes_nothing(store: Store, leftovers: bool) -> None:
    """No -wal/-shm, or the empty -wal and the -shm OpenClaw leaves between runs: read immutably, so no
    file appears and not one byte or mtime changes."""
    if leftovers:
        (store.db.parent / "openclaw.sqlite-wal").write_bytes(b"")
        (store.db.parent / "openclaw.sqlite-shm").write_bytes(bytes(32768))

    def snapshot() -> dict[str, tuple[int, bytes]]:
        return {p.name: (p.stat().st_mtime_ns, p.read_bytes()) for p in store.db.parent.iterdir()}

    before = snapshot()
    for agent in ("done", "seeded", "fresh", "linked"):
        store.read(agent)
    assert snapshot() == before
    assert store.read("done")[0]


def test_reading_beside_an_open_writer_sees_committed_rows(store: Store) -> None:
    """With OpenClaw's connection open and frames in the WAL, the read goes through the WAL."""
    writer = sqlite3.connect(store.db, isolation_level=None)
    try:
        writer.execute("PRAGMA journal_mode = WAL")
        writer.execute("PRAGMA wal_autocheckpoint = 0")
        writer.execute("UPDATE workspace_setup_state SET setup_completed_at = NULL")
        assert (store.db.parent / "openclaw.sqlite-wal").stat().st_size > 0
        assert store.read("done") == (False, str(store.db), None)
        writer.execute("UPDATE workspace_setup_state SET setup_completed_at = ?", (COMPLETED_AT,))
        assert store.read("done") == (True, str(store.db), COMPLETED_AT)
    finally:
        writer.close()


def test_a_completed_setup_hides_bootstrap_md_on_the_main_line_only(store: Store) -> None:
    env = {"OPENCLAW_STATE_DIR": str(store.state_dir), "HOME": str(store.root)}
    for agent, hidden in (("done", True), ("seeded", False), ("linked", True)):
        workspace = store.root / f"ws-{agent}"
        (workspace / "BOOTSTRAP.md").write_text("# Bootstrap\nSay hello.\n")
        plan = build_bootstrap_plan(workspace, {}, "agent:main:main", profile=P3, env=env, version="2026.9.6")
        names = [f.name for f in plan.files]
        assert ("BOOTSTRAP.md" not in names) is hidden, (agent, names)
        assert plan.bootstrap_mode == ("none" if hidden else "full")
        # 2026.6.35 reads workspace files only: the store means nothing there
        old = build_bootstrap_plan(workspace, {}, "agent:main:main", profile=P0, env=env, version="2026.6.35")
        assert "BOOTSTRAP.md" in [f.name for f in old.files] and not old.setup.completed
