"""init-backends' collections against the real qmd (tools/bin/qmd): the names, paths and patterns are
OpenClaw 2026.6.35's, a file entry indexes that one file, nothing the gateway made is removed, and a
custom collection equal to a default one is refused instead of swapped back and forth."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.backends.support import Scenario, real_qmd_scenario


def _collections(agent: dict[str, Any]) -> dict[str, tuple[str, str, str]]:
    return {c["name"]: (c["path"], c["pattern"], c["action"]) for c in agent["collections"]}


def _listed(scenario: Scenario) -> str:
    proc = scenario.qmd("main", "collection", "list")
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_a_file_and_a_named_path_outside_the_workspace_as_the_release_names_them(tmp_path: Path) -> None:
    shared = tmp_path / "shared-notes"
    shared.mkdir()
    (shared / "team.md").write_text("# Team\nThe ocelot rota.\n")
    notes = {"MEMORY.md": "# M\n", "memory/a.md": "# A\n", "My Notes(1).md": "# Notes\nnarwhal budget\n"}
    qmd = {"paths": [{"path": str(shared), "name": "shared"}, {"path": "My Notes(1).md", "pattern": "x/**"}]}
    scenario = real_qmd_scenario(tmp_path, {"main": notes}, {"memory": {"backend": "qmd", "qmd": qmd}})
    result, report = scenario.run_json()
    assert result.returncode == 0, result.stderr
    ws = str(scenario.workspace("main"))
    assert _collections(report["agents"][0]) == {
        "memory-root-main": (ws, "MEMORY.md", "added"),
        "memory-dir-main": (f"{ws}/memory", "**/*.md", "added"),
        "shared": (str(shared), "**/*.md", "added"),
        "custom-2-main": (ws, "My Notes\\(1\\).md", "added"),
    }
    # qmd takes the escaped basename as that one file: the note is found, and nothing else of the root.
    found = scenario.qmd("main", "search", "narwhal", "--json", "-c", "custom-2-main")
    assert '"file": "qmd://custom-2-main/My Notes(1).md"' in found.stdout, found.stdout + found.stderr
    assert "memory-root-main" in _listed(scenario)


def test_a_collection_is_never_removed_for_an_add_that_cannot_run(tmp_path: Path) -> None:
    """The gateway made `custom-1-main` on a directory; the config now names one that does not exist
    yet (the gateway would create it at first use). memwarm leaves the old one in place."""
    notes = {"MEMORY.md": "# M\n", "memory/a.md": "# A\n", "docs/d.md": "# D\nzebra\n"}
    cfg: dict[str, Any] = {"memory": {"backend": "qmd", "qmd": {"paths": [{"path": "docs"}]}}}
    scenario = real_qmd_scenario(tmp_path, {"main": notes}, cfg)
    assert scenario.run([]).returncode == 0
    scenario.config["memory"]["qmd"]["paths"] = [{"path": "later"}]
    scenario.write_config()
    result, report = scenario.run_json(["--force"])
    assert result.returncode == 0, result.stderr
    (path, _pattern, action) = _collections(report["agents"][0])["custom-1-main"]
    assert (path, action) == (str(scenario.workspace("main") / "later"), "missing")
    assert not any(c["argv"][1:3] == ["collection", "remove"] for c in report["agents"][0]["commands"])
    assert "custom-1-main" in _listed(scenario)  # still bound to docs/, as the gateway left it
    assert "the gateway creates it and adds the collection at first use" in result.stderr


def test_a_custom_copy_of_a_default_collection_is_refused_not_swapped(tmp_path: Path) -> None:
    """qmd holds one collection per path and pattern: 6.35 removes memory-dir-main to add custom-1-main
    and back at every open, and its search fails. memwarm keeps the default and fails the agent."""
    notes = {"MEMORY.md": "# M\n", "memory/a.md": "# A\n"}
    cfg = {"memory": {"backend": "qmd", "qmd": {"paths": [{"path": "memory"}]}}}
    scenario = real_qmd_scenario(tmp_path, {"main": notes}, cfg)
    for _ in range(2):
        result, report = scenario.run_json(["--force"])
        assert result.returncode == 1, result.stderr
        agent = report["agents"][0]
        assert agent["status"] == "failed"
        assert "has the path and pattern of memory-dir-main" in agent["reason"]
        got = _collections(agent)
        assert got["custom-1-main"][2] == "conflict"
        assert got["memory-dir-main"][2] in ("added", "kept")
        assert not any(c["argv"][1:3] == ["collection", "remove"] for c in agent["commands"])
    listed = _listed(scenario)
    assert "memory-dir-main" in listed and "custom-1-main" not in listed
