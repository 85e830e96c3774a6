"""Pure settings resolution (memory-backends.md §3, §4, §5.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.backends.agent_backend import resolve_agent_backend
from memwarm_cli.backends.backend_choice import resolve_backend_choice
from memwarm_cli.backends.qmd_collections import ensure_unique_name, sanitize_collection_name
from memwarm_cli.backends.qmd_paths import agent_qmd_paths, qmd_child_env
from memwarm_cli.backends.qmd_settings import split_command
from memwarm_cli.durations import parse_duration_ms

STATE = Path("/state")
WS = Path("/ws/main")
ENV = {"HOME": "/home/u"}


def resolve(cfg: dict[str, Any], agent_id: str = "main", entry: dict[str, Any] | None = None) -> Any:
    return resolve_agent_backend(cfg, agent_id, entry, WS, STATE, ENV)


def test_builtin_by_default() -> None:
    settings = resolve({})
    assert settings.choice.backend == "builtin"
    assert settings.choice.backend_source == "default"
    assert settings.qmd is None
    assert settings.skip_reason == "builtin"


def test_disabled_memory_search_wins_over_qmd() -> None:
    cfg = {"memory": {"backend": "qmd"}, "agents": {"defaults": {"memorySearch": {"enabled": False}}}}
    settings = resolve(cfg)
    assert settings.memory_search is None
    assert settings.skip_reason == "memory search disabled"
    entry = {"id": "main", "memorySearch": {"enabled": True}}
    assert resolve(cfg, entry=entry).skip_reason is None


def test_memory_backend_upstream_spelling() -> None:
    choice = resolve_backend_choice({"memory": {"backend": "qmd", "qmd": {"command": "/opt/qmd"}}}, None)
    got = (choice.backend, choice.backend_source, choice.qmd_source)
    assert got == ("qmd", "memory.backend", "memory.qmd")
    assert choice.warnings == ()
    assert choice.uses_upstream_spelling


def test_memory_search_spelling_wins_and_warns() -> None:
    cfg = {
        "memory": {"backend": "builtin", "qmd": {"searchMode": "query"}},
        "agents": {"defaults": {"memorySearch": {"backend": "qmd", "qmd": {"searchMode": "vsearch"}}}},
    }
    choice = resolve_backend_choice(cfg, None)
    assert choice.backend == "qmd"
    assert choice.backend_source == "agents.defaults.memorySearch.backend"
    assert choice.qmd_source == "agents.defaults.memorySearch.qmd"
    assert len(choice.warnings) == 2
    assert "memory.backend" in choice.warnings[0]
    entry = {"id": "ops", "memorySearch": {"backend": "builtin"}}
    per_agent = resolve_backend_choice({**cfg, "agents": {**cfg["agents"], "list": [entry]}}, entry)
    assert per_agent.backend == "builtin"
    assert per_agent.backend_source == "agents.list[0].memorySearch.backend"
    assert resolve(cfg).qmd is not None and resolve(cfg).qmd.search_mode == "vsearch"  # type: ignore[union-attr]


def test_list_entries_are_labelled_by_index_not_id() -> None:
    """An id holding `]` or `.` must not break the dotted path `config check` parses."""
    weird = {"id": "a]b.c", "memorySearch": {"backend": "qmd", "qmd": {"paths": [{"path": "notes"}]}}}
    cfg = {"agents": {"list": [{"id": "main"}, "junk", weird]}}
    settings = resolve(cfg, "a-b-c", weird)
    assert settings.choice.backend_source == "agents.list[2].memorySearch.backend"
    assert settings.choice.qmd_source == "agents.list[2].memorySearch.qmd"
    assert settings.qmd is not None
    assert [c.source for c in settings.qmd.collections if c.kind == "custom"] == [
        "agents.list[2].memorySearch.qmd.paths[0]"
    ]


def test_unknown_backend_is_builtin() -> None:
    choice = resolve_backend_choice({"memory": {"backend": "lancedb"}}, None)
    assert choice.backend == "builtin"
    assert choice.configured == "lancedb"


def test_qmd_defaults_and_collections() -> None:
    settings = resolve({"memory": {"backend": "qmd"}})
    qmd = settings.qmd
    assert qmd is not None
    assert qmd.command == "qmd"
    assert qmd.search_mode == "search"
    assert qmd.update.command_timeout_ms == 30000
    assert qmd.update.update_timeout_ms == 120000
    assert qmd.update.embed_timeout_ms == 120000
    assert qmd.update.interval_ms == 300000
    assert [(c.name, str(c.path), c.pattern) for c in qmd.collections] == [
        ("memory-root-main", "/ws/main", "MEMORY.md"),
        ("memory-dir-main", "/ws/main/memory", "**/*.md"),
    ]


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


def test_names_and_commands() -> None:
    assert sanitize_collection_name("  Hello World!! ") == "hello-world"
    assert sanitize_collection_name("***") == "collection"
    taken: set[str] = set()
    assert [ensure_unique_name("a", taken) for _ in range(3)] == ["a", "a-2", "a-3"]
    assert split_command('"/opt/my qmd/qmd" --x') == "/opt/my qmd/qmd"
    assert split_command("qmd 'unclosed") == "qmd"


@pytest.mark.parametrize("raw", ["9" * 400, "9" * 305 + "d", "1" + "0" * 308 + "m"])
def test_overflowing_duration_is_a_parse_error_and_falls_back(raw: str) -> None:
    """A run of digits too large for a double must not crash (math.floor(inf) raised OverflowError)."""
    with pytest.raises(ValueError, match="too large"):
        parse_duration_ms(raw, "m")
    cfg = {"memory": {"backend": "qmd", "qmd": {"update": {"interval": raw, "embedInterval": raw}}}}
    qmd = resolve(cfg).qmd
    assert (qmd.update.interval_ms, qmd.update.embed_interval_ms) == (300_000, 3_600_000)


def test_paths_and_env() -> None:
    paths = agent_qmd_paths(STATE, "ops")
    assert paths.index_path == Path("/state/agents/ops/qmd/xdg-cache/qmd/index.sqlite")
    assert paths.index_yml == Path("/state/agents/ops/qmd/xdg-config/qmd/index.yml")
    env = qmd_child_env({"PATH": "/bin", "NO_COLOR": ""}, paths)
    assert env["XDG_CONFIG_HOME"] == "/state/agents/ops/qmd/xdg-config"
    assert env["XDG_CACHE_HOME"] == "/state/agents/ops/qmd/xdg-cache"
    assert env["QMD_CONFIG_DIR"] == "/state/agents/ops/qmd/xdg-config/qmd"
    assert env["NO_COLOR"] == "1"
    assert env["PATH"] == "/bin"


def test_memory_search_fields() -> None:
    cfg = {
        "agents": {
            "defaults": {
                "memorySearch": {
                    "sources": ["sessions", "memory", "memory"],
                    "store": {"path": "~/idx/{agentId}.db"},
                    "chunking": {"tokens": 10, "overlap": 50},
                    "provider": "openai",
                }
            }
        }
    }
    ms = resolve(cfg, "ops").memory_search
    assert ms is not None
    assert ms.sources == ("memory",)
    assert ms.store_path == Path("/home/u/idx/ops.db")
    assert (ms.chunk_tokens, ms.chunk_overlap) == (10, 9)
    assert ms.model == "text-embedding-3-small"
    assert resolve({}, "ops").memory_search.store_path == Path("/state/memory/ops.sqlite")  # type: ignore[union-attr]


def test_int_too_big_for_a_double_is_not_a_finite_number() -> None:
    """JSON5/YAML/TOML give Python ints of any size; JS holds 10**400 as Infinity: not finite, default."""
    huge = 10**400
    cfg = {
        "memory": {
            "backend": "qmd",
            "qmd": {
                "update": {"commandTimeoutMs": huge, "debounceMs": huge},
                "limits": {"maxResults": huge},
                "sessions": {"retentionDays": huge},
            },
        },
        "agents": {"defaults": {"memorySearch": {"chunking": {"tokens": huge}, "query": {"minScore": huge}}}},
    }
    settings = resolve(cfg)
    assert settings.memory_search is not None and settings.qmd is not None
    assert (settings.memory_search.chunk_tokens, settings.memory_search.min_score) == (400, 0.35)
    assert settings.qmd.update.command_timeout_ms == 30_000
    assert settings.qmd.update.debounce_ms == 15_000
    assert settings.qmd.limits.max_results == 6
    assert settings.qmd.sessions.retention_days is None
