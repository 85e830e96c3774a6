"""The run's release, decided in order: flag, MEMWARM_OPENCLAW, installed package, config shape, default."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.errors import UsageError
from memwarm_cli.profiles.choice import resolve_openclaw, shape_signs
from tests.profiles.support import npm_global

NO_PATH = {"PATH": "/nonexistent"}


def test_the_flag_wins_over_everything(tmp_path: Path) -> None:
    bin_dir = npm_global(tmp_path / "p", "2026.8.2")
    env = {"PATH": str(bin_dir), "MEMWARM_OPENCLAW": "2026.7.35"}
    choice = resolve_openclaw("2026.9.6", env, {"agents": {"list": []}})
    assert (choice.profile.name, choice.source, choice.version, choice.measured) == (
        "P3",
        "flag",
        "2026.9.6",
        True,
    )
    assert choice.to_json() == {
        "version": "2026.9.6",
        "profile": "P3",
        "releases": "2026.9.4-2026.9.6",
        "source": "flag",
        "path": None,
        "measured": True,
    }


def test_the_environment_comes_next_then_the_installed_package(tmp_path: Path) -> None:
    bin_dir = npm_global(tmp_path / "p", "2026.8.2")
    env = {"PATH": str(bin_dir), "MEMWARM_OPENCLAW": "2026.7.35"}
    assert resolve_openclaw(None, env, None).profile.name == "P1"
    installed = resolve_openclaw(None, {"PATH": str(bin_dir), "MEMWARM_OPENCLAW": "  "}, None)
    assert (installed.profile.name, installed.source) == ("P2", "installed")
    assert installed.path is not None and installed.path.endswith("lib/node_modules/openclaw")
    assert installed.detail == f"installed at {installed.path}"


@pytest.mark.parametrize(
    ("cfg", "profile", "source"),
    [
        ({"agents": {"entries": {"main": {}}}}, "P3", "config-shape"),
        ({"memory": {"search": {"enabled": True}}}, "P3", "config-shape"),
        ({"agents": {"ownership": "explicit"}}, "P3", "config-shape"),
        ({"agents": {"list": [{"id": "main"}]}}, "P0", "config-shape"),
        ({"memory": {"backend": "qmd"}}, "P0", "config-shape"),
        ({"agents": {"defaults": {"memorySearch": {}}}}, "P0", "config-shape"),
        # both: only a 2026.8.1+ release writes the keyed roster; the old key is a leftover
        ({"agents": {"entries": {}}, "memory": {"qmd": {}}}, "P3", "config-shape"),
        ({"meta": {"lastTouchedVersion": "2026.7.35"}}, "P1", "config-stamp"),
        ({"meta": {"lastTouchedVersion": "not a version"}}, "P0", "default"),
        ({}, "P0", "default"),
        (None, "P0", "default"),
    ],
)
def test_the_config_shape_decides_when_nothing_names_a_release(
    cfg: dict[str, Any] | None, profile: str, source: str
) -> None:
    choice = resolve_openclaw(None, NO_PATH, cfg)
    assert (choice.profile.name, choice.source) == (profile, source)
    assert choice.measured is (source == "config-stamp")


def test_shape_signs_are_listed_in_order() -> None:
    cfg = {"agents": {"list": [], "entries": {}, "defaults": {"memorySearch": {}}}, "memory": {"qmd": {}}}
    assert shape_signs(cfg) == (
        ["agents.entries"],
        ["agents.list", "memory.qmd", "agents.defaults.memorySearch"],
    )


@pytest.mark.parametrize(("flag", "env"), [("banana", {}), (None, {"MEMWARM_OPENCLAW": "9.6"})])
def test_a_name_that_is_no_version_is_a_usage_error(flag: str | None, env: dict[str, str]) -> None:
    with pytest.raises(UsageError, match="is not an OpenClaw version"):
        resolve_openclaw(flag, {**NO_PATH, **env}, None)


def test_unmeasured_and_unreadable_releases_carry_a_note(tmp_path: Path) -> None:
    newer = resolve_openclaw("2026.10.1", NO_PATH, None)
    assert newer.profile.name == "P3" and newer.note is not None and "newest profile" in newer.note
    bin_dir = npm_global(tmp_path / "p", None)
    unknown = resolve_openclaw(None, {"PATH": str(bin_dir)}, None)
    assert (unknown.profile.name, unknown.source, unknown.measured) == ("P0", "installed", False)
    assert unknown.note is not None and "do not say its release" in unknown.note
