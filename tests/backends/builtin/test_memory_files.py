"""Which files the builtin index holds, as 2026.9.6's listMemoryFiles picks them (read from its dist:
packages/memory-host-sdk/src/host/internal.ts, src/memory/root-memory-files.ts)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memwarm_cli.agents import Agent
from memwarm_cli.backends.builtin.memory_files import list_memory_files
from memwarm_cli.backends.builtin.search_settings import resolve_builtin_search
from memwarm_cli.profiles.releases import P3


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


def _paths(workspace: Path, **search: Any) -> list[str]:
    config = {"memory": {"search": {"provider": "none", **search}}}
    found = resolve_builtin_search(
        config, Agent("main", True, str(workspace), None), workspace / "state", profile=P3
    )
    assert found is not None
    return [file.path for file in list_memory_files(found).files]


def test_root_files_and_every_markdown_file_under_memory(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _write(
        ws,
        {
            "MEMORY.md": "m",
            "USER.md": "u",
            "AGENTS.md": "not memory",
            "memory/2026-01-02.md": "a",
            "memory/deep/er/note.md": "b",
            "memory/.dreams/session-corpus/x.md": "c",
            "memory/image.png": "not markdown",
            "memory/notes.txt": "not markdown",
            "memory/.openclaw-repair/x.md": "repair: skipped",
        },
    )
    assert _paths(ws) == [
        "MEMORY.md",
        "USER.md",
        "memory/.dreams/session-corpus/x.md",
        "memory/2026-01-02.md",
        "memory/deep/er/note.md",
    ]


def test_the_legacy_lowercase_root_file_is_never_read(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _write(ws, {"memory.md": "legacy", "memory/a.md": "a"})
    assert _paths(ws) == ["memory/a.md"]


def test_symlinks_are_not_followed(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _write(tmp_path, {"elsewhere/long-term.md": "x", "elsewhere/dir/n.md": "y"})
    _write(ws, {"memory/real.md": "r"})
    (ws / "MEMORY.md").symlink_to(tmp_path / "elsewhere" / "long-term.md")
    (ws / "USER.md").symlink_to(tmp_path / "elsewhere" / "long-term.md")
    (ws / "memory" / "link.md").symlink_to(tmp_path / "elsewhere" / "long-term.md")
    (ws / "memory" / "linked-dir").symlink_to(tmp_path / "elsewhere" / "dir")
    assert _paths(ws) == ["memory/real.md"]


def test_a_symlinked_memory_directory_is_not_read(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _write(tmp_path, {"real-memory/a.md": "a"})
    ws.mkdir()
    (ws / "memory").symlink_to(tmp_path / "real-memory")
    assert _paths(ws) == []


def test_extra_paths_directories_with_patterns_files_and_duplicates(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _write(ws, {"memory/a.md": "a", "docs/x.md": "x", "docs/sub/y.md": "y", "docs/z.txt": "z"})
    _write(tmp_path, {"shared/s.md": "s", "shared/keep/k.md": "k", "one.md": "o"})
    extra = [
        "docs",
        {"path": str(tmp_path / "shared"), "pattern": "keep/*.md"},
        str(tmp_path / "one.md"),
        "memory",  # already listed: de-duplicated by real path, the first kept
        "missing-dir",
    ]
    assert _paths(ws, extraPaths=extra) == [
        "memory/a.md",
        "docs/sub/y.md",
        "docs/x.md",
        "../shared/keep/k.md",
        "../one.md",
    ]


def test_a_symlinked_extra_root_is_skipped_and_said(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    _write(tmp_path, {"real/n.md": "n"})
    ws.mkdir()
    (ws / "linked").symlink_to(tmp_path / "real")
    config = {"memory": {"search": {"provider": "none", "extraPaths": ["linked"]}}}
    found = resolve_builtin_search(config, Agent("main", True, str(ws), None), tmp_path, profile=P3)
    assert found is not None
    listing = list_memory_files(found)
    assert listing.files == () and "is a symlink root" in listing.issues[0]
    assert os.path.islink(ws / "linked")


def test_a_missing_workspace_is_said(tmp_path: Path) -> None:
    config = {"memory": {"search": {"provider": "none"}}}
    found = resolve_builtin_search(
        config, Agent("main", True, str(tmp_path / "nowhere"), None), tmp_path, profile=P3
    )
    assert found is not None
    listing = list_memory_files(found)
    assert listing.files == () and listing.issues == (f"the workspace {tmp_path / 'nowhere'} does not exist",)
