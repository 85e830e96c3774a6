"""`${VAR}` substitution (config.md §6.5) and the `env` section (§6.3 step 4)."""

from __future__ import annotations

import pytest

from memwarm_cli.config.envsubst import apply_config_env_vars, substitute_env, substitute_string


@pytest.mark.parametrize(
    ("text", "expected", "missing"),
    [
        ("${A}", "alpha", []),
        ("x-${A}-${B_2}-y", "x-alpha-bee-y", []),
        ("$${A}", "${A}", []),
        ("$$${A}", "$${A}", []),
        ("$${lower}", "$${lower}", []),
        ("${lower}", "${lower}", []),
        ("${A-B}", "${A-B}", []),
        ("${A", "${A", []),
        ("${}", "${}", []),
        ("$A", "$A", []),
        ("${MISSING}", "${MISSING}", ["MISSING"]),
        ("${EMPTY}", "${EMPTY}", ["EMPTY"]),
        ("${REF}", "${A}", []),  # single pass: substituted text is not rescanned
        ("${A}${A}", "alphaalpha", []),
        ("${_}", "under", []),
        ("${9X}", "${9X}", []),
    ],
)
def test_substitute_string(text: str, expected: str, missing: list[str]) -> None:
    env = {"A": "alpha", "B_2": "bee", "EMPTY": "", "REF": "${A}", "_": "under"}
    found: list[str] = []
    assert substitute_string(text, env, found) == expected
    assert found == missing


def test_only_values_and_paths() -> None:
    data = {"${A}": "${A}", "list": [1, "${X}", {"deep": "${Y}"}], "n": 3}
    result, warnings = substitute_env(data, None, {"A": "a"}, "/cfg.json")
    assert result == {"${A}": "a", "list": [1, "${X}", {"deep": "${Y}"}], "n": 3}
    assert [w.dotted_path for w in warnings] == ["list[1]", "list[2].deep"]
    assert warnings[0].message == (
        'Config (/cfg.json): missing env var "X" at list[1] - feature using this value will be unavailable'
    )


def test_apply_env_vars() -> None:
    cfg = {
        "env": {"vars": {"A": "1", "B": "", "C": "3", "lower_ok": "x"}, "D": "4", "shellEnv": "no", "E": 5}
    }
    env = {"C": "shell", "D": " "}
    applied = apply_config_env_vars(cfg, env)
    assert env == {"A": "1", "C": "shell", "D": "4", "lower_ok": "x"}
    assert applied == ["A", "lower_ok", "D"]


def test_env_not_an_object() -> None:
    env: dict[str, str] = {}
    assert apply_config_env_vars({"env": "x"}, env) == [] and env == {}
    assert apply_config_env_vars({"env": {"vars": [1]}}, env) == [] and env == {}
