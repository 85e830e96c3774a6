"""Which backend, and which config key decided it: memory.backend and memory.qmd, global (6.35)."""

from __future__ import annotations

from memwarm_cli.backends.settings.backend_choice import resolve_backend_choice
from tests.backends.support import resolve


def test_memory_backend_and_qmd_block() -> None:
    choice = resolve_backend_choice({"memory": {"backend": "qmd", "qmd": {"command": "/opt/qmd"}}})
    got = (choice.backend, choice.backend_source, choice.qmd_source, dict(choice.qmd_block))
    assert got == ("qmd", "memory.backend", "memory.qmd", {"command": "/opt/qmd"})
    assert choice.warnings == ()


def test_memory_search_backend_and_qmd_block_are_not_read() -> None:
    """6.35 has no per-agent backend and no qmd block under memorySearch (it refuses a config holding
    either); memorySearch.qmd holds extraCollections, which must not replace memory.qmd."""
    cfg = {
        "memory": {"backend": "builtin", "qmd": {"searchMode": "query"}},
        "agents": {"defaults": {"memorySearch": {"backend": "qmd", "qmd": {"searchMode": "vsearch"}}}},
    }
    choice = resolve_backend_choice(cfg)
    assert (choice.backend, choice.backend_source) == ("builtin", "memory.backend")
    entry = {"id": "ops", "memorySearch": {"qmd": {"extraCollections": [{"path": "/x", "name": "n"}]}}}
    cfg = {"memory": {"backend": "qmd", "qmd": {"searchMode": "query", "limits": {"maxResults": 9}}}}
    settings = resolve({**cfg, "agents": {"list": [entry]}}, "ops", entry)
    assert settings.choice.qmd_source == "memory.qmd"
    assert (settings.qmd.search_mode, settings.qmd.limits.max_results) == ("query", 9)
    assert [c.name for c in settings.qmd.collections][-1] == "n"


def test_unknown_backend_is_builtin() -> None:
    choice = resolve_backend_choice({"memory": {"backend": "lancedb"}})
    assert choice.backend == "builtin"
    assert choice.configured == "lancedb"
    assert resolve_backend_choice({}).backend_source == "default"
