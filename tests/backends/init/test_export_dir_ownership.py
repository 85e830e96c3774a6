"""Stale-export cleanup deletes only memwarm's own exports outside the agent's qmd state, and `config check`
says so about such an export dir and about one that agents share (issue 31, classes 1 and 11)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from memwarm_cli.exitcodes import ExitCode
from tests.backends.init.test_init_sessions import SessionsScenario, _config_check
from tests.backends.session_export_support import record, snapshot
from tests.backends.support import install_fake_qmd, make_scenario
from tests.conftest import run_memwarm


def test_an_export_dir_in_the_workspace_keeps_the_users_markdown(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path, exportDir="docs")
    docs = env.scenario.workspace("main") / "docs"
    docs.mkdir()
    (docs / "plan.md").write_text("# Plan\nthe user's own note\n", encoding="utf-8")
    # Shaped like an export, but memwarm never wrote it: it stays too.
    (docs / "notes.md").write_text("# Session notes\n\nUser: a meeting\n", encoding="utf-8")
    env.transcript("a.jsonl", "hello")
    env.transcript("b.jsonl", "goodbye")
    result, agent = env.run()
    assert result.returncode == 0, result.stderr
    assert agent["sessions"]["written"] == ["a.md", "b.md"]
    assert agent["sessions"]["deleted"] == []
    assert sorted(note["name"] for note in agent["sessions"]["leftAlone"]) == ["notes.md", "plan.md"]
    assert (docs / "plan.md").read_text(encoding="utf-8") == "# Plan\nthe user's own note\n"
    warned = [line for line in result.stderr.splitlines() if "alone that it did not write" in line]
    assert len(warned) == 1 and "left 2 *.md" in warned[0], result.stderr

    # The transcript of b.md goes: memwarm's own export goes with it; the user's files stay.
    (env.sessions / "b.jsonl").unlink()
    before = snapshot(docs)
    result, agent = env.run()
    assert result.returncode == 0, result.stderr
    assert agent["sessions"]["deleted"] == ["b.md"]
    assert sorted(os.listdir(docs)) == ["a.md", "notes.md", "plan.md"]
    assert {name: before[name] for name in ("notes.md", "plan.md")} == {
        name: snapshot(docs)[name] for name in ("notes.md", "plan.md")
    }


def test_an_export_memwarm_wrote_and_the_user_edited_since_stays(tmp_path: Path) -> None:
    outside = tmp_path / "exports"
    env = SessionsScenario(tmp_path, exportDir=str(outside))
    env.transcript("a.jsonl", "hello")
    assert env.run()[0].returncode == 0
    (outside / "a.md").write_text("# Session a\n\nUser: hello\n\nmy own remark\n", encoding="utf-8")
    (env.sessions / "a.jsonl").unlink()
    result, agent = env.run()
    assert result.returncode == 0, result.stderr
    assert agent["sessions"]["deleted"] == []
    assert (outside / "a.md").read_text(encoding="utf-8").endswith("my own remark\n")


def test_the_default_export_dir_keeps_the_releases_cleanup(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path)
    env.export.mkdir(parents=True)
    (env.export / "orphan.md").write_text(
        "written by the gateway for a session since deleted", encoding="utf-8"
    )
    env.transcript("a.jsonl", "hello")
    result, agent = env.run()
    assert result.returncode == 0, result.stderr
    assert agent["sessions"]["deleted"] == ["orphan.md"]


def test_config_check_warns_about_an_export_dir_outside_the_agents_state(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path, exportDir="docs")
    result = _config_check(env)
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stdout.splitlines() if "outside the agent's own state" in line]
    assert len(lines) == 1 and "memory.qmd.sessions.exportDir" in lines[0]
    assert "deletes every *.md" in lines[0]
    default = SessionsScenario(tmp_path / "default")
    assert "outside the agent's own state" not in _config_check(default).stdout


def test_config_check_reports_an_export_dir_two_agents_share_as_an_error_at_the_key(tmp_path: Path) -> None:
    shared = tmp_path / "exports"
    scenario = make_scenario(tmp_path, {"main": {}, "ops": {}}, {})
    scenario.config["memory"] = {
        "backend": "qmd",
        "qmd": {"sessions": {"enabled": True, "exportDir": str(shared)}},
    }
    scenario.write_config()
    fake = install_fake_qmd(tmp_path / "fakebin", {"version": 'echo "qmd 2.8.3"; exit 0\n'})
    scenario.path_dirs = [tmp_path / "fakebin"]
    for agent_id in ("main", "ops"):
        transcripts = scenario.state / "agents" / agent_id / "sessions"
        transcripts.mkdir(parents=True)
        (transcripts / f"{agent_id}.jsonl").write_text(record("hello"), encoding="utf-8")
    args = ["--config", str(scenario.config_path), "config", "check", "--json"]
    result = run_memwarm(args, scenario.env({"FAKE_QMD_DIR": str(fake)}))
    assert result.returncode == ExitCode.FINDINGS, result.stdout + result.stderr
    findings = json.loads(result.stdout)["findings"]
    shared_errors = [
        f for f in findings if f["severity"] == "error" and "share the export dir" in f["message"]
    ]
    assert len(shared_errors) == 1, findings
    assert shared_errors[0]["path"] == "memory.qmd.sessions.exportDir"
    assert shared_errors[0]["line"] is not None
    assert '"main", "ops"' in shared_errors[0]["message"]


# --------------------------------------------------------------------------------------------------------
# Secrets the release's redaction leaves in clear (issue 31, class 5)

CLEAR_TEXTS = (
    "the webhook is whsec_abcdefghijklmnopqrstuvwxyz012345 and vault hvs.CAESIabcdefghijklmnopqrstuvwxyz0123",
    "run sshpass -p Hunter2Secret ssh host",
    "masked by the release: API_KEY=abcdefghijklmnopqrstuvwxyz",
)


def test_init_backends_counts_the_secrets_left_in_clear_per_agent(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path)
    env.transcript("a.jsonl", *CLEAR_TEXTS)
    result, agent = env.run()
    assert result.returncode == 0, result.stderr
    assert "whsec_abcdefghijklmnopqrstuvwxyz012345" in (env.export / "a.md").read_text(encoding="utf-8")
    in_clear = agent["sessions"]["inClear"]
    assert sum(in_clear.values()) == 3 and len(in_clear) == 3
    assert in_clear["Stripe webhook secrets (`whsec_`)"] == 1
    assert in_clear["`sshpass -p X`"] == 1
    line = "(sessions: 1 exported, 1 written, 0 deleted, 3 secrets in clear)"
    assert any(line in text for text in result.stderr.splitlines()), result.stderr
    # A new transcript makes the next run export again: a.jsonl comes from the export cache, unread, and
    # its secrets are still counted.
    env.transcript("b.jsonl", "nothing secret here")
    again = env.run()[1]
    assert again["sessions"]["written"] == ["b.md"]
    assert again["sessions"]["inClear"] == in_clear
    check = _config_check(env)
    counted = [
        text for text in check.stdout.splitlines() if "secrets in clear in its session exports" in text
    ]
    assert len(counted) == 1 and 'agent "main": 3 secrets' in counted[0], check.stdout
    assert "Stripe webhook secrets" in counted[0]


# --------------------------------------------------------------------------------------------------------
# An edit in place that keeps size and mtime (issue 31, class 8)


def _edit_in_place(path: Path, old: str, new: str) -> None:
    """Replace `old` by `new` (same length) and put the mtime back, as a careful hand edit would."""
    assert len(old) == len(new)
    info = path.stat()
    data = path.read_bytes().replace(old.encode(), new.encode())
    with path.open("r+b") as file:
        file.write(data)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    after = path.stat()
    assert (after.st_size, after.st_mtime_ns) == (info.st_size, info.st_mtime_ns)


def test_an_edit_in_place_keeping_size_and_mtime_is_exported_again(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path)
    transcript = env.transcript("a.jsonl", "my hook is whsec_REMOVEDBYHAND01234567")
    assert env.run()[0].returncode == 0
    assert "REMOVEDBYHAND" in (env.export / "a.md").read_text(encoding="utf-8")
    _edit_in_place(transcript, "whsec_REMOVEDBYHAND01234567", "(a secret, removed by hand)")
    result, agent = env.run()
    assert result.returncode == 0, result.stderr
    assert agent["sessions"]["written"] == ["a.md"]
    assert (env.export / "a.md").read_text(
        encoding="utf-8"
    ) == "# Session a\n\nUser: my hook is (a secret, removed by hand)\n"


def test_force_renders_every_transcript_again_whatever_the_cache_says(tmp_path: Path) -> None:
    from memwarm_cli.backends.sessions.export_cache import CachedExport, FileIdentity
    from memwarm_cli.backends.sessions.session_export import plan_session_export
    from tests.backends.session_export_support import NOW_MS

    sessions, export = tmp_path / "sessions", tmp_path / "export"
    sessions.mkdir()
    (sessions / "a.jsonl").write_text(record("hello"), encoding="utf-8")
    identity = FileIdentity.of(os.stat(sessions / "a.jsonl"))
    # A cache that vouches for the transcript with another export's digest (what a missed edit leaves).
    stale = {"a.jsonl": CachedExport(identity, "0" * 64, 3, (), None)}
    kwargs: dict[str, Any] = {"retention_days": None, "now_ms": NOW_MS, "agent_qmd_dir": None, "cache": stale}
    assert plan_session_export(sessions, export, **kwargs).targets[0].digest == "0" * 64
    forced = plan_session_export(sessions, export, force=True, **kwargs).targets[0]
    assert forced.digest != "0" * 64 and forced.text == "# Session a\n\nUser: hello\n"
