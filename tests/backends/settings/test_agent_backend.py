"""An agent's whole backend picture: memory search on or off, backend, qmd (memory-backends.md §3-§5.1)."""

from __future__ import annotations

from tests.backends.support import resolve


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
