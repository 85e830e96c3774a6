"""Agent ids, the default agent and workspaces (config.md §8 with the pinned choices)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memwarm_cli.agents import (
    DEFAULT_AGENT_ID,
    Agent,
    _is_valid_id,
    _slug,
    agent_by_id,
    find_agent_entry,
    list_agent_entries,
    list_agent_ids,
    normalize_agent_id,
    resolve_agents,
    resolve_default_agent_id,
    select_agent,
)
from memwarm_cli.errors import UnknownAgentError
from memwarm_cli.exitcodes import ExitCode
from memwarm_cli.profiles.releases import P0


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("Main", "main"),
        (" Ops Team ", "ops-team"),
        ("--x--", "x"),
        ("!!!", "main"),
        ("_abc", "_abc"),
        ("Émile", "mile"),
        ("a" * 70, "a" * 64),
        (None, "main"),
        ("", "main"),
        ("   ", "main"),
        (42, "main"),
        ("ok_id-1", "ok_id-1"),
        ("UPPER", "upper"),
        ("a b" + "c" * 70, ("a-b" + "c" * 70)[:64]),
        ("x" * 63 + " -y", "x" * 63 + "-"),  # the slice after the strip can leave a trailing '-'
        ("\u212aelvin", "kelvin"),  # not a valid id (no ASCII K), but toLowerCase() gives "k"
        ("a\n", "a"),
        ("-abc", "abc"),
    ],
)
def test_normalize_agent_id(value: Any, expected: str) -> None:
    assert normalize_agent_id(value) == expected


def test_default_constant() -> None:
    assert DEFAULT_AGENT_ID == "main"


def test_entries_and_ids() -> None:
    assert list_agent_entries({}, profile=P0) == []
    assert list_agent_entries({"agents": {"list": {"id": "a"}}}, profile=P0) == []
    assert list_agent_entries({"agents": []}, profile=P0) == []
    cfg = {"agents": {"list": [None, "x", {"id": "B"}, {}, {"id": "b"}, {"id": "Ops Team"}, 3]}}
    assert list_agent_entries(cfg, profile=P0) == [{"id": "B"}, {}, {"id": "b"}, {"id": "Ops Team"}]
    assert list_agent_ids(cfg, profile=P0) == ["b", "main", "ops-team"]
    assert list_agent_ids({}, profile=P0) == ["main"]
    assert list_agent_ids({"agents": {"list": []}}, profile=P0) == ["main"]


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        ([], "main"),
        ([{"id": "a"}, {"id": "b"}], "a"),
        ([{"id": "a"}, {"id": "main"}], "a"),  # pinned: first entry, not the `main` variant
        ([{"id": "a"}, {"id": "B", "default": True}], "b"),
        ([{"id": "a", "default": True}, {"id": "b", "default": True}], "a"),
        ([{"id": "a", "default": False}, {"id": "b", "default": "yes"}], "b"),
        ([{"id": "a", "default": 0}, {"id": "b", "default": ""}], "a"),
        ([{"id": "a"}, {"id": "b", "default": []}], "b"),
        ([{"default": True}, {"id": "b"}], "main"),
        ([{"id": "  "}], "main"),
    ],
)
def test_default_agent(entries: list[dict[str, Any]], expected: str) -> None:
    assert resolve_default_agent_id({"agents": {"list": entries}}, profile=P0) == expected


def test_find_entry() -> None:
    cfg = {"agents": {"list": [{"id": "Ops Team", "n": 1}, {"id": "ops-team", "n": 2}]}}
    assert find_agent_entry(cfg, "OPS TEAM", profile=P0) == {"id": "Ops Team", "n": 1}
    assert find_agent_entry(cfg, "nobody", profile=P0) is None


@pytest.fixture
def env(home_dir: Path) -> dict[str, str]:
    return {"HOME": str(home_dir)}


def test_workspaces_default(env: dict[str, str]) -> None:
    home = Path(env["HOME"])
    assert agent_by_id({}, env, "main", profile=P0).workspace == str(home / ".openclaw" / "workspace")
    # an unknown, non-default agent: <stateDir>/workspace-<id>
    assert agent_by_id({}, env, "Other One", profile=P0).workspace == str(
        home / ".openclaw" / "workspace-other-one"
    )


def test_workspaces_profile_and_override(env: dict[str, str], tmp_path: Path) -> None:
    home = Path(env["HOME"])
    work = {**env, "OPENCLAW_PROFILE": "Work"}
    assert agent_by_id({}, work, "main", profile=P0).workspace == str(home / ".openclaw" / "workspace-Work")
    assert agent_by_id({}, {**env, "OPENCLAW_PROFILE": "DEFAULT"}, "main", profile=P0).workspace == str(
        home / ".openclaw" / "workspace"
    )
    override = {**env, "OPENCLAW_WORKSPACE_DIR": str(tmp_path / "ws")}
    assert agent_by_id({}, override, "main", profile=P0).workspace == str(tmp_path / "ws")
    # the override is the default workspace only: defaults.workspace still wins
    cfg = {"agents": {"defaults": {"workspace": "~/shared"}}}
    assert agent_by_id(cfg, override, "main", profile=P0).workspace == str(home / "shared")


def test_workspaces_with_defaults(env: dict[str, str]) -> None:
    home = Path(env["HOME"])
    cfg = {
        "agents": {
            "defaults": {"workspace": " ~/shared "},
            "list": [{"id": "main"}, {"id": "support"}, {"id": "own", "workspace": "~/own\0/x"}],
        }
    }
    assert agent_by_id(cfg, env, "main", profile=P0).workspace == str(home / "shared")
    assert agent_by_id(cfg, env, "support", profile=P0).workspace == str(home / "shared" / "support")
    assert agent_by_id(cfg, env, "own", profile=P0).workspace == str(home / "own" / "x")


def test_workspaces_without_defaults(env: dict[str, str], tmp_path: Path) -> None:
    home = Path(env["HOME"])
    cfg = {"agents": {"list": [{"id": "a", "default": True}, {"id": "b", "workspace": "  "}]}}
    assert agent_by_id(cfg, env, "a", profile=P0).workspace == str(home / ".openclaw" / "workspace")
    assert agent_by_id(cfg, env, "b", profile=P0).workspace == str(home / ".openclaw" / "workspace-b")
    state = {**env, "OPENCLAW_STATE_DIR": str(tmp_path / "state")}
    assert agent_by_id(cfg, state, "b", profile=P0).workspace == str(tmp_path / "state" / "workspace-b")
    # the default workspace is not affected by OPENCLAW_STATE_DIR in the pinned version
    assert agent_by_id(cfg, state, "a", profile=P0).workspace == str(home / ".openclaw" / "workspace")


def test_wrong_types_count_as_absent(env: dict[str, str]) -> None:
    home = Path(env["HOME"])
    cfg: dict[str, Any] = {
        "agents": {"defaults": {"workspace": 5}, "list": [{"id": "a", "workspace": ["x"]}]}
    }
    assert agent_by_id(cfg, env, "a", profile=P0).workspace == str(home / ".openclaw" / "workspace")
    assert agent_by_id({"agents": "x"}, env, "main", profile=P0).workspace == str(
        home / ".openclaw" / "workspace"
    )


def test_resolve_agents_and_select(env: dict[str, str]) -> None:
    home = Path(env["HOME"])
    cfg = {
        "agents": {"list": [{"id": "A"}, {"id": "Ops", "default": True, "workspace": "~/ops"}, {"id": "a"}]}
    }
    agents = resolve_agents(cfg, env, profile=P0)
    assert [a.id for a in agents] == ["a", "ops"]
    assert [a.is_default for a in agents] == [False, True]
    assert agents[1] == Agent(
        "ops", True, str(home / "ops"), {"id": "Ops", "default": True, "workspace": "~/ops"}
    )
    assert agents[0].workspace == str(home / ".openclaw" / "workspace-a")
    assert select_agent(cfg, env, None, profile=P0).id == "ops"
    assert select_agent(cfg, env, " OPS ", profile=P0).id == "ops"
    assert select_agent(cfg, env, "A", profile=P0).entry == {"id": "A"}
    with pytest.raises(UnknownAgentError) as info:
        select_agent(cfg, env, "nobody", profile=P0)
    assert info.value.known == ["a", "ops"]
    assert info.value.exit_code == ExitCode.USAGE
    assert "nobody" in str(info.value) and "a, ops" in str(info.value)


def test_select_without_list(env: dict[str, str]) -> None:
    agent = select_agent({}, env, None, profile=P0)
    assert (agent.id, agent.is_default, agent.entry) == ("main", True, None)
    assert select_agent({}, env, "Main", profile=P0).id == "main"
    with pytest.raises(UnknownAgentError):
        select_agent({}, env, "other", profile=P0)


# ---- issue 21 item 9: an --agent that normalises to nothing names no agent -----------------------


@pytest.mark.parametrize("requested", ["..", "!!!", "", "  ", "--"])
def test_an_id_that_normalises_to_nothing_is_a_usage_error(requested: str, tmp_path: Path) -> None:
    from memwarm_cli.agents import EmptyAgentIdError

    env = {"HOME": str(tmp_path)}
    for cfg in ({}, {"agents": {"list": [{"id": "main"}, {"id": "ops"}]}}):
        with pytest.raises(EmptyAgentIdError) as raised:
            select_agent(cfg, env, requested, profile=P0)
        assert raised.value.exit_code == ExitCode.USAGE
        assert "\n" not in raised.value.message and "names no agent" in raised.value.message


def test_cli_agent_dotdot_is_refused(run_cli: Any) -> None:
    result = run_cli(["prelude", "--agent", "..", "--json"])
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and "names no agent" in result.stderr


# ---- 2026.8.1+: the keyed roster, ownership, default workspace ----------------------------------

P3_CFG_TWO = {
    "agents": {
        "ownership": "explicit",
        "defaults": {"systemAgent": {"agentId": "Work"}, "workspace": "/ws"},
        "entries": {"main": {"workspace": "/a"}, "work": {}},
    }
}


def test_keyed_entries_are_the_roster_from_2026_8() -> None:
    from memwarm_cli.profiles.releases import P1, P3

    cfg = {"agents": {"entries": {"Ops": {"workspace": "/o"}, "x": 3}, "list": [{"id": "old"}]}}
    assert list_agent_entries(cfg, profile=P3) == [{"workspace": "/o", "id": "Ops"}]
    assert list_agent_ids(cfg, profile=P3) == ["ops"]
    assert list_agent_ids(cfg, profile=P1) == ["old"]  # 2026.7.x reads the list only
    # Without entries, 2026.8.1+ still reads a list the release has not rewritten yet.
    assert list_agent_ids({"agents": {"list": [{"id": "a"}, {"id": "b"}]}}, profile=P3) == ["a", "b"]
    assert find_agent_entry(cfg, "OPS", profile=P3) == {"workspace": "/o", "id": "Ops"}


def test_explicit_ownership_names_the_default_and_no_agent_inherits_the_workspace(tmp_path: Path) -> None:
    from memwarm_cli.profiles.releases import P3

    env = {"HOME": str(tmp_path), "OPENCLAW_STATE_DIR": str(tmp_path / "st")}
    agents = {a.id: a for a in resolve_agents(P3_CFG_TWO, env, profile=P3)}
    assert [a for a in agents.values() if a.is_default] == [agents["work"]]
    assert select_agent(P3_CFG_TWO, env, None, profile=P3).id == "work"
    # Two agents, explicit ownership: neither is the legacy owner of agents.defaults.workspace.
    assert agents["work"].workspace == "/ws/work"
    assert agents["main"].workspace == "/a"


@pytest.mark.parametrize(
    ("cfg", "why"),
    [
        ({"agents": {"entries": {"a": {}, "b": {}}}}, "none with default: true"),
        ({"agents": {"ownership": "explicit", "entries": {"a": {}, "b": {}}}}, "systemAgent"),
        ({"agents": {"list": [{"id": "a", "default": True}, {"id": "b", "default": True}]}}, "none with"),
    ],
)
def test_a_multi_agent_roster_without_an_owner_has_no_default(cfg: dict[str, Any], why: str) -> None:
    from memwarm_cli.agents import NoDefaultAgentError, default_agent_id
    from memwarm_cli.profiles.releases import P0, P3

    assert default_agent_id(cfg, profile=P3) is None
    with pytest.raises(NoDefaultAgentError, match=why) as raised:
        select_agent(cfg, {"HOME": "/h"}, None, profile=P3)
    assert raised.value.exit_code == ExitCode.USAGE
    assert select_agent(cfg, {"HOME": "/h"}, "b", profile=P3).id == "b"  # naming one still works
    # 2026.6.35: the first (marked) list entry; it does not read agents.entries at all
    assert resolve_default_agent_id(cfg, profile=P0) == ("a" if "list" in cfg["agents"] else "main")


def test_the_marker_must_be_true_and_unique_from_2026_8() -> None:
    from memwarm_cli.agents import default_agent_id
    from memwarm_cli.profiles.releases import P0, P3

    cfg = {"agents": {"list": [{"id": "a"}, {"id": "b", "default": True}]}}
    assert default_agent_id(cfg, profile=P3) == "b" == default_agent_id(cfg, profile=P0)
    truthy = {"agents": {"list": [{"id": "a"}, {"id": "b", "default": 1}]}}
    assert default_agent_id(truthy, profile=P0) == "b"  # truthy is enough in 2026.6.35
    assert default_agent_id(truthy, profile=P3) is None  # 2026.8.1+ wants true
    assert default_agent_id({"agents": {"entries": {"solo": {}}}}, profile=P3) == "solo"
    assert default_agent_id({}, profile=P3) == "main"


def test_the_default_workspace_moved_under_the_state_dir(tmp_path: Path) -> None:
    from memwarm_cli.config.paths import resolve_default_workspace_dir
    from memwarm_cli.errors import UsageError
    from memwarm_cli.profiles.releases import P0, P3

    home = str(tmp_path)
    st = {"HOME": home, "OPENCLAW_STATE_DIR": str(tmp_path / "st")}
    assert resolve_default_workspace_dir(st, profile=P0) == str(tmp_path / ".openclaw" / "workspace")
    assert resolve_default_workspace_dir(st, profile=P3) == str(tmp_path / "st" / "workspace")
    prof = {"HOME": home, "OPENCLAW_PROFILE": "dev"}
    assert resolve_default_workspace_dir(prof, profile=P0) == str(tmp_path / ".openclaw" / "workspace-dev")
    assert resolve_default_workspace_dir(prof, profile=P3) == str(tmp_path / ".openclaw-dev" / "workspace")
    with pytest.raises(UsageError, match="invalid profile name"):
        resolve_default_workspace_dir({"HOME": home, "OPENCLAW_PROFILE": "bad name"}, profile=P3)
    assert resolve_default_workspace_dir({"HOME": home, "OPENCLAW_WORKSPACE_DIR": " /w "}, profile=P3) == "/w"


_ID_TEXT = st.text(st.sampled_from("aZ09_-.é\u212a\u017f\n -"), max_size=70) | st.text(max_size=70)


@given(_ID_TEXT)
def test_an_id_is_valid_and_slugged_as_upstreams_expressions_say(text: str) -> None:
    """agents.py spells `/^[a-z0-9][a-z0-9_-]{0,63}$/i` and the slug's dash trimming in str methods."""
    valid = re.fullmatch(r"[a-z0-9][a-z0-9_-]{0,63}", text, re.IGNORECASE | re.ASCII) is not None
    assert _is_valid_id(text) == valid
    slug = re.sub(r"[^a-z0-9_-]+", "-", text.lower())
    assert _slug(text) == re.sub(r"-+$", "", re.sub(r"^-+", "", slug))[:64]
