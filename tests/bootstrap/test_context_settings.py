"""Limits with their origin, context injection, the warning mode and heartbeat guidance."""

from __future__ import annotations

from typing import Any

import pytest

from memwarm_cli.bootstrap.context_settings import (
    heartbeat_decision,
    heartbeat_every_ms,
    resolve_context_injection,
    resolve_limit,
    resolve_truncation_warning,
)
from memwarm_cli.profiles.releases import P0


def limit(cfg: dict[str, Any] | None, agent: str = "main") -> tuple[int, str, str | None]:
    result = resolve_limit(cfg, agent, "bootstrapMaxChars", 20_000, profile=P0)
    return result.value, result.origin, result.note


def test_limit_origins() -> None:
    assert limit(None) == (20_000, "built-in", None)
    assert limit({"agents": {"defaults": {"bootstrapMaxChars": 900}}}) == (900, "defaults", None)
    per_agent = {
        "agents": {"defaults": {"bootstrapMaxChars": 300}, "list": [{"id": "main", "bootstrapMaxChars": 120}]}
    }
    assert limit(per_agent) == (120, "per-agent", None)
    assert limit(per_agent, "other") == (300, "defaults", None)


def test_invalid_per_agent_value_does_not_fall_back_to_defaults() -> None:
    cfg = {
        "agents": {"defaults": {"bootstrapMaxChars": 300}, "list": [{"id": "main", "bootstrapMaxChars": 0}]}
    }
    value, origin, note = limit(cfg)
    assert (value, origin) == (20_000, "built-in")
    assert note == "agents.list[main].bootstrapMaxChars 0 is not a number > 0"
    # null counts as absent (`??`): the defaults value applies.
    cfg["agents"]["list"][0]["bootstrapMaxChars"] = None  # type: ignore[index]
    assert limit(cfg)[:2] == (300, "defaults")


@pytest.mark.parametrize(
    ("raw", "value"), [(150.9, 150), (0.5, 0), ("5000", 20_000), (True, 20_000), (-1, 20_000)]
)
def test_limit_values(raw: Any, value: int) -> None:
    assert limit({"agents": {"defaults": {"bootstrapMaxChars": raw}}})[0] == value


def test_context_injection_and_warning_mode() -> None:
    assert resolve_context_injection(None, "main", profile=P0) == "always"
    assert (
        resolve_context_injection({"agents": {"defaults": {"contextInjection": "bogus"}}}, "main", profile=P0)
        == "bogus"
    )
    cfg = {
        "agents": {
            "defaults": {"contextInjection": "always"},
            "list": [{"id": "main", "contextInjection": "x"}],
        }
    }
    assert (
        resolve_context_injection(cfg, "main", profile=P0) == "always"
    )  # an invalid per-agent mode is ignored
    assert (
        resolve_truncation_warning(
            {"agents": {"defaults": {"bootstrapPromptTruncationWarning": "off"}}}, profile=P0
        )
        == "off"
    )
    assert (
        resolve_truncation_warning(
            {"agents": {"defaults": {"bootstrapPromptTruncationWarning": 1}}}, profile=P0
        )
        == "always"
    )


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("30m", 1_800_000),
        ("5", 300_000),
        (" 1H ", 3_600_000),
        ("1h30m", 5_400_000),
        ("1.5s", 1_500),
        ("0m", 0),
        ("500ms", 500),
        ("soon", None),
        ("1.", None),
        ("1m5", None),  # several segments: each needs its unit
        ("ms", None),
        ("1.5.2h", None),
        ("1ms5m", 300_001),
        ("2d", 172_800_000),
        ("1h 30m", None),
        ("", None),
    ],
)
def test_heartbeat_every(text: str, ms: int | None) -> None:
    assert heartbeat_every_ms(text) == ms


def test_heartbeat_decision() -> None:
    assert heartbeat_decision({}, "main", "main", profile=P0).keep
    assert heartbeat_decision(
        {"agents": {"defaults": {"heartbeat": {"every": "0m"}}}}, "ops", "main", profile=P0
    ).keep
    off = {"agents": {"defaults": {"heartbeat": {"every": "0m"}}}}
    assert not heartbeat_decision(off, "main", "main", profile=P0).keep
    other = {"agents": {"list": [{"id": "main"}, {"id": "ops", "heartbeat": {"every": "5m"}}]}}
    assert not heartbeat_decision(other, "main", "main", profile=P0).keep
    section_off = {"agents": {"defaults": {"heartbeat": {"includeSystemPromptSection": False}}}}
    assert not heartbeat_decision(section_off, "main", "main", profile=P0).keep
    assert not heartbeat_decision(
        {"agents": {"defaults": {"heartbeat": {"every": 30}}}}, "main", "main", profile=P0
    ).keep
    assert heartbeat_decision(
        {"agents": {"defaults": {"heartbeat": {"every": None}}}}, "main", "main", profile=P0
    ).keep
