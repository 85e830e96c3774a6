"""Every session-export golden case through `memwarm init-backends` itself, with the real qmd.

Per case: the tree is built as tests/golden/sessions/README.md says, a config runs that case
(sessions on, its retention and exportDir, the state dir `S` through OPENCLAW_STATE_DIR), and the run's
clock is the case's `nowMs` (`--at`). The export dir's top-level files must equal `expected.files`
byte for byte, the report names the expected collection, and the transcripts are untouched. A case whose
pass fails with INVALID_CONFIG (an invalid `retentionDays`) is refused as a whole, as every command
refuses a config 2026.6.35 rejects (exit 3, one line, no agent work); the export step's own
INVALID_CONFIG failure is tested in tests/backends/init/test_init_sessions.py. Redaction as a security
property: no secret the reference redacted reaches the export dir, the qmd index's stored text, or a
`qmd search` answer.

Cost: one init-backends process per case, each running three qmd commands (collection list, add,
update): the default memory collections are off where the case does not name its collections, and the
qmd version cache is seeded from one real run (it is memwarm's own cache, keyed by the executable).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.exitcodes import ExitCode
from tests.backends.support import SYSTEM_PATH, require_real_qmd
from tests.conftest import TOOLS_BIN, CliResult, isolated_env, run_memwarm
from tests.parity.sessions_case import (
    SessionsCaseTree,
    build_sessions_case,
    load_session_cases,
    read_export_dir,
    redacted_secrets,
    sources_snapshot,
    write_case_config,
)

pytestmark = [pytest.mark.qmd, pytest.mark.golden("sessions 2026.6.35 (init-backends, real qmd)")]

CASES = {case["name"]: case for case in load_session_cases()}


@pytest.fixture(scope="session")
def qmd_version_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """`<stateDir>/memwarm/qmd-versions.json` as one real run of init-backends writes it."""
    require_real_qmd()
    root = Path(os.path.realpath(tmp_path_factory.mktemp("version-cache")))
    (root / "ws").mkdir()
    config = root / "openclaw.json"
    config.write_text(
        json.dumps(
            {
                "memory": {"backend": "qmd", "qmd": {"includeDefaultMemory": False}},
                "agents": {"list": [{"id": "main", "workspace": str(root / "ws")}]},
            }
        ),
        encoding="utf-8",
    )
    result = run_memwarm(["--config", str(config), "init-backends", "-q"], _env(root, root / "state"))
    assert result.returncode == 0, result.stderr
    cache = root / "state" / "memwarm" / "qmd-versions.json"
    assert cache.is_file()
    return cache


def _env(base: Path, state_dir: Path) -> dict[str, str]:
    home = base / "home"
    home.mkdir(exist_ok=True)
    return isolated_env(
        home,
        {
            "OPENCLAW_STATE_DIR": str(state_dir),
            "PATH": f"{TOOLS_BIN}:{SYSTEM_PATH}",
            "XDG_CACHE_HOME": str(home / ".cache"),
            "XDG_CONFIG_HOME": str(home / ".config"),
        },
    )


@dataclass
class CliCase:
    case: dict[str, Any]
    tree: SessionsCaseTree
    result: CliResult
    agent: dict[str, Any] | None  # None: the run refused the config as a whole (no report)


def _run_case(name: str, base: Path, version_cache: Path) -> tuple[CliCase, dict[str, tuple[bytes, int]]]:
    case = CASES[name]
    tree = build_sessions_case(case, base)
    config = base / "openclaw.json"
    write_case_config(case, tree, config, default_memory=False)
    seeded = tree.state_dir / "memwarm" / "qmd-versions.json"
    seeded.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(version_cache, seeded)
    sources = sources_snapshot(tree)
    args = ["--config", str(config), "init-backends", "--json", "--at", str(case["nowMs"])]
    result = run_memwarm(args, {**_env(base, tree.state_dir), **tree.env()})
    if result.returncode == ExitCode.CONFIG:
        return CliCase(case, tree, result, None), sources
    report = json.loads(result.stdout)
    (agent,) = report["agents"]
    return CliCase(case, tree, result, agent), sources


def _assert_config_refused(run: CliCase) -> None:
    """An INVALID_CONFIG case: memwarm refuses the config the release refuses before any agent work (the
    gateway would not run on it at all), in one line naming the key; nothing is written or deleted, no
    qmd command runs."""
    assert run.result.returncode == ExitCode.CONFIG, run.result.stderr
    assert run.result.stdout == ""
    (line,) = run.result.stderr.splitlines()
    assert "memory.qmd.sessions.retentionDays" in line and "refuses this config" in line
    assert not (run.tree.state_dir / "agents" / run.tree.agent_id / "qmd" / "xdg-cache").exists()


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_case_through_init_backends(name: str, tmp_path: Path, qmd_version_cache: Path) -> None:
    run, sources_before = _run_case(name, Path(os.path.realpath(tmp_path)), qmd_version_cache)
    case, tree, agent = run.case, run.tree, run.agent
    expected = case["expected"]

    listing = read_export_dir(tree.export_dir)
    assert listing.files.keys() == expected["files"].keys()
    for file_name, text in expected["files"].items():
        assert listing.files[file_name] == text, (file_name, ascii(listing.files[file_name]), ascii(text))
    assert listing.other_entries == expected.get("otherEntries", [])
    if agent is None:
        assert expected["error"] == "INVALID_CONFIG"
        _assert_config_refused(run)
        assert sources_snapshot(tree) == sources_before
        return

    sessions = agent["sessions"]
    assert sessions["exportDir"] == str(tree.export_dir)
    assert sessions["collection"] == expected["collectionName"]
    assert sessions["exported"] == expected["written"]  # every export the pass keeps
    # `deleted` of the case names regular files; an empty `x.md` directory is removed too.
    regular_before = {entry["name"] for entry in case.get("exportFiles", []) if not entry.get("dir")}
    assert sorted(n for n in sessions["deleted"] if n in regular_before) == expected["deleted"]
    argvs = [command["argv"][1:] for command in agent["commands"]]
    assert ["--version"] not in argvs  # the seeded version cache answered
    add = [
        "collection",
        "add",
        str(tree.export_dir),
        "--name",
        expected["collectionName"],
        "--mask",
        "**/*.md",
    ]
    assert add in argvs
    if expected["error"] is None:
        assert run.result.returncode == 0, run.result.stderr
        assert agent["status"] == "armed"
        assert argvs[-1] == ["update"]
    else:
        assert run.result.returncode == 1
        assert agent["status"] == "failed"
        assert sessions["errorCode"] == expected["error"]
        assert f"qmd session export failed ({expected['error']})" in agent["reason"]
        assert ["update"] not in argvs  # as upstream: a failed pass stops that run's qmd update
    assert sources_snapshot(tree) == sources_before

    secrets = redacted_secrets(case)
    if secrets:
        _assert_secrets_absent(run, secrets)


def _index_texts(tree: SessionsCaseTree) -> list[str]:
    """Every document text qmd stored for this agent (qmd 2.8.3 keeps them in `content.doc`)."""
    index = tree.state_dir / "agents" / tree.agent_id / "qmd" / "xdg-cache" / "qmd" / "index.sqlite"
    with sqlite3.connect(f"file:{index}?mode=ro", uri=True) as db:
        return [row[0] for row in db.execute("SELECT doc FROM content")]


def _qmd_search(run: CliCase, query: str) -> list[dict[str, Any]]:
    qmd_dir = run.tree.state_dir / "agents" / run.tree.agent_id / "qmd"
    env = {
        **_env(run.tree.base, run.tree.state_dir),
        "XDG_CONFIG_HOME": str(qmd_dir / "xdg-config"),
        "XDG_CACHE_HOME": str(qmd_dir / "xdg-cache"),
        "QMD_CONFIG_DIR": str(qmd_dir / "xdg-config" / "qmd"),
        "NO_COLOR": "1",
    }
    proc = subprocess.run(
        [str(TOOLS_BIN / "qmd"), "search", query, "--json", "-n", "20"],
        env=env,
        cwd=run.tree.workspace,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    hits: list[dict[str, Any]] = json.loads(proc.stdout or "[]")
    return hits


def _assert_secrets_absent(run: CliCase, secrets: set[str]) -> None:
    texts = _index_texts(run.tree)
    exported = [text for text in run.case["expected"]["files"].values() if text.startswith("# Session ")]
    assert len(texts) >= len(exported) > 0  # the exports are in the index: the check below is not vacuous
    for secret in secrets:
        for root, dirs, files in os.walk(run.tree.export_dir):
            for name in dirs + files:
                path = Path(root, name)
                assert secret not in name
                if path.is_file():
                    assert secret.encode("utf-8", "surrogatepass") not in path.read_bytes(), (secret, path)
        assert not any(secret in text for text in texts), secret
    # One real search per case, for its longest secret, finds nothing (that the exports are searchable
    # is shown in tests/scenarios/test_real_qmd_sessions.py).
    longest = max(sorted(secrets), key=len)
    assert _qmd_search(run, longest) == [], longest
