"""resolveMemorySearchConfig (memory-backends.md §3)."""

from __future__ import annotations

from pathlib import Path

from tests.backends.support import resolve


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
    # 6.35 refuses store.path; its builtin index is the agent's database.
    assert ms.store_path == Path("/state/agents/ops/agent/openclaw-agent.sqlite")
    assert (ms.chunk_tokens, ms.chunk_overlap) == (10, 9)
    assert ms.model == "text-embedding-3-small"
    assert resolve({}, "ops").memory_search.store_path == Path(
        "/state/agents/ops/agent/openclaw-agent.sqlite"
    )
