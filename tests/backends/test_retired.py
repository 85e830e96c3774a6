"""backends/retired.py: on a release without the qmd backend every agent is `retired`, decided from the
profile, with one line naming the release, the real qmd dir, and what is there; nothing is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.backends.retired import (
    QmdRetired,
    RetiredBackends,
    refuse_retired_search,
    refused_qmd_keys,
    release_label,
    removed_in,
    retired_backends,
)
from memwarm_cli.config import LoadedConfig, load_config
from memwarm_cli.errors import UnknownAgentError
from memwarm_cli.exitcodes import ExitCode
from memwarm_cli.profiles.choice import OpenClawChoice, resolve_openclaw
from memwarm_cli.profiles.releases import P0, P1, P2, P3, PROFILES

QMD_CONFIG: dict[str, Any] = {
    "memory": {"backend": "qmd", "qmd": {"searchMode": "search"}},
    "agents": {"list": [{"id": "alpha", "default": True}, {"id": "beta"}]},
}
# The 2026.9 shape: a keyed roster and memory.search, no qmd keys at all.
NEW_SHAPE: dict[str, Any] = {
    "memory": {"search": {"enabled": True}},
    "agents": {"entries": {"ops": {}, "docs": {}}, "defaults": {"systemAgent": {"agentId": "ops"}}},
}


def _loaded(tmp_path: Path, config: dict[str, Any]) -> LoadedConfig:
    state = tmp_path / "state"
    state.mkdir(exist_ok=True)
    (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    return load_config(None, {"HOME": str(tmp_path / "home"), "OPENCLAW_STATE_DIR": str(state)}, dotenv=False)


def _choice(version: str) -> OpenClawChoice:
    return resolve_openclaw(version, {}, None)


def _retired(loaded: LoadedConfig, version: str, requested: tuple[str, ...] = ()) -> RetiredBackends:
    found = retired_backends(loaded, _choice(version), requested)
    assert found is not None, version
    return found


def _tree(root: Path) -> list[tuple[str, int, int]]:
    return sorted(
        (str(p.relative_to(root)), p.lstat().st_mode, p.lstat().st_mtime_ns) for p in root.rglob("*")
    )


@pytest.mark.parametrize("version", ["2026.6.35", "2026.7.1", "2026.7.35"])
def test_a_release_with_qmd_has_nothing_retired(tmp_path: Path, version: str) -> None:
    assert retired_backends(_loaded(tmp_path, QMD_CONFIG), _choice(version)) is None
    refuse_retired_search(_loaded(tmp_path, QMD_CONFIG), _choice(version), None)  # no refusal


def test_the_decision_is_the_profiles_qmd_available() -> None:
    assert [p.qmd_available for p in PROFILES] == [True, True, False, False]
    assert (P0.qmd_available, P1.qmd_available, P2.qmd_available, P3.qmd_available) == (
        True,
        True,
        False,
        False,
    )
    assert removed_in() == "2026.8.1" == P2.releases[0]


@pytest.mark.parametrize(("version", "profile"), [("2026.8.2", "P2"), ("2026.9.6", "P3")])
def test_every_agent_is_retired_with_the_release_and_its_qmd_dir(
    tmp_path: Path, version: str, profile: str
) -> None:
    loaded = _loaded(tmp_path, QMD_CONFIG)
    before = _tree(tmp_path)
    retired = _retired(loaded, version)
    assert _tree(tmp_path) == before  # nothing created, not even the agents' dirs
    assert retired.exit_code == ExitCode.RETIRED and int(retired.exit_code) == 6
    assert [a.agent_id for a in retired.agents] == ["alpha", "beta"]
    assert retired.release == f"OpenClaw {version} ({profile})"
    state = tmp_path / "state"
    for agent in retired.agents:
        qmd_dir = state / "agents" / agent.agent_id / "qmd"
        assert agent.qmd_dir == qmd_dir
        assert agent.index_path == qmd_dir / "xdg-cache" / "qmd" / "index.sqlite"
        assert (agent.qmd_dir_exists, agent.index_exists) == (False, False)
        assert agent.reason.startswith(
            f"OpenClaw {version} ({profile}) has no qmd backend: it was removed in 2026.8.1"
        )
        assert f"`openclaw doctor --fix` deletes {qmd_dir}/" in agent.reason
        assert "session export" in agent.reason  # the profile has none either
        assert "will be deleted" not in agent.reason  # nothing is there
    assert retired.refused_keys == ("memory.backend", "memory.qmd")
    assert retired.agents[0].reason.endswith(
        "it refuses this config while it has memory.backend, memory.qmd "
        "(`openclaw doctor --fix` removes them)"
    )
    assert retired.why_json() == {
        "release": f"OpenClaw {version} ({profile})",
        "removedIn": "2026.8.1",
        "qmdBackend": False,
        "sessionExport": False,
        "refusedConfigKeys": ["memory.backend", "memory.qmd"],
    }


def test_a_2026_9_shaped_config_lists_its_keyed_roster_and_refuses_nothing(tmp_path: Path) -> None:
    retired = _retired(_loaded(tmp_path, NEW_SHAPE), "2026.9.6")
    assert [a.agent_id for a in retired.agents] == ["ops", "docs"]
    assert retired.refused_keys == ()
    assert all("refuses this config" not in a.reason for a in retired.agents)


def test_an_index_already_there_is_named_and_left_as_it_was(tmp_path: Path) -> None:
    loaded = _loaded(tmp_path, QMD_CONFIG)
    qmd = tmp_path / "state" / "agents"
    index = qmd / "alpha" / "qmd" / "xdg-cache" / "qmd" / "index.sqlite"
    index.parent.mkdir(parents=True)
    index.write_bytes(b"SQLite format 3\0 not really")
    (qmd / "beta" / "qmd").mkdir(parents=True)  # a dir without an index
    before = _tree(tmp_path)
    alpha, beta = _retired(loaded, "2026.9.6").agents
    assert (alpha.qmd_dir_exists, alpha.index_exists) == (True, True)
    assert f"deletes {alpha.qmd_dir}/ (an index is there and will be deleted)" in alpha.reason
    assert (beta.qmd_dir_exists, beta.index_exists) == (True, False)
    assert f"deletes {beta.qmd_dir}/ (the directory is there and will be deleted)" in beta.reason
    assert _tree(tmp_path) == before
    assert index.read_bytes() == b"SQLite format 3\0 not really"


def test_only_the_qmd_keys_the_release_refuses_are_named(tmp_path: Path) -> None:
    assert refused_qmd_keys({"memory": {"backend": "builtin"}}, P3) == ("memory.backend",)
    assert refused_qmd_keys({"memory": {"qmd": {}}}, P2) == ("memory.qmd",)
    assert refused_qmd_keys({"memory": {"search": {}}}, P3) == ()
    assert refused_qmd_keys({"memory": {"backend": "qmd"}}, P0) == ()  # 6.35 accepts the key
    reason = _retired(_loaded(tmp_path, {"memory": {"backend": "builtin"}}), "2026.8.1").agents[0].reason
    assert reason.endswith("while it has memory.backend (`openclaw doctor --fix` removes it)")


def test_the_requested_agents_only_and_an_unknown_one_refused(tmp_path: Path) -> None:
    loaded = _loaded(tmp_path, QMD_CONFIG)
    assert [a.agent_id for a in _retired(loaded, "2026.9.6", ("BETA", "beta")).agents] == ["beta"]
    with pytest.raises(UnknownAgentError):
        retired_backends(loaded, _choice("2026.9.6"), ("gamma",))


def test_a_release_chosen_by_the_config_shape_is_named_by_its_span(tmp_path: Path) -> None:
    choice = resolve_openclaw(None, {}, NEW_SHAPE)
    assert (choice.version, choice.profile.name) == (None, "P3")
    assert release_label(choice) == "OpenClaw 2026.9.4-2026.9.6 (P3)"
    found = retired_backends(_loaded(tmp_path, NEW_SHAPE), choice)
    assert found is not None and found.agents[0].reason.startswith(
        "OpenClaw 2026.9.4-2026.9.6 (P3) has no qmd"
    )


def test_search_is_refused_for_the_agent_it_would_search(tmp_path: Path) -> None:
    loaded = _loaded(tmp_path, QMD_CONFIG)
    with pytest.raises(QmdRetired) as refused:
        refuse_retired_search(loaded, _choice("2026.8.2"), "beta")
    assert refused.value.exit_code == ExitCode.RETIRED
    message = str(refused.value)
    assert message.startswith(
        'no qmd memory search for agent "beta": OpenClaw 2026.8.2 (P2) has no qmd backend'
    )
    assert "\n" not in message
    assert str(tmp_path / "state" / "agents" / "beta" / "qmd") in message
    with pytest.raises(QmdRetired, match='agent "alpha"'):  # the default agent
        refuse_retired_search(loaded, _choice("2026.9.6"), None)
    with pytest.raises(UnknownAgentError):
        refuse_retired_search(loaded, _choice("2026.9.6"), "gamma")
