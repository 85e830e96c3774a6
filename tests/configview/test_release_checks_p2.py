"""The 2026.8.1+ judge (profiles P2, P3): retired keys say what `openclaw doctor` changes, a moved
`agents.list` is placed where it is written, and `refuse_rejected_config` refuses what the selected
release refuses, on every profile (the verdicts themselves: test_release_validate.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memwarm_cli.config import load_config
from memwarm_cli.configview.check import check_config
from memwarm_cli.configview.release_checks import ConfigRejectedError, refuse_rejected_config
from memwarm_cli.profiles.releases import P0, P1, P2, P3, PROFILES, Profile
from tests.conftest import RunCli
from tests.profiles.support import choose

QMD_CONFIG = "{agents: {list: [{id: 'main'}]}, memory: {backend: 'qmd', qmd: {searchMode: 'search'}}}"
ENTRIES_CONFIG = "{agents: {entries: {main: {}}}, memory: {search: {enabled: true}}}"


def _write(tmp_path: Path, text: str) -> Path:
    cfg = tmp_path / "openclaw.json5"
    cfg.write_text(text, encoding="utf-8")
    return cfg


def _env(tmp_path: Path) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "PATH": "/nonexistent", "OPENCLAW_STATE_DIR": str(tmp_path / "s")}


def _refusal(tmp_path: Path, text: str, profile: Profile, version: str | None = None) -> str | None:
    loaded = load_config(str(_write(tmp_path, text)), _env(tmp_path), dotenv=False)
    try:
        refuse_rejected_config(loaded, profile=profile, version=version)
    except ConfigRejectedError as exc:
        return str(exc)
    return None


def test_every_profile_names_a_recorded_schema() -> None:
    assert {p.name: (p.config_schema, p.refines_past_unknown_keys) for p in PROFILES} == {
        "P0": ("2026.6.35", False),
        "P1": ("2026.6.35", False),
        "P2": ("2026.9.6", False),  # 2026.8.2: Zod 4.4 stops at an unknown key
        "P3": ("2026.9.6", True),  # 2026.9.6: Zod 4.6 runs the refinements past it
    }


@pytest.mark.parametrize(
    ("profile", "errors"), [(P2, ["agents.list"]), (P3, ["agents.entries", "agents.list"])]
)
def test_a_list_the_loader_cannot_move_is_judged_as_each_release_does(
    tmp_path: Path, profile: Profile, errors: list[str]
) -> None:
    text = "{agents: {list: [{id: 'main'}, {id: 'main'}]}}"
    report = check_config(str(_write(tmp_path, text)), _env(tmp_path), choose_release=choose(profile))
    assert sorted(f.path for f in report.findings if f.severity == "error") == errors
    refused = next(f for f in report.findings if f.path == "agents.list")
    assert 'cannot be moved because the id "main" is given twice' in refused.message


def test_a_qmd_config_is_refused_on_p2_and_p3_but_not_on_p0(tmp_path: Path) -> None:
    assert _refusal(tmp_path, QMD_CONFIG, P0) is None
    assert _refusal(tmp_path, QMD_CONFIG, P1) is None
    for profile in (P2, P3):
        line = _refusal(tmp_path, QMD_CONFIG, profile)
        assert line is not None
        assert "memory.backend: unknown key: memory.backend is retired" in line
        assert f"(OpenClaw {profile.reference} refuses this config; 1 more;" in line
        assert "\n" not in line


def test_the_refusal_names_the_run_release(tmp_path: Path) -> None:
    line = _refusal(tmp_path, QMD_CONFIG, P2, "2026.9.1")
    assert line is not None and "(OpenClaw 2026.9.1 refuses this config; 1 more;" in line


def test_a_2026_9_config_is_refused_on_p0_and_accepted_on_p3(tmp_path: Path) -> None:
    line = _refusal(tmp_path, ENTRIES_CONFIG, P0)
    assert line is not None and "OpenClaw 2026.6.35 refuses this config" in line
    assert _refusal(tmp_path, ENTRIES_CONFIG, P3) is None


@pytest.mark.parametrize(
    ("text", "doctor"),
    [
        ("{memory: {backend: 'builtin'}}", "Removed retired QMD memory configuration"),
        ("{memory: {qmd: {paths: [{path: '/n'}]}}}", "extraCollections → memory.search.extraPaths"),
        ("{agents: {defaults: {memorySearch: {}}}}", "Moved legacy memorySearch defaults → memory.search."),
        ("{memorySearch: {}}", "Moved legacy memorySearch defaults → memory.search."),
        ("{agents: {list: [{id: 'a', memorySearch: {}}]}}", "agents.entries.<id>.memory.search"),
        ("{agents: {defaults: {bootstrapPromptTruncationWarning: 'once'}}}", "built-in behavior now applies"),
    ],
)
def test_a_retired_key_says_what_doctor_changes(tmp_path: Path, text: str, doctor: str) -> None:
    report = check_config(str(_write(tmp_path, text)), _env(tmp_path), choose_release=choose(P3, "2026.9.6"))
    (error,) = [f for f in report.findings if f.severity == "error"]
    assert (
        "OpenClaw 2026.8.1 and later refuse this config; `openclaw doctor --fix` migrates it" in error.message
    )
    assert doctor in error.message
    assert "plain `openclaw doctor` applies this too, rewriting the file" in error.message


def test_an_unknown_top_level_key_doctor_only_removes(tmp_path: Path) -> None:
    report = check_config(str(_write(tmp_path, "{cli: {}}")), _env(tmp_path), choose_release=choose(P3))
    (error,) = [f for f in report.findings if f.severity == "error"]
    assert (error.path, error.line) == ("cli", 1)
    assert error.message.endswith(
        "the top-level key cli was removed. OpenClaw 2026.8.1 and later refuse this "
        "config; `openclaw doctor --fix` removes it"
    )


def test_a_moved_list_entry_is_placed_where_it_is_written(tmp_path: Path) -> None:
    text = "{\n agents: {\n  list: [\n   {id: 'ops', bogus: 1},\n  ],\n },\n}"
    report = check_config(str(_write(tmp_path, text)), _env(tmp_path), choose_release=choose(P3))
    (error,) = [f for f in report.findings if f.severity == "error"]
    assert (error.path, error.line, error.column) == ("agents.entries.ops.bogus", 4, 16)
    assert error.message.endswith("(at agents.list[0].bogus, read as agents.entries.ops)")
    moved = next(f for f in report.findings if f.path == "agents.list")
    assert moved.severity == "warning" and "Moved agents.list → keyed agents.entries." in moved.message


def test_context_tokens_is_a_warning_not_an_error(tmp_path: Path) -> None:
    text = "{agents: {defaults: {contextTokens: 1000}}}"
    report = check_config(str(_write(tmp_path, text)), _env(tmp_path), choose_release=choose(P3))
    assert report.errors == 0
    finding = next(f for f in report.findings if f.path == "agents.defaults.contextTokens")
    assert (
        finding.severity == "warning"
        and "models.providers.<provider>.models[].contextTokens" in finding.message
    )


@pytest.mark.parametrize(
    ("version", "profile"), [("2026.8.2", "P2"), ("2026.9.6", "P3"), ("2026.6.35", "P0")]
)
def test_config_check_judges_by_the_selected_release(
    run_cli: RunCli, tmp_path: Path, version: str, profile: str
) -> None:
    cfg = _write(tmp_path, QMD_CONFIG)
    result = run_cli(
        ["--openclaw", version, "--config", str(cfg), "config", "check", "--json"], env=_env(tmp_path)
    )
    data = json.loads(result.stdout)
    assert (data["openclaw"]["version"], data["openclaw"]["profile"]) == (version, profile)
    errors = [f["path"] for f in data["findings"] if f["severity"] == "error"]
    assert errors == ([] if profile == "P0" else ["memory.backend", "memory.qmd"])
    assert result.returncode == (0 if profile == "P0" else 1)


def test_without_a_version_the_config_shape_picks_the_schema(run_cli: RunCli, tmp_path: Path) -> None:
    cfg = _write(tmp_path, ENTRIES_CONFIG)  # agents.entries: written by 2026.8.1 or later, so P3
    result = run_cli(["--config", str(cfg), "config", "check", "--json"], env=_env(tmp_path))
    data = json.loads(result.stdout)
    assert data["openclaw"]["profile"] == "P3" and data["errors"] == 0, data["findings"]
    assert result.returncode == 0
