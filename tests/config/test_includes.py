"""`$include` (config.md §6.4): merge rules and every error message, with where the include stands."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memwarm_cli.config import load_config
from memwarm_cli.config.includes import deep_merge
from memwarm_cli.errors import ConfigError


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "home").mkdir()
    cfg_dir = tmp_path / "cfg"
    cfg_dir.mkdir()
    return cfg_dir


def load(root: Path, text: str, name: str = "openclaw.json5") -> dict[str, object]:
    cfg = root / name
    cfg.write_text(text)
    return load_config(str(cfg), {"HOME": str(root.parent / "home")}).data


def load_error(root: Path, text: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load(root, text)
    return info.value


def test_deep_merge_rules() -> None:
    merged, _ = deep_merge(
        {"a": [1], "b": {"x": 1, "y": 1}, "c": 1},
        None,
        {"a": [2], "b": {"y": 2, "z": 2}, "c": {"o": 1}, "__proto__": {"p": 1}, "constructor": 1},
        None,
    )
    assert merged == {"a": [1, 2], "b": {"x": 1, "y": 2, "z": 2}, "c": {"o": 1}}


def test_string_include_replaces_the_object(root: Path) -> None:
    (root / "agents.json5").write_text("{list: [{id: 'a'}]}")
    assert load(root, "{agents: {$include: './agents.json5'}}") == {"agents": {"list": [{"id": "a"}]}}


def test_array_include_merges_in_order(root: Path) -> None:
    (root / "one.json5").write_text("{list: [{id: 'a'}], defaults: {workspace: 'one', x: 1}}")
    (root / "two.json5").write_text("{list: [{id: 'b'}], defaults: {workspace: 'two'}}")
    data = load(root, "{agents: {$include: ['one.json5', 'two.json5']}}")
    assert data == {"agents": {"list": [{"id": "a"}, {"id": "b"}], "defaults": {"workspace": "two", "x": 1}}}


def test_siblings_merge_over_included_content(root: Path) -> None:
    (root / "base.json5").write_text(
        "{defaults: {workspace: 'base', userTimezone: 'UTC'}, list: [{id: 'a'}]}"
    )
    data = load(root, "{agents: {$include: 'base.json5', defaults: {workspace: 'mine'}, list: [{id: 'b'}]}}")
    assert data == {
        "agents": {
            "defaults": {"workspace": "mine", "userTimezone": "UTC"},
            "list": [{"id": "a"}, {"id": "b"}],
        }
    }


def test_nested_includes_resolve_relative_to_the_including_file(root: Path) -> None:
    (root / "sub").mkdir()
    (root / "sub" / "a.json5").write_text("{$include: 'b.json5', a: 1}")
    (root / "sub" / "b.json5").write_text("{b: 2}")
    assert load(root, "{x: {$include: 'sub/a.json5'}}") == {"x": {"a": 1, "b": 2}}


def test_include_of_other_formats(root: Path) -> None:
    (root / "part.yaml").write_text("list:\n  - id: y\n")
    (root / "part.toml").write_text("[defaults]\nworkspace = 't'\n")
    data = load(root, "{agents: {$include: ['part.yaml', 'part.toml']}}")
    assert data == {"agents": {"list": [{"id": "y"}], "defaults": {"workspace": "t"}}}


def test_top_level_include(root: Path) -> None:
    (root / "all.json5").write_text("{agents: {list: [{id: 'z'}]}}")
    assert load(root, "{$include: 'all.json5'}") == {"agents": {"list": [{"id": "z"}]}}


def test_escapes_config_directory(root: Path) -> None:
    (root.parent / "outside.json5").write_text("{}")
    err = load_error(root, "{\n  a: {\n    $include: '../outside.json5'}}")
    assert err.detail == f"Include path escapes config directory: ../outside.json5 (root: {root})"
    assert (err.file, err.line, err.column) == (str(root / "openclaw.json5"), 3, 5)


def test_absolute_path_outside(root: Path) -> None:
    err = load_error(root, "{a: {$include: '/etc/hostname'}}")
    assert err.detail == f"Include path escapes config directory: /etc/hostname (root: {root})"


def test_symlink_outside(root: Path) -> None:
    target = root.parent / "secret.json5"
    target.write_text("{}")
    (root / "link.json5").symlink_to(target)
    err = load_error(root, "{a: {$include: 'link.json5'}}")
    assert (
        err.detail == f"Include path resolves outside config directory (symlink): link.json5 (root: {root})"
    )


def test_symlink_inside_is_fine(root: Path) -> None:
    (root / "real.json5").write_text("{ok: true}")
    (root / "link.json5").symlink_to(root / "real.json5")
    assert load(root, "{a: {$include: 'link.json5'}}") == {"a": {"ok": True}}


def test_missing_file(root: Path) -> None:
    err = load_error(root, "{a: {$include: 'nope.json5'}}")
    assert err.detail == f"Failed to read include file: nope.json5 (resolved: {root / 'nope.json5'})"


def test_security_checks(root: Path) -> None:
    message = "Include file failed security checks (regular file, max 2097152 bytes, no hardlinks): {}"
    (root / "dir.json5").mkdir()
    assert load_error(root, "{a: {$include: 'dir.json5'}}").detail == message.format("dir.json5")
    (root / "big.json5").write_text("{a: '" + "x" * (2 * 1024 * 1024) + "'}")
    assert load_error(root, "{a: {$include: 'big.json5'}}").detail == message.format("big.json5")
    (root / "orig.json5").write_text("{}")
    os.link(root / "orig.json5", root / "hard.json5")
    assert load_error(root, "{a: {$include: 'hard.json5'}}").detail == message.format("hard.json5")


def test_exactly_2_mib_is_allowed(root: Path) -> None:
    body = "{a: '" + "x" * (2 * 1024 * 1024 - 8) + "'}"
    (root / "edge.json5").write_text(body)
    assert len(body) == 2 * 1024 * 1024 - 1
    assert load(root, "{x: {$include: 'edge.json5'}}")["x"] is not None


def test_parse_failure(root: Path) -> None:
    (root / "bad.json5").write_text("{a: }")
    err = load_error(root, "{\n a: {$include: 'bad.json5'}}")
    assert err.detail == f"Failed to parse include file: bad.json5 (resolved: {root / 'bad.json5'})"
    assert (err.line, err.column) == (2, 6)


def test_depth_limit(root: Path) -> None:
    for i in range(12):
        (root / f"d{i}.json5").write_text(f"{{n: {{$include: 'd{i + 1}.json5'}}}}")
    (root / "d12.json5").write_text("{end: true}")
    err = load_error(root, "{x: {$include: 'd0.json5'}}")
    assert err.detail == "Maximum include depth (10) exceeded at: d10.json5"
    assert err.file == str(root / "d9.json5")


def test_depth_ten_is_allowed(root: Path) -> None:
    for i in range(9):
        (root / f"d{i}.json5").write_text(f"{{n: {{$include: 'd{i + 1}.json5'}}}}")
    (root / "d9.json5").write_text("{end: true}")
    data = load(root, "{x: {$include: 'd0.json5'}}")
    node = data["x"]
    for _ in range(9):
        node = node["n"]  # type: ignore[index]
    assert node == {"end": True}


def test_circular(root: Path) -> None:
    (root / "a.json5").write_text("{b: {$include: 'b.json5'}}")
    (root / "b.json5").write_text("{a: {$include: 'a.json5'}}")
    err = load_error(root, "{x: {$include: 'a.json5'}}")
    cfg, a, b = root / "openclaw.json5", root / "a.json5", root / "b.json5"
    assert err.detail == f"Circular include detected: {cfg} -> {a} -> {b} -> {a}"


def test_self_include(root: Path) -> None:
    err = load_error(root, "{x: {$include: './openclaw.json5'}}")
    cfg = root / "openclaw.json5"
    assert err.detail == f"Circular include detected: {cfg} -> {cfg}"


def test_siblings_need_an_object(root: Path) -> None:
    (root / "list.json5").write_text("[1, 2]")
    err = load_error(root, "{x: {$include: 'list.json5', y: 1}}")
    assert err.detail == "Sibling keys require included content to be an object"


def test_array_include_without_siblings_may_be_anything(root: Path) -> None:
    (root / "list.json5").write_text("[1, 2]")
    assert load(root, "{x: {$include: 'list.json5'}}") == {"x": [1, 2]}


@pytest.mark.parametrize(
    ("value", "typeof"), [("1", "number"), ("true", "boolean"), ("null", "object"), ("{a: 1}", "object")]
)
def test_invalid_value(root: Path, value: str, typeof: str) -> None:
    err = load_error(root, f"{{x: {{$include: {value}}}}}")
    assert err.detail == f"Invalid $include value: expected string or array of strings, got {typeof}"


@pytest.mark.parametrize(("item", "typeof"), [("1", "number"), ("[]", "object"), ("false", "boolean")])
def test_invalid_array_item(root: Path, item: str, typeof: str) -> None:
    (root / "ok.json5").write_text("{}")
    err = load_error(root, f"{{x: {{$include: ['ok.json5',\n {item}]}}}}")
    assert err.detail == f"Invalid $include array item: expected string, got {typeof}"
    assert (err.line, err.column) == (2, 2)


def test_top_level_include_of_an_array_is_an_error(root: Path) -> None:
    (root / "list.json5").write_text("[1]")
    err = load_error(root, "{$include: 'list.json5'}")
    assert "array" in err.detail


def test_included_values_keep_their_positions(root: Path) -> None:
    (root / "part.json5").write_text("{\n\n  list: [{id: 'a'}]}")
    cfg = root / "openclaw.json5"
    cfg.write_text("{agents: {$include: 'part.json5',\n  defaults: {}}}")
    loaded = load_config(str(cfg), {"HOME": str(root)}, track=True)
    agents = loaded.positions.child("agents")  # type: ignore[union-attr]
    assert agents is not None
    lst = agents.child("list")
    assert lst is not None and (lst.loc.file, lst.loc.line, lst.loc.column) == (
        str(root / "part.json5"),
        3,
        3,
    )
    defaults = agents.child("defaults")
    assert defaults is not None and (defaults.loc.file, defaults.loc.line) == (str(cfg), 2)
