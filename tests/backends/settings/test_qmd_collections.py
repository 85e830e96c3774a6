"""Managed collections: names, paths, patterns, what is skipped (memory-backends.md §4)."""

from __future__ import annotations

from memwarm_cli.backends.settings.qmd_collections import ensure_unique_name, sanitize_collection_name
from tests.backends.support import resolve


def test_custom_paths_and_extra_paths() -> None:
    cfg = {
        "memory": {
            "backend": "qmd",
            "qmd": {
                "command": "  /opt/bin/qmd --index x ",
                "searchMode": "nonsense",
                "update": {"commandTimeoutMs": 0, "updateTimeoutMs": 1500.7, "interval": "bad"},
                "paths": [
                    {"path": "notes", "name": "Notes Dir"},
                    {"path": "  "},
                    {"path": "~/docs", "pattern": "*.txt"},
                    {"path": "/abs/x", "name": "notes dir"},
                    {"path": "memory"},  # same path+pattern as memory-dir: skipped
                ],
            },
        },
        "agents": {"defaults": {"memorySearch": {"extraPaths": [" /extra ", "", "/extra"]}}},
    }
    entry = {"id": "Ops Team", "memorySearch": {"extraPaths": ["/more"]}}
    settings = resolve(cfg, "ops-team", entry)
    qmd = settings.qmd
    assert qmd is not None
    assert qmd.command == "/opt/bin/qmd"
    assert qmd.search_mode == "search"
    assert qmd.update.command_timeout_ms == 30000
    assert qmd.update.update_timeout_ms == 1500
    assert qmd.update.interval_ms == 300000
    got = [(c.name, str(c.path), c.pattern, c.kind) for c in qmd.collections]
    assert got == [
        ("memory-root-ops-team", "/ws/main", "MEMORY.md", "default"),
        ("memory-dir-ops-team", "/ws/main/memory", "**/*.md", "default"),
        ("notes-dir-ops-team", "/ws/main/notes", "**/*.md", "custom"),
        ("custom-3-ops-team", "/home/u/docs", "*.txt", "custom"),
        ("notes-dir-ops-team-2", "/abs/x", "**/*.md", "custom"),
        ("custom-6-ops-team", "/extra", "**/*.md", "extra"),
        ("custom-7-ops-team", "/more", "**/*.md", "extra"),
    ]
    assert len(qmd.skipped_paths) == 2


def test_string_entry_in_qmd_paths_is_skipped_like_upstream() -> None:
    """Upstream reads `entry.path` of a string (undefined): "path required", the entry is skipped."""
    cfg = {"memory": {"backend": "qmd", "qmd": {"paths": ["notes", 7, {"path": "docs"}]}}}
    qmd = resolve(cfg).qmd
    assert qmd is not None
    got = [(c.name, str(c.path), c.kind) for c in qmd.collections if c.kind != "default"]
    assert got == [("custom-3-main", "/ws/main/docs", "custom")]  # i counts the skipped entries too
    assert [s.split(":")[0] for s in qmd.skipped_paths] == ["memory.qmd.paths[0]", "memory.qmd.paths[1]"]
    assert "path required" in qmd.skipped_paths[0]


def test_include_default_memory_false() -> None:
    cfg = {"memory": {"backend": "qmd", "qmd": {"includeDefaultMemory": False, "paths": [{"path": "/n"}]}}}
    qmd = resolve(cfg).qmd
    assert qmd is not None
    assert [c.name for c in qmd.collections] == ["custom-1-main"]


def test_collection_names() -> None:
    assert sanitize_collection_name("  Hello World!! ") == "hello-world"
    assert sanitize_collection_name("***") == "collection"
    taken: set[str] = set()
    assert [ensure_unique_name("a", taken) for _ in range(3)] == ["a", "a-2", "a-3"]
