"""Managed collections: names, paths and patterns as OpenClaw 2026.6.35 makes them (research
backend-635.md §1-§2; each layout below was run through the release's resolveMemoryBackendConfig, and
these are its answers)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarm_cli.agents import resolve_agents
from memwarm_cli.backends.settings.agent_backend import resolve_agent_backend
from memwarm_cli.backends.settings.qmd_collections import (
    duplicates_of_defaults,
    ensure_unique_name,
    escape_exact_file_pattern,
    sanitize_collection_name,
    sessions_collection_name,
)
from memwarm_cli.profiles.releases import P0
from tests.backends.support import resolve


def settings_of(cfg: dict[str, Any], home: Path, agent_id: str = "main") -> Any:
    env = {"HOME": str(home)}
    agent = next(a for a in resolve_agents(cfg, env, profile=P0) if a.id == agent_id)
    return resolve_agent_backend(cfg, agent.id, agent.entry, agent.workspace, home / "state", env, profile=P0)


def collections(cfg: dict[str, Any], home: Path, agent_id: str = "main") -> list[tuple[str, str, str]]:
    settings = settings_of(cfg, home, agent_id)
    assert settings.qmd is not None
    return [(c.name, str(c.path), c.pattern) for c in settings.qmd.collections]


def test_names_paths_and_patterns_as_the_release_makes_them(tmp_path: Path) -> None:
    """V1.1: a named entry outside the workspace keeps its bare name, a file is a collection of its
    directory, a named entry inside is scoped, unnamed ones count every entry of the combined list, a
    missing path is a directory collection; per-agent extraCollections."""
    t = str(tmp_path)
    for d in ("ws-main", "ws-research", "shared-notes/sub", "extra"):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / "ws-main" / "NOTES.md").write_text("n\n")
    cfg = {
        "agents": {
            "defaults": {"workspace": f"{t}/ws-main"},
            "list": [
                {
                    "id": "main",
                    "default": True,
                    "workspace": f"{t}/ws-main",
                    "memorySearch": {"extraPaths": [f"{t}/extra"]},
                },
                {
                    "id": "research",
                    "workspace": f"{t}/ws-research",
                    "memorySearch": {
                        "qmd": {
                            "extraCollections": [
                                {"path": f"{t}/shared-notes/sub", "name": "deep"},
                                {"path": "notes-in", "name": "inws"},
                            ]
                        }
                    },
                },
            ],
        },
        "memory": {
            "backend": "qmd",
            "qmd": {
                "paths": [
                    {"path": f"{t}/shared-notes", "name": "shared"},
                    {"path": "NOTES.md"},
                    {"path": "docs", "name": "Docs Dir"},
                    {"path": f"{t}/does-not-exist"},
                ]
            },
        },
    }
    assert collections(cfg, tmp_path) == [
        ("memory-root-main", f"{t}/ws-main", "MEMORY.md"),
        ("memory-dir-main", f"{t}/ws-main/memory", "**/*.md"),
        ("shared", f"{t}/shared-notes", "**/*.md"),
        ("custom-2-main", f"{t}/ws-main", "NOTES.md"),
        ("docs-dir-main", f"{t}/ws-main/docs", "**/*.md"),
        ("custom-4-main", f"{t}/does-not-exist", "**/*.md"),
        ("custom-5-main", f"{t}/extra", "**/*.md"),
    ]
    # The research agent has no NOTES.md file: a missing file is a directory collection. memory.qmd
    # applies in full although its entry has a memorySearch.qmd (which holds extraCollections only).
    assert collections(cfg, tmp_path, "research") == [
        ("memory-root-research", f"{t}/ws-research", "MEMORY.md"),
        ("memory-dir-research", f"{t}/ws-research/memory", "**/*.md"),
        ("shared", f"{t}/shared-notes", "**/*.md"),
        ("custom-2-research", f"{t}/ws-research/NOTES.md", "**/*.md"),
        ("docs-dir-research", f"{t}/ws-research/docs", "**/*.md"),
        ("custom-4-research", f"{t}/does-not-exist", "**/*.md"),
        ("deep", f"{t}/shared-notes/sub", "**/*.md"),
        ("inws-research", f"{t}/ws-research/notes-in", "**/*.md"),
    ]


def test_links_home_escapes_dedupe_and_skipped_indexes(tmp_path: Path) -> None:
    """V1.2: a symlinked workspace is "inside" through realpath, `~` is HOME, a file pattern is escaped
    and the `pattern` key ignored, duplicates are skipped but keep their index, explicit names outside
    the workspace are unscoped and made unique."""
    v = tmp_path / "vec"
    for d in ("ws", "out/a", "out/b"):
        (v / d).mkdir(parents=True)
    (v / "wslink").symlink_to(v / "ws")
    (v / "ws" / "My Notes(1).md").write_text("x\n")
    (v / "out" / "file.md").write_text("f\n")
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    cfg = {
        "agents": {
            "list": [
                {
                    "id": "Main Agent!",
                    "default": True,
                    "workspace": f"{v}/wslink",
                    "memorySearch": {
                        "extraPaths": [f"{v}/out/a", f" {v}/out/a ", "../out/b"],
                        "qmd": {
                            "extraCollections": [
                                {"path": f"{v}/out/a", "name": "dupe-of-a"},
                                {"path": f"{v}/out/b", "name": "B!", "pattern": "*.txt"},
                            ]
                        },
                    },
                }
            ],
            "defaults": {
                "memorySearch": {
                    "extraPaths": [f"{v}/out/file.md"],
                    "qmd": {
                        "extraCollections": [{"path": f"{v}/out", "name": "Shared"}, {"name": "no path"}]
                    },
                }
            },
        },
        "memory": {
            "backend": "qmd",
            "qmd": {
                "sessions": {"enabled": True},
                "paths": [
                    {"path": f"{v}/out", "name": "shared"},
                    {"path": f"{v}/out", "name": "shared", "pattern": "**/*.txt"},
                    {"path": f"{v}/out/a", "name": "memory-root-main-agent"},
                    {"path": "My Notes(1).md", "pattern": "ignored/**"},
                    {"path": f"{v}/ws/sub", "name": "insideabs"},
                    {"path": "   "},
                    {"path": "~/notes", "name": "home notes"},
                    {"path": f"{v}/out/file.md", "name": "ONE FILE"},
                ],
            },
        },
    }
    got = collections(cfg, home, "main-agent")
    assert got[:-1] == [
        ("memory-root-main-agent", f"{v}/wslink", "MEMORY.md"),
        ("memory-dir-main-agent", f"{v}/wslink/memory", "**/*.md"),
        ("shared", f"{v}/out", "**/*.md"),
        ("shared-2", f"{v}/out", "**/*.txt"),
        ("memory-root-main-agent-2", f"{v}/out/a", "**/*.md"),
        ("custom-4-main-agent", f"{v}/wslink", "My Notes\\(1\\).md"),
        ("insideabs-main-agent", f"{v}/ws/sub", "**/*.md"),
        ("home-notes", f"{home}/notes", "**/*.md"),
        ("one-file", f"{v}/out", "file.md"),
        ("custom-11-main-agent", f"{v}/out/b", "**/*.md"),
        ("b", f"{v}/out/b", "*.txt"),
    ]
    assert got[-1][0] == "sessions-main-agent"


def test_custom_entries_equal_to_a_default_are_kept_and_named(tmp_path: Path) -> None:
    """V1.3: the defaults do not take part in the dedupe, so these are collections of their own (which
    qmd cannot hold beside the defaults: see duplicates_of_defaults)."""
    ws = tmp_path / "ws3"
    (ws / "memory").mkdir(parents=True)
    (ws / "MEMORY.md").write_text("m\n")
    cfg = {
        "agents": {"list": [{"id": "main", "workspace": str(ws)}]},
        "memory": {
            "backend": "qmd",
            "qmd": {"paths": [{"path": "memory"}, {"path": "MEMORY.md", "name": "root"}]},
        },
    }
    assert collections(cfg, tmp_path) == [
        ("memory-root-main", str(ws), "MEMORY.md"),
        ("memory-dir-main", f"{ws}/memory", "**/*.md"),
        ("custom-1-main", f"{ws}/memory", "**/*.md"),
        ("root-main", str(ws), "MEMORY.md"),
    ]
    specs = settings_of(cfg, tmp_path).qmd.collections
    pairs = [(custom.name, default.name) for custom, default in duplicates_of_defaults(specs)]
    assert pairs == [("custom-1-main", "memory-dir-main"), ("root-main", "memory-root-main")]


def test_string_entry_in_qmd_paths_is_skipped_like_upstream() -> None:
    """Upstream reads `entry.path` of a string (undefined): "path required", the entry is skipped."""
    cfg = {"memory": {"backend": "qmd", "qmd": {"paths": ["notes", 7, {"path": "docs"}]}}}
    qmd = resolve(cfg).qmd
    assert qmd is not None
    got = [(c.name, str(c.path), c.kind) for c in qmd.collections if c.kind != "default"]
    assert got == [("custom-3-main", "/ws/main/docs", "custom")]  # i counts the skipped entries too
    assert [s.split(":")[0] for s in qmd.skipped_paths] == ["memory.qmd.paths[0]", "memory.qmd.paths[1]"]
    assert "path required" in qmd.skipped_paths[0]


def test_extra_paths_are_custom_collections_with_their_config_keys() -> None:
    entry: dict[str, Any] = {"id": "Ops Team", "memorySearch": {"extraPaths": ["/more"]}}
    cfg: dict[str, Any] = {
        "memory": {"backend": "qmd", "qmd": {"paths": [{"path": "notes"}]}},
        "agents": {
            "defaults": {"memorySearch": {"extraPaths": [" /extra ", "", "/extra"]}},
            "list": [entry],
        },
    }
    qmd = resolve(cfg, "ops-team", entry).qmd
    got = [(c.name, c.kind, c.source) for c in qmd.collections if c.kind != "default"]
    assert got == [
        ("custom-1-ops-team", "custom", "memory.qmd.paths[0]"),
        ("custom-2-ops-team", "custom", "agents.defaults.memorySearch.extraPaths[0]"),
        ("custom-3-ops-team", "custom", "agents.list[0].memorySearch.extraPaths[0]"),
    ]


def test_include_default_memory_false() -> None:
    cfg = {"memory": {"backend": "qmd", "qmd": {"includeDefaultMemory": False, "paths": [{"path": "/n"}]}}}
    qmd = resolve(cfg).qmd
    assert qmd is not None
    assert [c.name for c in qmd.collections] == ["custom-1-main"]


def test_collection_names_and_file_patterns() -> None:
    assert sanitize_collection_name("  Hello World!! ") == "hello-world"
    assert sanitize_collection_name("***") == "collection"
    taken: set[str] = set()
    assert [ensure_unique_name("a", taken) for _ in range(3)] == ["a", "a-2", "a-3"]
    assert (
        escape_exact_file_pattern("a\\b*c?[d]{e}(f)!g+h@i.md")
        == "a\\\\b\\*c\\?\\[d\\]\\{e\\}\\(f\\)\\!g\\+h\\@i.md"
    )


_NAME_TEXT = st.text(alphabet=st.sampled_from("aZz09-_. /\\*?[]{}()!+@\u00e9\u0130\u1e9e"), max_size=12)


@settings(max_examples=300)
@given(_NAME_TEXT)
def test_names_are_sanitized_and_file_names_escaped_as_their_expressions_did(text: str) -> None:
    """qmd_collections reads names without compiling these expressions when it can (it says why)."""
    expected_name = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-") or "collection"
    assert sanitize_collection_name(text) == expected_name
    segment = re.sub(r"[^a-z0-9-]+", "-", text.lower()).strip("-") or "agent"
    assert sessions_collection_name(text, set()) == f"sessions-{segment}"
    escaped = re.sub(r"[\\*?\[\]{}()!+@]", lambda m: "\\" + m.group(), text)
    assert escape_exact_file_pattern(text) == escaped
