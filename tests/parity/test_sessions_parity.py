"""Every session-export golden case through the core API, byte for byte (tests/golden/sessions/).

Per case: the tree is built as the README says, the settings are resolved from the case's raw config
values, one pass is planned and applied, and the export dir's top-level regular files must equal
`expected.files` exactly; the pass fails iff `expected.error` is set. Around that, the properties the
golden data pins down for every case: the dry-run plan is what the pass does, a second pass changes
nothing, transcripts are untouched, and no secret the reference redacted reaches the export dir.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.agents import find_agent_entry
from memwarm_cli.backends.sessions.session_config import sessions_config_error
from memwarm_cli.backends.sessions.session_export import (
    SessionExportFailed,
    SessionExportPlan,
    SessionExportResult,
    apply_session_export,
    plan_session_export,
)
from memwarm_cli.backends.settings.agent_backend import resolve_agent_backend
from memwarm_cli.backends.settings.qmd_collections import sessions_collection_name
from memwarm_cli.backends.settings.qmd_settings import resolve_session_settings
from memwarm_cli.profiles.releases import P0
from tests.parity.sessions_case import (
    SessionsCaseTree,
    build_sessions_case,
    case_agent_id,
    case_sessions_block,
    load_session_cases,
    read_export_dir,
    redacted_secrets,
    snapshot,
    sources_snapshot,
    write_case_config,
)

pytestmark = pytest.mark.golden("sessions 2026.6.35")

CASES = load_session_cases()
CASE_IDS = [case["name"] for case in CASES]


@dataclass
class CaseRun:
    case: dict[str, Any]
    tree: SessionsCaseTree
    plan: SessionExportPlan
    result: SessionExportResult
    failure: SessionExportFailed | None
    before: dict[str, str]  # the export dir's regular files before the pass
    sources_before: dict[str, tuple[bytes, int]]  # transcripts, and symlink targets in `outside`
    sources_after: dict[str, tuple[bytes, int]]


def _pass(tree: SessionsCaseTree, case: dict[str, Any]) -> tuple[SessionExportPlan, SessionExportResult, Any]:
    block = case_sessions_block(case)
    settings = resolve_session_settings(
        {"sessions": block},
        agent_id=tree.agent_id,
        workspace=tree.workspace,
        state_dir=tree.state_dir,
        env={"HOME": str(tree.base / "home")},
    )
    assert settings.enabled
    assert settings.export_dir == tree.export_dir
    assert settings.sessions_dir == tree.sessions_dir
    plan = plan_session_export(
        settings.sessions_dir,
        settings.export_dir,
        retention_days=settings.retention_days,
        now_ms=case["nowMs"],
        agent_qmd_dir=settings.agent_qmd_dir,
        config_error=sessions_config_error(block),
    )
    try:
        return plan, apply_session_export(plan), None
    except SessionExportFailed as failure:
        return plan, failure.partial, failure


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, CaseRun]]:
    done: dict[str, CaseRun] = {}
    for case in CASES:
        base = Path(os.path.realpath(tmp_path_factory.mktemp(case["name"])))
        tree = build_sessions_case(case, base)
        before = read_export_dir(tree.export_dir).files
        sources_before = sources_snapshot(tree)
        plan, result, failure = _pass(tree, case)
        sources_after = sources_snapshot(tree)
        done[case["name"]] = CaseRun(case, tree, plan, result, failure, before, sources_before, sources_after)
    yield done


def test_there_are_golden_cases() -> None:
    assert len(CASES) == 46


@pytest.mark.parametrize("name", CASE_IDS)
def test_export_dir_matches_byte_for_byte(runs: dict[str, CaseRun], name: str) -> None:
    run = runs[name]
    expected = run.case["expected"]
    listing = read_export_dir(run.tree.export_dir)
    assert listing.files.keys() == expected["files"].keys()
    for file_name, text in expected["files"].items():
        assert listing.files[file_name] == text, (file_name, ascii(listing.files[file_name]), ascii(text))
    assert listing.other_entries == expected.get("otherEntries", [])


@pytest.mark.parametrize("name", CASE_IDS)
def test_pass_fails_iff_expected(runs: dict[str, CaseRun], name: str) -> None:
    run = runs[name]
    error = run.case["expected"]["error"]
    if error is None:
        assert run.failure is None, run.failure
    else:
        assert run.failure is not None
        assert run.failure.code == error
        assert run.plan.blocked or run.plan.config_error is not None


@pytest.mark.parametrize("name", CASE_IDS)
def test_writes_exactly_what_changed_and_deletes_what_upstream_deletes(
    runs: dict[str, CaseRun], name: str
) -> None:
    """A fresh upstream manager writes every kept export; memwarm skips those already byte-identical."""
    run = runs[name]
    expected = run.case["expected"]
    assert [target.name for target in run.plan.targets] == expected["written"]
    changed = [n for n in expected["written"] if run.before.get(n) != expected["files"][n]]
    assert list(run.result.written) == changed
    # `deleted` names the regular files removed; an empty `x.md` directory goes too (not listed there).
    assert sorted(n for n in run.result.deleted if n in run.before) == expected["deleted"]


@pytest.mark.parametrize("name", CASE_IDS)
def test_dry_run_plan_is_what_the_pass_did(runs: dict[str, CaseRun], name: str) -> None:
    run = runs[name]
    assert run.result.written == run.plan.writes
    assert run.result.deleted == run.plan.deletes
    assert run.result.created_export_dir == run.plan.create_export_dir


@pytest.mark.parametrize("name", CASE_IDS)
def test_second_pass_changes_nothing(runs: dict[str, CaseRun], name: str) -> None:
    run = runs[name]
    before = snapshot(run.tree.export_dir)
    plan, result, failure = _pass(run.tree, run.case)
    assert (plan.writes, plan.deletes) == ((), ())
    assert (result.written, result.deleted) == ((), ())
    assert (failure is None) == (run.case["expected"]["error"] is None)
    assert snapshot(run.tree.export_dir) == before  # same bytes and the same mtimes


@pytest.mark.parametrize("name", CASE_IDS)
def test_transcripts_are_untouched(runs: dict[str, CaseRun], name: str) -> None:
    run = runs[name]
    assert run.sources_before or not run.case["sessions"]
    assert run.sources_after == run.sources_before


@pytest.mark.parametrize("name", CASE_IDS)
def test_collection_name(name: str) -> None:
    case = next(c for c in CASES if c["name"] == name)
    agent_id = case_agent_id(case)
    defaults = [f"memory-root-{agent_id}", f"memory-dir-{agent_id}"]  # 2026.6.35 has no memory-alt
    taken = set(case.get("collections") or defaults)
    assert sessions_collection_name(agent_id, taken) == case["expected"]["collectionName"]


@pytest.mark.parametrize("name", CASE_IDS)
def test_case_config_gives_the_same_settings(name: str, tmp_path: Path) -> None:
    """The config the CLI parity test will use resolves to this case's export dir and collection name."""
    case = next(c for c in CASES if c["name"] == name)
    tree = build_sessions_case(case, Path(os.path.realpath(tmp_path)))
    config_file = tree.base / "openclaw.json"
    write_case_config(case, tree, config_file)
    config = json.loads(config_file.read_text(encoding="utf-8"))
    for entry in config["memory"]["qmd"].get("paths", []):
        assert (tree.workspace / entry["path"]).is_dir()  # so init-backends can add the collection
    env = {"HOME": str(tree.base / "home"), **tree.env()}
    backend = resolve_agent_backend(
        config,
        tree.agent_id,
        find_agent_entry(config, tree.agent_id, profile=P0),
        tree.workspace,
        tree.state_dir,
        env,
        profile=P0,
    )
    assert backend.qmd is not None
    *others, sessions = backend.qmd.collections  # the export's collection comes after every other one
    assert (sessions.kind, sessions.name) == ("sessions", case["expected"]["collectionName"])
    assert (sessions.path, sessions.pattern) == (tree.export_dir, "**/*.md")
    assert all(collection.kind != "sessions" for collection in others)
    settings = backend.qmd.sessions
    assert (settings.enabled, settings.export_dir, settings.sessions_dir) == (
        True,
        tree.export_dir,
        tree.sessions_dir,
    )


