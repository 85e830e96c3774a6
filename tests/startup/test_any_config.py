"""Any JSON value as a config: the prelude pipeline reads it as OpenClaw's runtime does and never raises."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memwarm_cli.agents import resolve_agents, select_agent
from memwarm_cli.profiles.releases import P0
from memwarm_cli.startup.plan import build_plan
from memwarm_cli.startup.prelude_settings import LIMIT_SPECS, should_apply_startup_context

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
    st.sampled_from(["America/Chicago", " utc ", "+05:30", "Mars/Olympus", "new", "reset"]),
)
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
keys = st.sampled_from(["enabled", "applyOn", *(spec.name for spec in LIMIT_SPECS)])
startup_sections = st.dictionaries(keys, json_values, max_size=6)
configs = st.one_of(
    json_values,
    st.builds(
        lambda sc, tz, agents: {
            "agents": {"defaults": {"startupContext": sc, "userTimezone": tz}, "list": agents}
        },
        startup_sections,
        json_values,
        st.lists(
            st.one_of(
                json_values, st.dictionaries(st.sampled_from(["id", "default", "workspace"]), json_values)
            ),
            max_size=3,
        ),
    ),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(cfg=configs)
def test_any_config_value_is_read_without_raising(tmp_path: Path, cfg: Any) -> None:
    (tmp_path / "memory").mkdir(exist_ok=True)
    (tmp_path / "memory" / "2026-04-11.md").write_text("note", encoding="utf-8")
    mapping = cfg if isinstance(cfg, dict) else {}
    for action in ("new", "reset"):
        decision = should_apply_startup_context(mapping, action)
        assert decision.applied in (True, False)
    plan = build_plan(tmp_path, mapping, 1775930400000, host_zone="UTC", profile=P0)
    for limit, spec in zip(plan.settings.limits, LIMIT_SPECS, strict=True):
        assert spec.minimum <= limit.value <= spec.maximum
    assert plan.prelude is None or plan.prelude.startswith("[Startup context loaded by runtime]")
    env = {"HOME": str(tmp_path)}
    agents = resolve_agents(mapping, env, profile=P0)
    assert agents and select_agent(mapping, env, None, profile=P0).id in {agent.id for agent in agents}
