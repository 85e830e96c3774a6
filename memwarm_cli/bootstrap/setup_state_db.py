"""Whether the workspace's setup is completed, read from OpenClaw's SQLite state store (2026.8.1+).

From 2026.8.1 a completed setup (which hides BOOTSTRAP.md) is a row of the shared state database
`<stateDir>/state/openclaw.sqlite`, table `workspace_setup_state` (`setup_completed_at`), keyed by the
sha256 hex of the workspace's canonical path; `workspace_path_aliases` maps the key of a lexical path
(one reached through a symlink) to the canonical row. `openclaw doctor --fix` writes it when it imports
a legacy `.openclaw/workspace-state.json`; onboarding writes it when BOOTSTRAP.md is consumed.

This follows 2026.9.6's `readWorkspaceStateSnapshot(dir, {readOnly: true})` and
`isWorkspaceSetupCompletedForContext` (dist workspace-state-store-*.mjs, bootstrap-files-*.mjs): one
deferred read transaction, the alias and row checks it makes, and "any error counts as not completed"
(the release catches every error there). Read only: `mode=ro`, one short transaction, nothing written.
A database whose `-wal` is absent or empty (as OpenClaw leaves it between runs) is opened `immutable=1`:
a read-only connection to a WAL database would create `-wal`/`-shm` where they are absent and write its
read mark into `-shm`; with an empty WAL the main file holds every committed row. Only while the WAL holds
frames (an OpenClaw writer is at work) is it read through the WAL, and then the read mark is SQLite's one
unavoidable touch of `-shm` (OpenClaw's own readers make it too).
"""

from __future__ import annotations

import hashlib
import os
import re
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from urllib.parse import quote

from memwarm_cli.bootstrap.workspace_state import SetupState, canonical_workspace
from memwarm_cli.config.paths import resolve_state_dir
from memwarm_cli.datetime_types import datetime
from memwarm_cli.jsstring import js_trim
from memwarm_cli.sqlite_driver import sqlite3

STATE_DB_RELATIVE = os.path.join("state", "openclaw.sqlite")
SETUP_VERSION = 1
BUSY_TIMEOUT_S = 5.0  # readers never wait for OpenClaw's writers under WAL; this only bounds a recovery
_ISO = re.compile(r"(?:\d{4}|[+-]\d{6})-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z")
_SHA256_HEX = re.compile(r"[a-f0-9]{64}")
_ATTESTATION_NAME = re.compile(r"[A-Za-z0-9._-]+\.md")
_RESERVED_STEMS = re.compile(r"(?:con|prn|aux|nul|com[0-9]|lpt[0-9])", re.IGNORECASE)
_MAX_SAFE_INTEGER = 2**53 - 1


class _Unreadable(Exception):
    """What the release throws on (and its context builder then counts as "not completed")."""


def state_db_path(state_dir: str | os.PathLike[str]) -> Path:
    """`resolveOpenClawStateSqlitePath`: `<stateDir>/state/openclaw.sqlite`."""
    return Path(state_dir) / STATE_DB_RELATIVE


def _identity(path: str) -> tuple[str, str]:
    """`createWorkspaceStateIdentity`: (path, sha256 hex of its UTF-8)."""
    return path, hashlib.sha256(path.encode("utf-8", "surrogatepass")).hexdigest()


def workspace_identities(workspace: str) -> list[tuple[str, str]]:
    """`resolveWorkspaceStateAliases`: the lexical path, then the canonical one (links resolved), both
    normalized and NFC, de-duplicated; the last is the canonical identity."""
    lexical = unicodedata.normalize("NFC", os.path.normpath(os.path.abspath(workspace)))
    paths = dict.fromkeys((lexical, canonical_workspace(workspace)))
    return [_identity(path) for path in paths]


def _canonical_iso(value: object) -> bool:
    """`new Date(value).toISOString() === value`."""
    if not isinstance(value, str) or not _ISO.fullmatch(value):
        return False
    if value[0] in "+-":
        return value != "-000000" + value[7:] and _valid_date("2000" + value[7:])
    return _valid_date(value)


def _valid_date(value: str) -> bool:
    try:
        datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ")
    except ValueError:
        return value[:4] == "0000" and _valid_date("2000" + value[4:])  # strptime has no year 0
    return True


def _check_timestamp(value: object) -> None:
    if value is not None and not _canonical_iso(value):
        raise _Unreadable("workspace timestamp is invalid")


def _check_integer_timestamp(value: object) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= _MAX_SAFE_INTEGER:
        raise _Unreadable("workspace integer timestamp is invalid")


