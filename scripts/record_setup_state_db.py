"""Record tests/bootstrap/data/setup-state-2026.9.6.sqlite.gz: OpenClaw's state store as the released
openclaw@2026.9.6 itself writes it (`make interop` first: Node 24 and 9.6 in tools/).

The world is tests/interop/test_setup_state_release.py's: four workspaces with BOOTSTRAP.md under ROOT
(`done`: legacy setupCompletedAt; `seeded`: only bootstrapSeededAt; `fresh`: no legacy state; `linked`:
completed, its workspace named through the symlink ws-linked -> real-linked), and `openclaw doctor --fix
--non-interactive` imports the legacy `.openclaw/workspace-state.json` files into
`<stateDir>/state/openclaw.sqlite`. The database is copied page by page with SQLite's backup API (its
WAL folded in; no row changed) and gzipped; the root it was recorded under goes into the sidecar JSON, so
tests/bootstrap/test_setup_state_db.py can move the rows to its own temporary workspaces.

    .venv/bin/python scripts/record_setup_state_db.py
"""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from tests.interop.test_setup_state_release import LEGACY_STATE, build_setup_world  # noqa: E402

DATA = REPO / "tests" / "bootstrap" / "data"
ROOT = Path("/tmp/memwarm-setup-state-recording")


def main() -> None:
    shutil.rmtree(ROOT, ignore_errors=True)
    ROOT.mkdir(parents=True)
    world = build_setup_world(ROOT)
    source = world.state_dir / "state" / "openclaw.sqlite"
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "openclaw.sqlite"
        with sqlite3.connect(f"file:{source}?mode=ro", uri=True) as src, sqlite3.connect(copy) as dst:
            src.backup(dst)
        DATA.mkdir(parents=True, exist_ok=True)
        (DATA / "setup-state-2026.9.6.sqlite.gz").write_bytes(gzip.compress(copy.read_bytes(), 9, mtime=0))
    sidecar = {
        "openclaw": "2026.9.6",
        "recordedRoot": str(ROOT),
        "legacyState": LEGACY_STATE,
        "how": "scripts/record_setup_state_db.py: openclaw doctor --fix --non-interactive imported each "
        "workspace's legacy .openclaw/workspace-state.json",
    }
    (DATA / "setup-state-2026.9.6.json").write_text(json.dumps(sidecar, indent=2) + "\n", encoding="utf-8")
    shutil.rmtree(ROOT, ignore_errors=True)


if __name__ == "__main__":
    main()
