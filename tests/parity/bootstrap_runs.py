"""Bootstrap golden cases through the CLI (run in process) for one or more OpenClaw releases, and the
checks every bootstrap set shares (tests/golden/bootstrap/README.md).

Each case's workspace is built once at its fixed root (paths in the expectations contain it literally);
every release named runs `context --json` on it with `--openclaw`, and a few cases also the text view,
whose stdout must be exactly the blocks. A case the release refuses (2026.8.1+: legacy workspace setup
state) must fail with the release's error: exit 1, one line on stderr, and `context --json` saying so.
The fixed roots are shared by every test process on the machine: the modules that build them run in one
pytest-xdist worker (their xdist_group "bootstrap-case-roots").
"""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memwarm_cli.jsstring import to_well_formed
from tests.conftest import CliResult, isolated_env, run_memwarm
from tests.parity.bootstrap_cases import all_case_workspaces

EXPECTED_KEYS = (
    "sessionAgentId",
    "contextInjection",
    "limits",
    "bootstrapMode",
    "files",
    "contextFiles",
    "injected",
    "truncationNotice",
    "projectContext",
    "dynamicProjectContext",
)
# memwarm's JSON names for the expected keys that differ: `files` is the injection stats, as the brief asks.
JSON_KEY = {"files": "resolvedFiles", "injected": "files"}
TEXT_VIEW = ["--only", "bootstrap", "--format", "text"]


@dataclass
class BootstrapRuns:
    """One release's runs over the cases: `context --json` per case, the text view for some."""

    openclaw: str
    expected: Mapping[str, Any]  # case name -> the release's expected object (or {error, errorCode})
    json: dict[str, CliResult] = field(default_factory=dict)
    text: dict[str, CliResult] = field(default_factory=dict)


def _command(
    case: dict[str, Any], config_dir: Path, workspace: Path, openclaw: str, view: list[str]
) -> list[str]:
    global_args = ["--openclaw", openclaw]
    if case["config"] is not None:
        config_file = config_dir / f"{case['name']}.json"
        config_file.write_text(json.dumps(case["config"]), encoding="utf-8")
        global_args += ["--config", str(config_file)]
    key = [] if case["sessionKey"] is None else ["--session-key", case["sessionKey"]]
    # --at: the prelude part needs an instant; these workspaces have no memory/, so it is always empty.
    return [*global_args, "context", "--workspace", str(workspace), *key, "--at", "0", *view]


@contextlib.contextmanager
def run_bootstrap_cases(
    cases: list[dict[str, Any]],
    releases: Mapping[str, tuple[Mapping[str, Any], str]],
    text_cases: frozenset[str] = frozenset(),
) -> Iterator[dict[str, BootstrapRuns]]:
    """label -> the runs of release `openclaw` (`releases[label] = (expected by case name, openclaw)`),
    for the cases each release has an expectation for."""
    base = Path(tempfile.mkdtemp(prefix="memwarm-bootstrap-parity-"))
    try:
        (base / "home").mkdir()
        (base / "state").mkdir()  # an empty state dir: no config file, for the cases whose config is null
        env = isolated_env(base / "home", {"OPENCLAW_STATE_DIR": str(base / "state")})
        runs = {label: BootstrapRuns(openclaw, expected) for label, (expected, openclaw) in releases.items()}
        with all_case_workspaces(cases) as workspaces:
            for case in cases:
                workspace = workspaces[case["name"]]
                for release in runs.values():
                    if case["name"] not in release.expected:
                        continue
                    release.json[case["name"]] = run_memwarm(
                        _command(case, base, workspace, release.openclaw, ["--json"]), env
                    )
                    if case["name"] in text_cases:
                        view = _command(case, base, workspace, release.openclaw, TEXT_VIEW)
                        release.text[case["name"]] = run_memwarm(view, env)
        yield runs
    finally:
        shutil.rmtree(base, ignore_errors=True)


def report(runs: BootstrapRuns, name: str) -> dict[str, Any]:
    result = runs.json[name]
    assert result.returncode == 0, (name, result.stderr)
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def check_key(runs: BootstrapRuns, name: str, key: str, expected: Any) -> None:
    got = report(runs, name)["bootstrap"][JSON_KEY.get(key, key)]
    assert got == expected, f"{key}: got {ascii(got)[:2000]}\nexpected {ascii(expected)[:2000]}"
    assert json.dumps(got) == json.dumps(expected)  # types too: true is not 1, 3 is not 3.0


def check_text_view(runs: BootstrapRuns, name: str, expected: Mapping[str, Any]) -> None:
    text = runs.text[name]
    assert text.returncode == 0, text
    blocks = [b for b in (expected["projectContext"], expected["dynamicProjectContext"]) if b is not None]
    # Not a terminal: nothing added; a lone surrogate is written as U+FFFD, as Node writes it.
    assert text.stdout_bytes == to_well_formed("\n\n".join(blocks)).encode("utf-8")
    if not blocks:
        assert "contextInjection is never" in text.stderr


def check_error(runs: BootstrapRuns, name: str, error: str, code: str | None) -> None:
    """The release fails the session: `<ErrorName>: <message>` and its code, as `context --json` reports
    them (exit 1), with the message as the one error line on stderr."""
    result = runs.json[name]
    assert result.returncode == 1, (name, result.stdout, result.stderr)
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("memwarm: error: "), result.stderr
    record = json.loads(result.stdout)
    failure = record["error"]
    assert f"{failure['type']}: {failure['message']}" == error
    assert failure["code"] == code
    assert failure["message"] in result.stderr
    assert record["bootstrap"] is None and record["prelude"] is None
