"""One JSON vocabulary across commands, checked on every command of the tree (walked, so a new command
is covered the day it is registered): every `--json` output parses with a strict JSON parser, its top
level is an object with an integer `schema`, an agent id is always under `agentId` (or a key ending in
`AgentId`), never `agent` or `id`, and a qmd index path always under `indexPath`.

Run against the real qmd (a warm index, so `search` and `status` have everything to say); a number JSON
cannot hold (a qmd score of 1e400) comes from a wrapper around the real qmd that rewrites its scores;
tests/cli/terminal/test_output.py holds the writer itself to null for every NaN and infinity.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.cli.app import build_command
from tests.backends.support import Scenario, real_qmd_scenario
from tests.conftest import TOOLS_BIN, CliResult, run_memwarm

pytestmark = pytest.mark.qmd

AGENTS = ("alpha-vocab", "beta-vocab")  # ids no other value of the outputs equals by chance
NOTES = {
    "MEMORY.md": "# Memory\nThe pelican project ships on Fridays.\n",
    "memory/2026-04-11.md": "# Today\nPelican release notes drafted.\n",
}
AT = "2026-04-11T18:00:00Z"
# What each command runs with to show its JSON; a command of the tree missing here fails the walk.
RUNS: dict[tuple[str, ...], list[list[str]]] = {
    ("prelude",): [["prelude", "--json", "--agent", "beta-vocab", "--at", AT]],
    ("scan",): [
        ["scan", "--json", "--agent", "beta-vocab", "--at", AT],
        ["scan", "--json", "--all-agents", "--all", "--at", AT],
    ],
    ("context",): [["context", "--json", "--agent", "beta-vocab", "--at", AT]],
    ("config", "path"): [["config", "path", "--json"]],
    ("config", "check"): [["config", "check", "--json"]],
    ("config", "show"): [["config", "show", "--format", "json"], ["config", "show", "--json"]],
    ("init-backends",): [["init-backends", "--json"], ["init-backends", "--dry-run", "--json"]],
    ("status",): [["status", "--json"]],
    ("search",): [["search", "--json", "--agent", "beta-vocab", "pelican"]],
}
NOT_DATA = {("completion",)}  # prints a shell script, no data of its own
FORBIDDEN_KEYS = {"agent", "id", "agent_id", "agentID", "qmdIndex", "index_path", "dbPath", "indexFile"}


def _leaves(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    subs = getattr(command, "commands", None)
    if subs is None:
        yield path
        return
    for name, sub in subs.items():
        yield from _leaves(sub, (*path, name))


LEAVES = sorted(_leaves(build_command()))


def strict_json(text: str) -> Any:
    """json.loads that refuses NaN and Infinity, which JSON has no spelling for."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    root = tmp_path_factory.mktemp("json-vocabulary")
    scenario = real_qmd_scenario(root, dict.fromkeys(AGENTS, NOTES), {"memory": {"backend": "qmd"}})
    first = run_memwarm(["init-backends", "-q"], scenario.env())
    assert first.returncode == 0, first.stderr
    return scenario


def _index_paths(scenario: Scenario) -> set[str]:
    return {str(scenario.state / "agents" / a / "qmd" / "xdg-cache" / "qmd" / "index.sqlite") for a in AGENTS}


def vocabulary_errors(value: Any, index_paths: set[str], where: str = "") -> Iterator[str]:
    """Where `value` (a parsed JSON output) breaks the vocabulary."""
    if isinstance(value, list):
        for number, item in enumerate(value):
            yield from vocabulary_errors(item, index_paths, f"{where}[{number}]")
        return
    if not isinstance(value, dict):
        return
    for key, item in value.items():
        at = f"{where}.{key}"
        if key in FORBIDDEN_KEYS:
            yield f"{at}: not a key of the vocabulary"
        if not isinstance(item, str):
            yield from vocabulary_errors(item, index_paths, at)
            continue
        if item in AGENTS and not (key == "agentId" or key.endswith("AgentId")):
            yield f"{at}: an agent id under another key than agentId"
        if item in index_paths and key != "indexPath":
            yield f"{at}: a qmd index path under another key than indexPath"


def test_every_data_command_is_run_here() -> None:
    assert {path for path in LEAVES if path not in NOT_DATA} == set(RUNS), (
        "a command with --json is missing from RUNS (or one is gone): add how it runs"
    )


