"""An agent's whole backend picture: memory search on or off, backend, qmd (memory-backends.md §3-§5.1)."""

from __future__ import annotations

from typing import Any

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
    assert settings.qmd.limits.max_results == 4
    assert settings.qmd.sessions.retention_days is None


def test_the_gateway_runs_no_qmd_at_boot_unless_update_startup_says_so() -> None:
    """6.35: `update.startup` defaults to "off" (no qmd command at boot); idle/immediate do boot work
    when there is some (onBoot, or an update/embed interval); the first use updates unless onBoot is false."""

    def facts(update: dict[str, object]) -> tuple[bool, bool, bool]:
        settings = resolve({"memory": {"backend": "qmd", "qmd": {"update": update}}})
        return (
            settings.gateway_boot_work,
            settings.gateway_updates_on_boot,
            settings.gateway_updates_at_first_use,
        )

    assert facts({}) == (False, False, True)
    assert facts({"startup": "immediate"}) == (True, True, True)
    assert facts({"startup": "idle", "onBoot": False}) == (True, False, False)
    assert facts({"startup": "immediate", "onBoot": False, "interval": "0", "embedInterval": "0"}) == (
        False,
        False,
        False,
    )
    assert facts({"startup": "later"}) == (False, False, True)  # anything else is "off"


def test_only_eligible_agents_get_boot_work() -> None:
    """Of several agents, the default one, those whose entry sets memorySearch, or every agent when
    agents.defaults.memorySearch.enabled is true; the others are deferred to their first use."""
    qmd = {"backend": "qmd", "qmd": {"update": {"startup": "immediate"}}}
    entries: list[dict[str, Any]] = [{"id": "main"}, {"id": "ops"}, {"id": "dev", "memorySearch": {}}]
    cfg: dict[str, Any] = {"memory": qmd, "agents": {"list": entries}}
    work = {e["id"]: resolve(cfg, str(e["id"]), e).gateway_boot_work for e in entries}
    assert work == {"main": True, "ops": False, "dev": True}
    cfg["agents"]["defaults"] = {"memorySearch": {"enabled": True}}
    assert resolve(cfg, "ops", entries[1]).gateway_boot_work is True