def _resolve_identity(db: sqlite3.Connection, workspace: str) -> tuple[str, str]:
    """`resolveWorkspaceIdentityFromDatabase`: a stored alias row names the canonical row, else the
    workspace's own canonical identity."""
    aliases = workspace_identities(workspace)
    canonical = aliases[-1]
    by_key = {key: path for path, key in aliases}
    marks = ",".join("?" * len(by_key))
    rows = db.execute(
        "SELECT alias_key, alias_path, workspace_key, workspace_path FROM workspace_path_aliases "
        f"WHERE alias_key IN ({marks})",
        list(by_key),
    ).fetchall()
    stored: tuple[str, str] | None = None
    for alias_key, alias_path, workspace_key, workspace_path in rows:
        if by_key.get(alias_key) != alias_path:
            raise _Unreadable("workspace path alias key collision")
        row_identity = _identity(workspace_path)
        if row_identity[1] != workspace_key:
            raise _Unreadable("workspace path alias target is invalid")
        if os.path.lexists(workspace) and row_identity[1] != canonical[1]:
            raise _Unreadable("workspace path alias points to a different current target")
        if stored is not None and stored[1] != row_identity[1]:
            raise _Unreadable("workspace path aliases resolve to conflicting state")
        stored = row_identity
    return stored or canonical


def _completion(db: sqlite3.Connection, workspace: str) -> str | None:
    """`readWorkspaceStateSnapshotFromDatabase(...).setup.setupCompletedAt`, with its checks."""
    path, key = _resolve_identity(db, workspace)
    row = db.execute(
        "SELECT workspace_path, version, bootstrap_seeded_at, setup_completed_at, updated_at, "
        "attested_at_ms FROM workspace_setup_state WHERE workspace_key = ?",
        (key,),
    ).fetchone()
    if row is None:
        return None
    row_path, version, seeded_at, completed_at, updated_at, attested_at = row
    if row_path is not None and row_path != path:
        raise _Unreadable("workspace state key collision")
    if version is not None:
        if version != SETUP_VERSION:
            raise _Unreadable(f"unsupported workspace setup version {version}")
        _check_timestamp(seeded_at)
        _check_timestamp(completed_at)
        if updated_at is None:
            raise _Unreadable("workspace setup update timestamp is invalid")
        _check_integer_timestamp(updated_at)
    if attested_at is not None:
        _check_integer_timestamp(attested_at)
        hashes = db.execute(
            "SELECT filename, sha256 FROM workspace_generated_bootstrap_hashes WHERE workspace_key = ?",
            (key,),
        ).fetchall()
        for filename, digest in hashes:
            if not _attestation_name_ok(filename) or not _SHA256_HEX.fullmatch(str(digest)):
                raise _Unreadable("workspace attestation hash row is invalid")
    return completed_at if isinstance(completed_at, str) and completed_at else None


def _attestation_name_ok(filename: object) -> bool:
    return (
        isinstance(filename, str)
        and len(filename) <= 255
        and _ATTESTATION_NAME.fullmatch(filename) is not None
        and not filename.startswith(".")
        and not _RESERVED_STEMS.fullmatch(filename.split(".")[0])
    )


def _wal_in_use(db_path: Path) -> bool:
    """A non-empty `-wal` beside its `-shm`: committed rows may be in the WAL, so read through it."""
    try:
        return os.stat(f"{db_path}-wal").st_size > 0 and os.path.exists(f"{db_path}-shm")
    except OSError:
        return False


def _connect(db_path: Path) -> sqlite3.Connection:
    """Read only; `immutable=1` unless the WAL holds something: a read-only open of a WAL database would
    create `-wal`/`-shm` where they are absent and writes its read mark into `-shm`."""
    uri = f"file:{quote(str(db_path))}?mode=ro" + ("" if _wal_in_use(db_path) else "&immutable=1")
    return sqlite3.connect(uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None)


def read_setup_state_db(workspace: str, state_dir: str | os.PathLike[str]) -> SetupState:
    """SetupState from the state store (source: the database's path). No database, no row, or any
    read error: not completed, as the release's context builder decides."""
    db_path = state_db_path(state_dir)
    if not db_path.is_file():
        return SetupState(False, None, None)
    source = str(db_path)
    try:
        db = _connect(db_path)
    except sqlite3.Error:
        return SetupState(False, source, None)
    try:
        db.execute("BEGIN")  # one deferred read transaction: one snapshot, released at once
        try:
            marker = _completion(db, workspace)
        finally:
            db.execute("ROLLBACK")
    except (sqlite3.Error, _Unreadable, OSError, ValueError):
        return SetupState(False, source, None)
    finally:
        db.close()
    return SetupState(marker is not None and bool(js_trim(marker)), source, marker)


def read_setup_state_from_env(workspace: str, env: Mapping[str, str]) -> SetupState:
    """The state store of the run's state dir (`OPENCLAW_STATE_DIR`, else the default)."""
    return read_setup_state_db(workspace, resolve_state_dir(env))
