"""`memwarm config check` against the verdicts of the released `openclaw config validate` (2026.6.35).

tests/configview/release_validate/configs/ holds 149 configs (and the files they include), verdicts.json
what `openclaw@2026.6.35 config validate --json` said about each (plus one for a file that does not
exist), recorded from the release (research report config-validate.md). Each is run through
`memwarm config check --json`; validity and the error paths must be the release's:

- memwarm's paths `a.list[0].b` are the release's `a.list.0.b`, the document itself is `<root>`;
- the release reports an unknown key at the object that holds it, memwarm at the key (with "did you
  mean"): a memwarm error whose message starts with "unknown key" stands for its parent's path;
- the release reports every `$include` failure at `<root>`, memwarm at the failing `$include`;
- the sets must be equal: every release path is reported, and memwarm reports nothing else.

A difference kept on purpose is listed in verdicts.json's "differences" with the reason.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunCli

DATA = Path(__file__).parent / "release_validate"
VERDICTS = json.loads((DATA / "verdicts.json").read_text())
ROOT = "<root>"


def release_path(path: str, message: str) -> str:
    """memwarm's dotted path of an error in the release's spelling (unknown keys at their parent)."""
    dotted = re.sub(r"\[(\d+)\]", r".\1", path)
    if "$include" in dotted.split("."):
        return ROOT
    if message.startswith("unknown key"):
        dotted = dotted.rpartition(".")[0] if "." in dotted else ""
    return dotted or ROOT


def memwarm_verdict(run_cli: RunCli, file: Path, env: dict[str, str]) -> tuple[bool, list[str], Any]:
    result = run_cli(["--config", str(file), "config", "check", "--json"], env=env, cwd=file.parent)
    data = json.loads(result.stdout)
    assert isinstance(data["schema"], int)
    errors = [f for f in data["findings"] if f["severity"] == "error"]
    assert (result.returncode == 0) == (not errors), result.stderr
    paths = sorted({release_path(f["path"], f["message"]) for f in errors})
    return not errors, paths, data


@pytest.mark.parametrize("case", VERDICTS["variants"], ids=[v["file"] for v in VERDICTS["variants"]])
def test_config_check_agrees_with_the_release(case: dict[str, Any], run_cli: RunCli, tmp_path: Path) -> None:
    env = {**VERDICTS["env"], "OPENCLAW_STATE_DIR": str(tmp_path / "state")}
    file = DATA / "configs" / case["file"]
    valid, paths, data = memwarm_verdict(run_cli, file, env)
    kept = VERDICTS["differences"].get(case["file"])
    if kept is not None:
        assert (valid, paths) == (kept["memwarmValid"], kept["memwarmErrorPaths"]), kept["reason"]
        return
    release = sorted(set(case["errorPaths"]))
    assert (valid, paths) == (case["valid"], release), (case["note"], case["messages"], data["findings"])


def test_every_recorded_variant_has_its_config() -> None:
    files = {v["file"] for v in VERDICTS["variants"]}
    on_disk = {p.name for p in (DATA / "configs").glob("*.json5")}
    assert on_disk == files - {"150-config-missing-file.json5"}
    assert len(files) == 150
