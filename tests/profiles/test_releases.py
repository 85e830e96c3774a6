"""The profile table: which release is which group, and the features that tell the groups apart."""

from __future__ import annotations

import pytest

from memwarm_cli.profiles.releases import (
    P0,
    P1,
    P2,
    P3,
    PROFILES,
    legacy_state_error_name,
    match_release,
    parse_version,
    release_node_range,
)


@pytest.mark.parametrize(
    ("version", "profile"),
    [
        ("2026.6.35", "P0"),
        ("2026.7.1", "P0"),
        ("2026.7.33", "P1"),
        ("2026.7.34", "P1"),
        ("2026.7.35", "P1"),
        ("2026.8.1", "P2"),
        ("2026.8.2", "P2"),
        ("2026.9.1", "P2"),
        ("2026.9.3", "P2"),
        ("2026.9.4", "P3"),
        ("2026.9.6", "P3"),
    ],
)
def test_measured_releases_map_to_their_group(version: str, profile: str) -> None:
    match = match_release(version)
    assert match is not None and match.profile.name == profile
    assert match.measured and match.note is None


@pytest.mark.parametrize(
    ("version", "profile", "words"),
    [
        ("2026.6.33", "P0", "not measured"),  # the 6.3x extended-stable line
        ("2026.7.2-beta.1", "P0", "not measured"),  # after 7.1 on the main line
        ("2026.7.36", "P1", "7.3x"),  # line, not plain order: 7.36 < 8.1 but is P1
        ("2026.8.9", "P2", "not measured"),
        ("2026.9.7", "P3", "newer than every release"),
        ("2027.1.0", "P3", "newest profile"),
        ("2025.1.1", "P0", "older"),
    ],
)
def test_unmeasured_versions_map_by_line_with_a_note(version: str, profile: str, words: str) -> None:
    match = match_release(version)
    assert match is not None and match.profile.name == profile
    assert not match.measured
    assert match.note is not None and words in match.note and version in match.note


@pytest.mark.parametrize("text", ["", "banana", "2026.9", "2026.9.6.1", "P3", "9.6", "2026.x.6"])
def test_non_versions_are_refused(text: str) -> None:
    assert match_release(text) is None
    assert parse_version(text) is None


def test_groups_differ_by_their_features() -> None:
    assert [p.name for p in PROFILES] == ["P0", "P1", "P2", "P3"]
    # prelude: surrogate-safe from P1, symlinks refused from P2
    assert [p.surrogate_safe_cuts for p in PROFILES] == [False, True, True, True]
    assert [p.refuse_symlinks for p in PROFILES] == [False, False, True, True]
    # bootstrap: six files from P2, the digest with prose only in P3
    assert "TOOLS.md" in P1.bootstrap_files and "TOOLS.md" not in P2.bootstrap_files
    assert [p.policy_digest for p in PROFILES] == ["lines", "lines", "lines", "with-prose"]
    assert P2.user_md_cap == 4000 and P1.user_md_cap is None
    assert [p.memory_eligibility for p in PROFILES] == [
        "none",
        "artifact-path",
        "memory-plugin",
        "memory-plugin",
    ]
    # backends and config: qmd retired in 2026.8.1, the keyed roster and memory.search from P2
    assert [p.qmd_available for p in PROFILES] == [True, True, False, False]
    assert P2.agent_roster == "entries-or-list" and P1.agent_roster == "list"
    assert P3.memory_search_key == ("memory", "search")
    assert "memory.backend" in P3.retired_keys and P0.retired_keys == ()


def test_node_ranges_and_the_legacy_error_class_follow_the_release() -> None:
    assert release_node_range("2026.6.35", P0) == ">=22.19.0"
    assert release_node_range("2026.7.1", P0) == ">=22.22.3 <23 || >=24.15.0 <25 || >=25.9.0"
    assert release_node_range("2026.9.2", P2) == ">=22.22.3 <23 || >=24.15.0 <25 || >=25.9.0"
    assert release_node_range("2026.9.3", P2) == ">=24.16.0 <25 || >=26.1.0"  # 9.3 needs Node 24
    assert release_node_range(None, P3) == ">=24.16.0 <25 || >=26.1.0"
    assert legacy_state_error_name("2026.8.2", P2) == "Error"
    assert legacy_state_error_name("2026.9.3", P2) == "StartupMaintenanceRequiredError"
    assert legacy_state_error_name(None, P2) == "Error"  # the reference release, 8.2
    assert legacy_state_error_name(None, P3) == "StartupMaintenanceRequiredError"


def test_memory_search_is_read_where_the_release_keeps_it() -> None:
    from memwarm_cli.config.lookup import memory_search_block

    cfg = {
        "agents": {"defaults": {"memorySearch": {"enabled": False}}},
        "memory": {"search": {"enabled": True}},
    }
    assert memory_search_block(cfg, P0) == {"enabled": False}
    assert memory_search_block(cfg, P3) == {"enabled": True}
    assert memory_search_block(cfg, P3, {"memory": {"search": {"sources": ["sessions"]}}}) == {
        "sources": ["sessions"]
    }
    assert memory_search_block(cfg, P1, {"memorySearch": {"x": 1}}) == {"x": 1}
    assert memory_search_block({}, P3) is None
