"""Transcripts and export dirs on real disk for the session-export tests (no mocks)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.backends.sessions.session_export import SessionExportPlan, plan_session_export

NOW_MS = 1_775_930_400_000


def record(text: str, role: str = "user") -> str:
    return json.dumps({"type": "message", "message": {"role": role, "content": text}}) + "\n"


@dataclass
class Layout:
    base: Path
    sessions: Path
    export: Path
    outside: Path

    def transcript(self, name: str, *texts: str, mtime_ms: int = NOW_MS - 3_600_000) -> Path:
        path = self.sessions / name
        path.write_text("".join(record(t) for t in texts), encoding="utf-8")
        os.utime(path, ns=(mtime_ms * 1_000_000,) * 2)
        return path

    def plan(self, **kwargs: Any) -> SessionExportPlan:
        kwargs.setdefault("retention_days", None)
        kwargs.setdefault("now_ms", NOW_MS)
        kwargs.setdefault("agent_qmd_dir", self.export.parent)  # the default export dir: the agent's own
        return plan_session_export(self.sessions, self.export, **kwargs)

    def export_names(self) -> list[str]:
        return sorted(os.listdir(self.export))


@pytest.fixture
def layout(tmp_path: Path) -> Layout:
    base = Path(os.path.realpath(tmp_path))
    sessions = base / "state" / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    outside = base / "outside"
    outside.mkdir()
    return Layout(base, sessions, base / "state" / "agents" / "main" / "qmd" / "sessions", outside)


def snapshot(directory: Path) -> dict[str, tuple[bytes, int, int]]:
    """Content (regular files), mtime and mode of every entry under `directory`, symlinks not followed."""
    found: dict[str, tuple[bytes, int, int]] = {}
    for root, dirs, files in os.walk(directory):
        for name in dirs + files:
            path = Path(root, name)
            info = path.lstat()
            data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
            found[str(path.relative_to(directory))] = (data, info.st_mtime_ns, info.st_mode)
    return found
