"""Setup state in OpenClaw's SQLite state store, held to openclaw@2026.9.6 itself (issue 30).

From 2026.8.1 "setup completed" (which hides BOOTSTRAP.md) is a row of `<stateDir>/state/openclaw.sqlite`.
Here the release records it: `openclaw doctor --fix` imports each workspace's legacy
`.openclaw/workspace-state.json` into the store (no model needed). Then `memwarm context` and the release's
own context code (release_bootstrap.mjs: `resolveBootstrapContextForRun`, `isWorkspaceSetupCompleted`,
`isWorkspaceBootstrapPending` from its dist) must agree on every agent: which bootstrap files load,
whether setup is completed, whether BOOTSTRAP.md is pending.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.interop.openclaw96_run import (
    NODE24_BIN,
    OPENCLAW96_PACKAGE,
    OPENCLAW96_TIMEOUT_S,
    MainLineWorld,
    main_line_config,
    write_notes,
)

# One worker builds the world once (doctor alone takes half a minute) and runs its tests.
pytestmark = [pytest.mark.interop, pytest.mark.xdist_group("openclaw-2026.9.6-setup-state")]

ORACLE = Path(__file__).with_name("release_bootstrap.mjs")
COMPLETED_AT = "2026-11-01T10:00:00.000Z"
SEEDED_AT = "2026-10-30T08:00:00.000Z"
# agent -> the legacy state file doctor imports (None: no legacy state at all)
LEGACY_STATE: dict[str, dict[str, Any] | None] = {
    "done": {"version": 1, "bootstrapSeededAt": SEEDED_AT, "setupCompletedAt": COMPLETED_AT},
    "seeded": {"version": 1, "bootstrapSeededAt": SEEDED_AT},
    "fresh": None,
    "linked": {"version": 1, "setupCompletedAt": COMPLETED_AT},  # its workspace is named through a symlink
}
AGENTS = tuple(LEGACY_STATE)


def build_setup_world(root: Path) -> MainLineWorld:
    """Four workspaces with BOOTSTRAP.md, their legacy setup state imported by the release's doctor."""
    workspaces = {}
    for agent, legacy in LEGACY_STATE.items():
        real = root / (f"real-{agent}" if agent == "linked" else f"ws-{agent}")
        write_notes(
            real, {"AGENTS.md": f"# Agents of {agent}\n", "BOOTSTRAP.md": "# Bootstrap\nSay hello.\n"}
        )
        if legacy is not None:
            write_notes(real, {".openclaw/workspace-state.json": json.dumps(legacy)})
        workspace = real
        if agent == "linked":
            workspace = root / "ws-linked"
            workspace.symlink_to(real)
        workspaces[agent] = workspace
    world = MainLineWorld.create(root, main_line_config(workspaces, {"provider": "none"}))
    world.openclaw("doctor", "--fix", "--non-interactive")
    return world


def release_view(world: MainLineWorld, agent: str) -> dict[str, Any]:
    config = json.loads(world.config_path.read_text(encoding="utf-8"))
    workspace = config["agents"]["entries"][agent]["workspace"]
    proc = subprocess.run(
        [
            str(NODE24_BIN / "node"),
            str(ORACLE),
            str(OPENCLAW96_PACKAGE),
            str(world.config_path),
            agent,
            workspace,
        ],
        env=world.env(),
        cwd=world.root,
        capture_output=True,
        text=True,
        timeout=OPENCLAW96_TIMEOUT_S,
        check=True,
    )
    result: dict[str, Any] = json.loads(proc.stdout.splitlines()[-1])
    return result


@pytest.fixture(scope="module")
def setup_world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MainLineWorld]:
    yield build_setup_world(tmp_path_factory.mktemp("setup-state"))


@pytest.fixture(scope="module")
def views(setup_world: MainLineWorld) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """Per agent (memwarm's context --json bootstrap, the release's view). memwarm reads first: the
    release's non-read-only calls may add alias rows."""
    mine = {agent: setup_world.memwarm_json("context", "--agent", agent)["bootstrap"] for agent in AGENTS}
    return {agent: (mine[agent], release_view(setup_world, agent)) for agent in AGENTS}


def test_doctor_recorded_the_setup_state_in_the_store(setup_world: MainLineWorld) -> None:
    import sqlite3

    db = setup_world.state_dir / "state" / "openclaw.sqlite"
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as con:
        rows = dict(
            con.execute("SELECT workspace_path, setup_completed_at FROM workspace_setup_state").fetchall()
        )
    assert rows.get(str(setup_world.root / "ws-done")) == COMPLETED_AT
    assert rows.get(str(setup_world.root / "real-linked")) == COMPLETED_AT
    assert str(setup_world.root / "ws-seeded") in rows and rows[str(setup_world.root / "ws-seeded")] is None
    assert not (setup_world.root / "ws-done" / ".openclaw" / "workspace-state.json").exists()  # archived


@pytest.mark.parametrize("agent", AGENTS)
def test_memwarm_and_the_release_agree_on_setup_and_files(
    views: dict[str, tuple[dict[str, Any], dict[str, Any]]], agent: str
) -> None:
    mine, release = views[agent]
    assert mine["setup"]["completed"] is release["setupCompleted"], (mine["setup"], release)
    assert (mine["bootstrapMode"] == "full") is release["bootstrapPending"]
    assert [(f["name"], f["path"], f["missing"]) for f in mine["resolvedFiles"]] == [
        (f["name"], f["path"], f["missing"]) for f in release["files"]
    ]
    assert [f["path"] for f in mine["contextFiles"]] == release["contextFiles"]


def test_a_completed_setup_hides_bootstrap_md_in_both(
    views: dict[str, tuple[dict[str, Any], dict[str, Any]]],
) -> None:
    shown = {
        agent: any(f["name"] == "BOOTSTRAP.md" for f in release["files"])
        for agent, (_, release) in views.items()
    }
    assert shown == {"done": False, "seeded": True, "fresh": True, "linked": False}
    assert views["done"][0]["setup"]["marker"] == COMPLETED_AT
    assert views["done"][0]["setup"]["stateFile"].endswith("/state/openclaw.sqlite")
