"""Thousands of agents and big configs: the work grows linearly, and the faster paths change no output.

Timings are left to `bench/bench_scale.py` (the machine is shared); these tests count the work instead:
per-agent lookups must not rescan the agent list, which made 2,000 agents take seconds.
"""

from __future__ import annotations

import gc
import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from memwarm_cli import agents as agents_module
from memwarm_cli.agents import resolve_agents, select_agent
from memwarm_cli.backends.settings.agent_backend import resolve_agent_backend
from memwarm_cli.cli.commands.config_views import render
from memwarm_cli.config import load_config
from memwarm_cli.config.formats import parse_document
from memwarm_cli.configview.show_view import show_data
from memwarm_cli.errors import ConfigError
from memwarm_cli.profiles.releases import P0

AGENTS = 400


class CountingList(list[Any]):
    """A list that counts how often it is walked from the start."""

    walks = 0

    def __iter__(self) -> Any:
        CountingList.walks += 1
        return super().__iter__()


def config(count: int) -> dict[str, Any]:
    entries = CountingList(
        {"id": f"Agent {i}", "workspace": f"/ws/{i}", "memorySearch": {"extraPaths": ["n"]}}
        for i in range(count)
    )
    return {"agents": {"defaults": {"workspace": "/ws"}, "list": entries}, "memory": {"backend": "qmd"}}


def test_resolving_every_agent_normalises_each_id_a_bounded_number_of_times(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = 0
    original = agents_module.normalize_agent_id

    def counting(value: object) -> str:
        nonlocal calls
        calls += 1
        return original(value)

    monkeypatch.setattr(agents_module, "normalize_agent_id", counting)
    cfg = config(AGENTS)
    resolved = resolve_agents(cfg, {"HOME": "/home/x"}, profile=P0)
    assert [agent.id for agent in resolved][:2] == ["agent-0", "agent-1"]
    assert calls <= 3 * AGENTS  # one pass, not one per agent (that was AGENTS^2)
    calls = 0
    assert select_agent(cfg, {"HOME": "/home/x"}, "agent-7", profile=P0).workspace == "/ws/7"
    assert calls <= 2 * AGENTS


def test_backend_settings_for_every_agent_walk_the_list_a_bounded_number_of_times() -> None:
    cfg = config(AGENTS)
    env = {"HOME": "/home/x"}
    resolved = resolve_agents(cfg, env, profile=P0)
    CountingList.walks = 0
    sources = [
        resolve_agent_backend(
            cfg, a.id, a.entry, a.workspace, Path("/state"), env, profile=P0
        ).choice.backend_source
        for a in resolved
    ]
    assert sources[5] == "memory.backend"
    assert CountingList.walks <= 5  # the entry's index was looked up by a walk per agent


def test_parse_pauses_the_garbage_collector_and_restores_it(tmp_path: Path) -> None:
    assert gc.isenabled()
    parse_document("a: [1, 2]\n", "c.yaml", "yaml")
    assert gc.isenabled()
    with pytest.raises(ValueError):
        parse_document("{a: ", "c.json5", "json5")
    assert gc.isenabled()
    gc.disable()
    try:
        parse_document("{}", "c.json5", "json5")
        assert not gc.isenabled()  # a caller's choice is kept
    finally:
        gc.enable()


YAML_DOCS = [
    "agents:\n  defaults: {workspace: ~/ws, userTimezone: 'UTC'}\n  list:\n    - id: a\n      default: yes\n",
    "base: &b {x: 1, y: [1, 2]}\nmerged:\n  <<: *b\n  y: 3\nk: 2026-01-02\nn: .inf\nh: 0x1f\n",
    "é: [ü, 😀, 'x']\nlong: |\n  line one\n  line two\nfolded: >\n  a\n  b\nnull_key: ~\n",
    "- 1\n- [a, {b: c}]\n- !!str 12\n",
    'a: "\\ud800"\nb: "\\x85\\u2028"\n',  # libyaml rejects the lone surrogate: PyYAML reads it
]


def positions(node: Any, path: str = "") -> dict[str, tuple[int, int]]:
    out = {path: (node.loc.line, node.loc.column)}
    children = node.children
    items = children.items() if isinstance(children, dict) else enumerate(children or [])
    for key, child in items:
        out.update(positions(child, f"{path}/{key}"))
    return out


@pytest.mark.parametrize("text", YAML_DOCS)
def test_libyaml_composes_what_pyyaml_composes(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    fast_value, fast_pos = parse_document(text, "c.yaml", "yaml", track=True)
    monkeypatch.setattr(yaml, "__with_libyaml__", False)
    slow_value, slow_pos = parse_document(text, "c.yaml", "yaml", track=True)
    assert json.dumps(fast_value) == json.dumps(slow_value)
    assert fast_pos is not None and slow_pos is not None
    assert positions(fast_pos) == positions(slow_pos)


@pytest.mark.parametrize("text", ["a: [1\n", "a:\n  - 1\n  b: 2\n", "a: b: c\n", "x: \x01\n"])
def test_yaml_errors_stay_pyyaml_s(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    with pytest.raises(ValueError) as fast:
        parse_document(text, "c.yaml", "yaml")
    monkeypatch.setattr(yaml, "__with_libyaml__", False)
    with pytest.raises(ValueError) as slow:
        parse_document(text, "c.yaml", "yaml")
    assert str(fast.value) == str(slow.value)


def test_config_show_yaml_is_the_whole_document_s_text(tmp_path: Path) -> None:
    # One agent at a time, libyaml where the text is printable ASCII: the same text as one PyYAML dump.
    cfg = tmp_path / "c.json"
    entries = [{"id": f"a{i}", "workspace": str(tmp_path / f"w{i}")} for i in range(5)]
    entries[2]["workspace"] = str(tmp_path / "caf\u00e9 \U0001f600\x85")  # not ASCII, one unsafe
    cfg.write_text(json.dumps({"agents": {"list": entries}, "memory": {"backend": "qmd"}}))
    data = show_data(
        load_config(str(cfg), {"HOME": str(tmp_path)}), agent_id=None, host_zone="UTC", profile=P0
    )
    assert render(data, "yaml") == whole_document(data)
    assert '\\U0001F600\\N"' in render(data, "yaml")  # the policy's escapes survived
    single = show_data(
        load_config(str(cfg), {"HOME": str(tmp_path)}), agent_id="a1", profile=P0, host_zone="UTC"
    )
    assert render(single, "yaml") == whole_document(single)


def whole_document(data: Any) -> str:
    """The whole document through PyYAML's own emitter, with the escaping policy's quoting."""
    from memwarm_cli.cli.commands.config_views import _policy_dumper

    options: dict[str, Any] = {"sort_keys": False, "allow_unicode": True, "default_flow_style": False}
    text: str = yaml.dump(data, Dumper=_policy_dumper(), width=1_000_000, **options)
    return text


def test_include_budget_errors_are_config_errors(tmp_path: Path) -> None:
    (tmp_path / "p.json5").write_text("{}")
    cfg = tmp_path / "c.json5"
    cfg.write_text(json.dumps({"$include": ["p.json5"] * 10_001}))
    with pytest.raises(ConfigError) as info:
        load_config(str(cfg), {"HOME": str(tmp_path)})
    assert "Include limit exceeded" in info.value.detail
