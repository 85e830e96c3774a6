"""Key positions in TOML documents (tomllib has none)."""

from __future__ import annotations

import tomllib
from typing import Any

import tomli_w
from hypothesis import given, settings
from hypothesis import strategies as st

from memwarm_cli.config.formats import parse_document
from memwarm_cli.config.positions import PNode
from memwarm_cli.config.tomlpos import _Scanner, locate_toml
from tests.conftest import offset_of

TEXT = '''# top
title = "x"  # c
[agents.defaults]
workspace = '~/ws'
startupContext = { dailyMemoryDays = 15, applyOn = ["new",
  "reset"] }
multi = """
line [ ] { } = "
"""
when = 1979-05-27 07:32:00

[[agents.list]]
id = "main"
memorySearch.extraPaths = [ "a", 'b' ]
"quoted key".x = 1

[[agents.list]]
  id = "ops"
[agents.list.memorySearch]
enabled = false
[memory.qmd]
paths = [ { path = "~/x", name = "n" }, { path = "y" } ]
'''


def positions(node: PNode, path: str = "") -> dict[str, tuple[int, int]]:
    out = {path or "<root>": (node.loc.line, node.loc.column)}
    if isinstance(node.children, dict):
        for key, child in node.children.items():
            out.update(positions(child, f"{path}.{key}" if path else key))
    elif isinstance(node.children, list):
        for i, child in enumerate(node.children):
            out.update(positions(child, f"{path}[{i}]"))
    return out


def test_positions() -> None:
    _, node = parse_document(TEXT, "f.toml", "toml", track=True)
    assert node is not None
    found = positions(node)
    expected = {
        "title": (2, 1),
        "agents.defaults": (3, 9),
        "agents.defaults.workspace": (4, 1),
        "agents.defaults.startupContext.dailyMemoryDays": (5, 20),
        "agents.defaults.startupContext.applyOn[1]": (6, 3),
        "agents.defaults.multi": (7, 1),
        "agents.defaults.when": (10, 1),
        "agents.list[0].id": (13, 1),
        "agents.list[0].memorySearch.extraPaths": (14, 14),
        "agents.list[0].memorySearch.extraPaths[1]": (14, 34),
        "agents.list[0].quoted key.x": (15, 14),
        "agents.list[1].id": (18, 3),
        "agents.list[1].memorySearch.enabled": (20, 1),
        "memory.qmd.paths[0].name": (22, 27),
        "memory.qmd.paths[1].path": (22, 43),
    }
    assert {k: found[k] for k in expected} == expected


def test_unscannable_text_falls_back_to_the_start() -> None:
    node = locate_toml("not toml at all", "f.toml", {"a": {"b": [1]}})
    assert positions(node) == {"<root>": (1, 1), "a": (1, 1), "a.b": (1, 1), "a.b[0]": (1, 1)}


keys = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=8)
scalars = st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=10) | st.floats(allow_nan=False)
values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(keys, children, max_size=3),
    max_leaves=12,
)


def shape(value: Any, node: PNode) -> None:
    if isinstance(value, dict):
        assert isinstance(node.children, dict) and list(node.children) == list(value)
        for key, item in value.items():
            shape(item, node.children[key])
    elif isinstance(value, list):
        assert isinstance(node.children, list) and len(node.children) == len(value)
        for item, child in zip(value, node.children, strict=True):
            shape(item, child)


def key_at(text: str, line: int, column: int) -> str:
    parts, _ = _Scanner(text, "f.toml").key_parts(offset_of(text, line, column))
    return parts[0][0]


def keys_point_at_themselves(text: str, value: Any, node: PNode) -> None:
    if isinstance(value, dict):
        assert isinstance(node.children, dict)
        for key, item in value.items():
            child = node.children[key]
            assert key_at(text, child.loc.line, child.loc.column) == key
            keys_point_at_themselves(text, item, child)
    elif isinstance(value, list):
        assert isinstance(node.children, list)
        for item, child in zip(value, node.children, strict=True):
            keys_point_at_themselves(text, item, child)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(keys, values, max_size=4), st.booleans())
def test_any_document_gets_a_matching_tree_and_key_positions(doc: dict[str, Any], multiline: bool) -> None:
    text = tomli_w.dumps(doc, multiline_strings=multiline)
    value = tomllib.loads(text)
    _Scanner(text, "f.toml").scan()  # never falls back on what tomli-w writes
    node = locate_toml(text, "f.toml", value)
    shape(value, node)
    keys_point_at_themselves(text, value, node)
