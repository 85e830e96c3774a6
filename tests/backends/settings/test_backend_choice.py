"""Which backend, and which config key decided it."""

from __future__ import annotations

from memwarm_cli.backends.settings.backend_choice import resolve_backend_choice
from tests.backends.support import resolve


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