# --------------------------------------------------------------------------------------------------------
# Redaction as a security property


def _everything_under(directory: Path) -> list[tuple[str, bytes]]:
    """(relative path, bytes) of every regular file under `directory` and the name of every entry."""
    found: list[tuple[str, bytes]] = []
    for root, dirs, files in os.walk(directory):
        for name in dirs + files:
            path = Path(root, name)
            data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
            found.append((str(path.relative_to(directory)), data))
    return found


def test_no_redacted_secret_reaches_the_export_dir(runs: dict[str, CaseRun]) -> None:
    checked = 0
    cases_with_secrets = []
    for name, run in runs.items():
        secrets = redacted_secrets(run.case)
        if not secrets:
            continue
        cases_with_secrets.append(name)
        everything = _everything_under(run.tree.export_dir)
        for secret in secrets:
            encoded = secret.encode("utf-8", "surrogatepass")
            for path, data in everything:
                assert secret not in path and encoded not in data, (name, secret, path)
            checked += 1
    # Not vacuous: every redaction case contributes, e.g. `hunter2`, `wJalrXUtnFEMI/K7MDENG/...`.
    assert {n for n in CASE_IDS if n.startswith("redact_")} <= set(cases_with_secrets)
    assert checked >= 60


def test_the_secret_collector_finds_known_secrets() -> None:
    by_name = {case["name"]: case for case in CASES}
    env_secrets = redacted_secrets(by_name["redact_env_assignments"])
    assert {
        "hunter2",
        "abcdefghijklmnopqrstuvwxyz123",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    } <= env_secrets
    # A value the reference leaves in place (the ENV pattern eats `Bearer` first) is not claimed secret.
    assert "abcdefghijklmnopqrstuvwxyz" not in redacted_secrets(by_name["redact_pattern_interplay"])
