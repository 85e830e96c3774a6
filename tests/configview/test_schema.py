"""The schema's bounds for the startup limits are the runtime's clamp bounds (one definition)."""

from __future__ import annotations

from typing import Any

import pytest

from memwarm_cli.configview.schema_2026_6_35 import check_schema
from memwarm_cli.startup.prelude_settings import LIMIT_SPECS, LimitSpec, resolve_startup_settings


def _startup(name: str, value: int) -> dict[str, Any]:
    return {"agents": {"defaults": {"startupContext": {name: value}}}}


def _runtime_source(name: str, value: int) -> str:
    limits = resolve_startup_settings(_startup(name, value), "UTC").limits
    return next(limit.source for limit in limits if limit.name == name)


@pytest.mark.parametrize("spec", LIMIT_SPECS, ids=[spec.name for spec in LIMIT_SPECS])
def test_a_limit_is_in_range_exactly_where_the_runtime_keeps_it_unclamped(spec: LimitSpec) -> None:
    for value in (spec.minimum, spec.maximum):
        assert check_schema(_startup(spec.name, value), None) == []
        assert _runtime_source(spec.name, value) == "config"
    for value in (spec.minimum - 1, spec.maximum + 1):
        issues = check_schema(_startup(spec.name, value), None)
        assert [(issue.path, issue.message) for issue in issues] == [
            (
                f"agents.defaults.startupContext.{spec.name}",
                f"{value} is out of range: must be between {spec.minimum} and {spec.maximum}",
            )
        ]
        assert _runtime_source(spec.name, value) == "clamped"