@pytest.mark.parametrize("path", sorted(RUNS), ids=[" ".join(p) for p in sorted(RUNS)])
def test_every_json_output_speaks_the_vocabulary(warm: Scenario, path: tuple[str, ...]) -> None:
    seen_agents: set[str] = set()
    for argv in RUNS[path]:
        result = run_memwarm(argv, warm.env())
        assert result.returncode == 0, (argv, result.stderr)
        data = strict_json(result.stdout)
        assert isinstance(data, dict), f"{argv}: the top level is no object"
        assert isinstance(data.get("schema"), int) and not isinstance(data["schema"], bool), argv
        assert list(vocabulary_errors(data, _index_paths(warm))) == [], argv
        seen_agents |= set(_values_under(data, "agentId"))
    if path != ("config", "check"):  # its findings name no agent here
        assert seen_agents & set(AGENTS), f"{path}: no agentId at all"  # the check had work to do


def _values_under(value: Any, name: str) -> Iterator[Any]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key == name:
                yield item
            yield from _values_under(item, name)
    elif isinstance(value, list):
        for item in value:
            yield from _values_under(item, name)


def test_the_index_path_is_one_name_everywhere(warm: Scenario) -> None:
    paths = _index_paths(warm)
    for argv in (
        ["config", "path", "--json"],
        ["status", "--json"],
        ["init-backends", "--dry-run", "--json"],
    ):
        data = strict_json(run_memwarm(argv, warm.env()).stdout)
        assert set(_values_under(data, "indexPath")) == paths, argv


def _score_rewriting_qmd(directory: Path, score: str) -> Path:
    """A qmd that is the real one, except that every score it answers is `score`: a fault (a score JSON
    has no number for) the real qmd does not show on its own."""
    directory.mkdir(exist_ok=True)
    script = directory / "qmd"
    script.write_text(
        "#!/bin/bash\n"
        f'out=$("{TOOLS_BIN / "qmd"}" "$@"); code=$?\n'
        f'printf \'%s\\n\' "$out" | sed -E \'s/"score": *[-0-9.eE+]+/"score": {score}/g\'\n'
        "exit $code\n",
        encoding="utf-8",
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return directory


@pytest.mark.parametrize("score", ["1e400", "-1e400"])
def test_a_score_json_cannot_hold_still_gives_strict_json(warm: Scenario, tmp_path: Path, score: str) -> None:
    wrapper = _score_rewriting_qmd(tmp_path / "bin", score)
    env = warm.env({"PATH": f"{wrapper}{os.pathsep}{warm.env()['PATH']}"})
    result: CliResult = run_memwarm(["search", "--json", "--agent", "beta-vocab", "pelican"], env)
    assert result.returncode == 0, result.stderr
    assert "Infinity" not in result.stdout
    data = strict_json(result.stdout)
    # As the release ranks them (a score that is no finite number counts as 0), or null: never Infinity.
    assert data["results"] and all(hit["score"] in (0, None) for hit in data["results"])


# On a release without the qmd backend, the commands that would run qmd answer with every agent `retired`
# (exit 6, search refuses with one line): the same vocabulary, and the warm index left as it is.
RETIRED_RUNS = (
    ["init-backends", "--json"],
    ["init-backends", "--dry-run", "--json"],
    ["status", "--json"],
)


@pytest.mark.parametrize("version", ["2026.8.2", "2026.9.6"])
def test_the_retired_outputs_speak_the_vocabulary(warm: Scenario, version: str) -> None:
    index = warm.state / "agents" / AGENTS[0] / "qmd" / "xdg-cache" / "qmd" / "index.sqlite"
    before = (index.stat().st_mtime_ns, index.read_bytes())
    for argv in RETIRED_RUNS:
        result = run_memwarm(["--openclaw", version, *argv], warm.env())
        assert result.returncode == 6, (argv, result.stderr)
        data = strict_json(result.stdout)
        assert isinstance(data.get("schema"), int) and data["openclaw"]["version"] == version, argv
        assert list(vocabulary_errors(data, _index_paths(warm))) == [], argv
        assert set(_values_under(data, "agentId")) == set(AGENTS), argv
        assert set(_values_under(data, "indexPath")) == _index_paths(warm), argv
        assert {agent["status"] for agent in data["agents"]} == {"retired"}, argv
        assert data["exitCode"] == 6 and data["summary"]["retired"] == len(AGENTS), argv
    search = run_memwarm(
        ["--openclaw", version, "search", "--json", "--agent", "beta-vocab", "pelican"], warm.env()
    )
    assert (search.returncode, search.stdout, len(search.stderr.splitlines())) == (6, "", 1)
    assert (index.stat().st_mtime_ns, index.read_bytes()) == before
