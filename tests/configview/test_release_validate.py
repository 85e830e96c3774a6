"""`config check` against the released `openclaw config validate`'s verdicts (6.35, 7.35, 8.2, 9.6).

tests/configview/release_validate/configs/ holds 163 configs (and the files they include): 149 of the
6.35 shape and 14 of the 2026.9 shape (`p2-*`). verdicts.json holds what `openclaw@2026.6.35 config
validate --json` said about each (plus one for a file that does not exist), verdicts-2026.7.35.json,
verdicts-2026.8.2.json and verdicts-2026.9.6.json what 2026.7.35, 8.2 and 9.6 said, all recorded from
the released packages (record_verdicts.py, "how" in each file). Each config is run through
`memwarm --openclaw <release> config check --json`, so the profile of that release (P0 for 6.35, P1 for
7.35, P2 for 8.2, P3 for 9.6) judges it by the schema its `config_schema` names; validity and the error
paths must be the release's:

- memwarm's paths `a.list[0].b` are the release's `a.list.0.b`, the document itself is `<root>`;
- the release reports an unknown key at the object that holds it, memwarm at the key (with "did you
  mean"): a memwarm error whose message starts with "unknown key" stands for its parent's path;
- the release reports every `$include` failure at `<root>`, memwarm at the failing `$include`;
- the sets must be equal: every release path is reported, and memwarm reports nothing else.

A difference kept on purpose is listed in the verdicts file's "differences" with the reason (none is).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunCli

DATA = Path(__file__).parent / "release_validate"
RELEASES = {
    "2026.6.35": json.loads((DATA / "verdicts.json").read_text()),  # P0
    "2026.7.35": json.loads((DATA / "verdicts-2026.7.35.json").read_text()),  # P1
    "2026.8.2": json.loads((DATA / "verdicts-2026.8.2.json").read_text()),  # P2
    "2026.9.6": json.loads((DATA / "verdicts-2026.9.6.json").read_text()),  # P3
}
VERDICTS = RELEASES["2026.6.35"]
CASES = [(release, case) for release, verdicts in RELEASES.items() for case in verdicts["variants"]]
ROOT = "<root>"
MISSING = "150-config-missing-file.json5"


def release_path(path: str, message: str) -> str:
    """memwarm's dotted path of an error in the release's spelling (unknown keys at their parent)."""
    dotted = re.sub(r"\[(\d+)\]", r".\1", path)
    if "$include" in dotted.split("."):
        return ROOT
    if message.startswith("unknown key"):
        dotted = dotted.rpartition(".")[0] if "." in dotted else ""
    return dotted or ROOT


def memwarm_verdict(
    run_cli: RunCli, file: Path, env: dict[str, str], release: str
) -> tuple[bool, list[str], Any]:
    args = ["--openclaw", release, "--config", str(file), "config", "check", "--json"]
    result = run_cli(args, env=env, cwd=file.parent)
    data = json.loads(result.stdout)
    assert isinstance(data["schema"], int)
    assert data["openclaw"]["version"] == release
    errors = [f for f in data["findings"] if f["severity"] == "error"]
    assert (result.returncode == 0) == (not errors), result.stderr
    paths = sorted({release_path(f["path"], f["message"]) for f in errors})
    return not errors, paths, data


@pytest.mark.parametrize(("release", "case"), CASES, ids=[f"{r}-{c['file']}" for r, c in CASES])
def test_config_check_agrees_with_the_release(
    release: str, case: dict[str, Any], run_cli: RunCli, tmp_path: Path
) -> None:
    verdicts = RELEASES[release]
    env = {**verdicts["env"], "OPENCLAW_STATE_DIR": str(tmp_path / "state")}
    file = DATA / "configs" / case["file"]
    valid, paths, data = memwarm_verdict(run_cli, file, env, release)
    kept = verdicts["differences"].get(case["file"])
    if kept is not None:
        assert (valid, paths) == (kept["memwarmValid"], kept["memwarmErrorPaths"]), kept["reason"]
        return
    expected = sorted(set(case["errorPaths"]))
    assert (valid, paths) == (case["valid"], expected), (case["note"], case["messages"], data["findings"])


@pytest.mark.parametrize("release", list(RELEASES))
def test_every_recorded_variant_has_its_config(release: str) -> None:
    files = {v["file"] for v in RELEASES[release]["variants"]}
    on_disk = {p.name for p in (DATA / "configs").glob("*.json5")}
    assert on_disk == files - {MISSING}
    assert len(files) == 164
    assert RELEASES[release]["release"].startswith(f"openclaw@{release} ")


SHARED_AGENT_DIR = [
    (release, case, message)
    for release, case in CASES
    for message in case["messages"]
    if "Duplicate agentDir detected" in message
]


@pytest.mark.parametrize(
    ("release", "case", "message"), SHARED_AGENT_DIR, ids=[f"{r}-{c['file']}" for r, c, _ in SHARED_AGENT_DIR]
)
def test_a_shared_agent_dir_is_refused_in_the_releases_words(
    release: str, case: dict[str, Any], message: str, run_cli: RunCli, tmp_path: Path
) -> None:
    """`findDuplicateAgentDirs` writes its message itself (not the schema): memwarm gives its words whole."""
    env = {**RELEASES[release]["env"], "OPENCLAW_STATE_DIR": str(tmp_path / "state")}
    _, _, data = memwarm_verdict(run_cli, DATA / "configs" / case["file"], env, release)
    path, _, words = message.partition(": ")
    assert [f["message"] for f in data["findings"] if f["path"] == path] == [words]
