"""init-backends with `memory.qmd.sessions.enabled`: where the export sits among the steps, what makes the
next run do work, `--dry-run`, failures, and the user's files. A fake qmd on PATH records what ran (the
real qmd end to end is in test_real_qmd_sessions.py, the golden cases in tests/parity/).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from memwarm_cli.exitcodes import ExitCode
from tests.backends.session_export_support import record, snapshot
from tests.backends.support import Scenario, fake_log, install_fake_qmd, make_scenario
from tests.conftest import CliResult

NOW_MS = 1_775_930_400_000  # 2026-04-11T18:00:00Z
HOUR_MS = 3_600_000
DAY_MS = 86_400_000


class SessionsScenario:
    """One agent "main" with a note, sessions on, a fake qmd; transcripts in the state dir."""

    def __init__(self, tmp_path: Path, behaviours: dict[str, str] | None = None, **sessions: Any) -> None:
        qmd = {"sessions": {"enabled": True, **sessions}}
        self.scenario: Scenario = make_scenario(
            tmp_path,
            {"main": {"memory/2026-04-10.md": "# Day\nPelican.\n"}},
            {"memory": {"backend": "qmd", "qmd": qmd}},
        )
        self.fake = install_fake_qmd(tmp_path / "fakebin", behaviours)
        self.scenario.path_dirs = [tmp_path / "fakebin"]
        self.sessions = self.scenario.state / "agents" / "main" / "sessions"
        self.sessions.mkdir(parents=True)
        self.export = self.scenario.state / "agents" / "main" / "qmd" / "sessions"

    def transcript(self, name: str, *texts: str, mtime_ms: int = NOW_MS - HOUR_MS) -> Path:
        path = self.sessions / name
        path.write_text("".join(record(text) for text in texts), encoding="utf-8")
        os.utime(path, ns=(mtime_ms * 1_000_000,) * 2)
        return path

    def run(self, *args: str) -> tuple[CliResult, dict[str, Any]]:
        result, report = self.scenario.run_json(
            ["--at", str(NOW_MS), *args], extra_env={"FAKE_QMD_DIR": str(self.fake)}
        )
        return result, report["agents"][0]

    def qmd_calls(self) -> list[str]:
        calls = fake_log(self.fake)
        (self.fake / "log").unlink(missing_ok=True)
        return [call for call in calls if call]  # "" is the availability check (no arguments)


def test_export_runs_after_the_collections_and_before_qmd_update(tmp_path: Path) -> None:
    # At `collection add` the export dir must exist (so the collection is added on the first run); at
    # `qmd update` the exports must be there (so they are indexed by this run).
    export = tmp_path / "state" / "agents" / "main" / "qmd" / "sessions"
    behaviours = {  # fake qmd argv: collection add <path> --name <name> --mask <pattern>
        "add": 'echo "add $5: $(ls -A "$3" 2>&1 | tr "\\n" " ")" >> "$FAKE_QMD_DIR/seen"\n',
        "update": f'echo "update: $(ls -A "{export}" | tr "\\n" " ")" >> "$FAKE_QMD_DIR/seen"\n',
    }
    env = SessionsScenario(tmp_path, behaviours)
    env.transcript("s1.jsonl", "Where is the walrus?")
    result, agent = env.run()
    assert result.returncode == 0, result.stderr
    assert agent["status"] == "armed"
    names = [c["name"] for c in agent["collections"]]
    assert names == ["memory-root-main", "memory-dir-main", "sessions-main"]
    assert agent["collections"][-1]["path"] == str(env.export)
    assert agent["collections"][-1]["kind"] == "sessions"
    assert env.qmd_calls() == [
        "--version",
        "collection list --json",
        f"collection add {env.scenario.workspace('main')} --name memory-root-main --mask MEMORY.md",
        f"collection add {env.scenario.workspace('main')}/memory --name memory-dir-main --mask **/*.md",
        f"collection add {env.export} --name sessions-main --mask **/*.md",
        "update",
    ]
    seen = (env.fake / "seen").read_text(encoding="utf-8").splitlines()
    assert "add sessions-main: " in seen  # the dir existed (ls succeeded) and was still empty
    assert seen[-1] == "update: s1.md "
    exported = (env.export / "s1.md").read_text(encoding="utf-8")
    assert exported == "# Session s1\n\nUser: Where is the walrus?\n"
    assert agent["sessions"]["written"] == ["s1.md"] and agent["sessions"]["createdExportDir"] is True
    line = "(sessions: 1 exported, 1 written, 0 deleted)"
    assert f'qmd memory startup initialization armed for agent "main" {line}' in result.stderr.splitlines()


def test_transcripts_are_part_of_the_fingerprint(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path)
    env.transcript("a.jsonl", "first")
    assert env.run()[1]["status"] == "armed"
    env.qmd_calls()
    # The run right after an export is fresh: the exports it wrote are not a change.
    assert env.run()[1]["status"] == "fresh"
    assert env.qmd_calls() == [""][:0]  # nothing ran, not even the availability check's qmd commands

    env.transcript("b.jsonl", "a new conversation")
    _, agent = env.run()
    assert (agent["status"], agent["sessions"]["written"]) == ("armed", ["b.md"])
    assert env.qmd_calls()[-1] == "update"
    assert env.run()[1]["status"] == "fresh"

    env.transcript("a.jsonl", "first", "and a reply later")  # changed: size and mtime
    _, agent = env.run()
    assert (agent["status"], agent["sessions"]["written"]) == ("armed", ["a.md"])

    (env.sessions / "b.jsonl").unlink()  # removed: its export is stale
    _, agent = env.run()
    assert (agent["status"], agent["sessions"]["deleted"]) == ("armed", ["b.md"])
    assert sorted(os.listdir(env.export)) == ["a.md"]
    assert env.run()[1]["status"] == "fresh"

    (env.export / "a.md").unlink()  # an export lost meanwhile: the next run writes it again
    _, agent = env.run()
    assert (agent["status"], agent["sessions"]["written"]) == ("armed", ["a.md"])


def test_retention_follows_the_clock_given_with_at(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path, retentionDays=2)
    env.transcript("recent.jsonl", "recent", mtime_ms=NOW_MS - DAY_MS)
    env.transcript("old.jsonl", "old", mtime_ms=NOW_MS - 3 * DAY_MS)
    result, agent = env.run()
    assert result.returncode == 0, result.stderr
    assert agent["sessions"]["exported"] == ["recent.md"] and agent["sessions"]["expired"] == ["old.jsonl"]
    assert agent["sessions"]["atMs"] == NOW_MS
    assert env.run()[1]["status"] == "fresh"
    # Time moves on: `recent` leaves the window, so the next run has work to do (its export goes).
    _, agent = env.run("--at", str(NOW_MS + 2 * DAY_MS))  # the later --at wins
    assert agent["status"] == "armed"
    assert agent["sessions"]["exported"] == [] and agent["sessions"]["deleted"] == ["recent.md"]
    assert os.listdir(env.export) == []


def test_dry_run_lists_the_exports_it_would_write_and_delete_and_touches_nothing(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path)
    env.transcript("s1.jsonl", "hello")
    env.export.mkdir(parents=True)
    (env.export / "stale.md").write_text("an export whose transcript is gone", encoding="utf-8")
    (env.export / "notes.txt").write_text("not an export", encoding="utf-8")
    before = snapshot(tmp_path)
    plain = env.scenario.run(["--dry-run", "--at", str(NOW_MS)], extra_env={"FAKE_QMD_DIR": str(env.fake)})
    assert plain.returncode == 0, plain.stderr
    lines = plain.stdout.splitlines()
    assert "  sessions: write s1.md" in lines
    assert "  sessions: delete stale.md" in lines
    assert f"  collection sessions-main: add {env.export} (**/*.md)" in lines
    assert f"  $ qmd collection add {env.export} --name sessions-main --mask '**/*.md'" in lines
    header = next(line for line in lines if line.startswith("  sessions: ") and "->" in line)
    assert "exports 1, to write 1, to delete 1" in header
    _, agent = env.run("--dry-run")
    assert agent["status"] == "planned"
    assert (agent["sessions"]["written"], agent["sessions"]["deleted"]) == (["s1.md"], ["stale.md"])
    assert snapshot(tmp_path) == before
    assert env.qmd_calls() == []


def test_a_directory_named_md_fails_the_agent_and_qmd_update_does_not_run(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path)
    env.transcript("a.jsonl", "written before the failure")
    (env.export / "folder.md").mkdir(parents=True)
    result, agent = env.run()
    assert result.returncode == ExitCode.FINDINGS
    assert agent["status"] == "failed"
    failed = f"qmd session export failed (ERR_FS_EISDIR): cannot remove stale export {env.export}/folder.md"
    assert (
        agent["reason"] == f"{failed}: it is a directory; qmd update did not run, as in the gateway's update"
    )
    assert agent["sessions"]["errorCode"] == "ERR_FS_EISDIR" and agent["sessions"]["written"] == ["a.md"]
    assert agent["warnings"] == [f"qmd boot update failed: {failed}: it is a directory"]  # upstream's line
    calls = env.qmd_calls()
    assert "update" not in calls and calls[-1].startswith("collection add")
    assert not env.scenario.fingerprint("main").exists()
    assert (env.export / "folder.md").is_dir()
    assert (
        'qmd memory startup initialization failed for agent "main": qmd session export failed'
        in result.stderr
    )


def test_an_export_dir_that_would_clean_up_the_users_notes_is_refused(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path, exportDir="memory")  # relative: the workspace's memory dir
    notes = env.scenario.workspace("main") / "memory"
    (notes / "old-export.md").write_text("a note of the user's, not an export", encoding="utf-8")
    env.transcript("a.jsonl", "hello")
    before = snapshot(env.scenario.workspace("main"))
    result, agent = env.run()
    assert result.returncode == ExitCode.FINDINGS
    assert agent["status"] == "failed"
    assert agent["reason"].startswith(
        f"qmd session export refused: export dir {notes} is or contains {notes}"
    )
    assert snapshot(env.scenario.workspace("main")) == before
    assert env.qmd_calls() == ["--version"]  # refused before any collection or index work


def test_only_regular_md_files_inside_the_export_dir_are_ever_deleted(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path)
    env.transcript("..jsonl", "a name made of dots")
    transcripts_before = snapshot(env.sessions)
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.md"
    victim.write_text("the user's file outside the export dir", encoding="utf-8")
    env.export.mkdir(parents=True)
    (env.export / "link.md").symlink_to(victim)
    (env.export / "sub").mkdir()
    (env.export / "sub" / "nested.md").write_text("never visited", encoding="utf-8")
    result, agent = env.run()
    assert result.returncode == 0, result.stderr
    assert agent["sessions"]["exported"] == ["..md"]  # `..jsonl` -> `.` + `.md`: a plain name, inside
    assert (env.export / "..md").read_text(encoding="utf-8") == "# Session .\n\nUser: a name made of dots\n"
    assert agent["sessions"]["deleted"] == []
    assert [n["name"] for n in agent["sessions"]["leftAlone"]] == ["link.md"]
    assert "[main] qmd session export skipped link.md: a symbolic link" in result.stderr
    assert victim.read_text(encoding="utf-8") == "the user's file outside the export dir"
    assert (env.export / "link.md").is_symlink() and (env.export / "sub" / "nested.md").exists()
    assert sorted(os.listdir(outside)) == ["victim.md"]
    assert snapshot(env.sessions) == transcripts_before  # transcripts: never written, never touched


def test_sessions_off_exports_nothing(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path)
    env.scenario.config["memory"]["qmd"]["sessions"]["enabled"] = False
    env.scenario.write_config()
    env.transcript("a.jsonl", "hello")
    result, agent = env.run()
    assert result.returncode == 0, result.stderr
    assert agent["sessions"] is None
    assert [c["name"] for c in agent["collections"]] == ["memory-root-main", "memory-dir-main"]
    assert not env.export.exists()


def test_json_report_of_a_sessions_run(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path, retentionDays=7)
    env.transcript("s.jsonl", "hi")
    _, agent = env.run()
    assert set(agent["sessions"]) == {
        "sessionsDir",
        "exportDir",
        "collection",
        "retentionDays",
        "atMs",
        "exported",
        "written",
        "deleted",
        "createdExportDir",
        "expired",
        "unreadable",
        "leftAlone",
        "error",
        "errorCode",
    }
    assert agent["sessions"]["sessionsDir"] == str(env.sessions)
    assert agent["sessions"]["retentionDays"] == 7
    json.dumps(agent)


def test_agents_sharing_an_export_dir_are_refused(tmp_path: Path) -> None:
    """memory.qmd is global: an absolute exportDir is every agent's, and each agent's stale cleanup
    would delete the others' exports. Refused for both, even when only one is selected."""
    shared = tmp_path / "exports"
    scenario = make_scenario(tmp_path, {"main": {}, "ops": {}}, {})
    scenario.config["memory"] = {
        "backend": "qmd",
        "qmd": {"sessions": {"enabled": True, "exportDir": str(shared)}},
    }
    scenario.write_config()
    fake = install_fake_qmd(tmp_path / "fakebin")
    scenario.path_dirs = [tmp_path / "fakebin"]
    for agent_id in ("main", "ops"):
        transcripts = scenario.state / "agents" / agent_id / "sessions"
        transcripts.mkdir(parents=True)
        (transcripts / f"{agent_id}.jsonl").write_text(record("hello"), encoding="utf-8")
    result, report = scenario.run_json(extra_env={"FAKE_QMD_DIR": str(fake)})
    assert result.returncode == ExitCode.FINDINGS
    reasons = {agent["agentId"]: agent["reason"] for agent in report["agents"]}
    assert reasons["main"].startswith(
        f'qmd session export refused: export dir {shared} is also agent "ops"\'s'
    )
    assert reasons["ops"].startswith(
        f'qmd session export refused: export dir {shared} is also agent "main"\'s'
    )
    _, report = scenario.run_json(["--agent", "ops", "--dry-run"], extra_env={"FAKE_QMD_DIR": str(fake)})
    assert report["agents"][0]["status"] == "failed"
    assert not shared.exists()


def test_a_collection_holding_the_export_dir_is_fresh_after_the_export_too(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path, exportDir="exports")
    env.scenario.config["memory"]["qmd"]["paths"] = [{"path": ".", "name": "everything"}]
    env.scenario.write_config()
    env.transcript("a.jsonl", "hello")
    result, agent = env.run()
    assert result.returncode == 0, result.stderr
    exports = env.scenario.workspace("main") / "exports"
    assert [c["name"] for c in agent["collections"]][-2:] == ["everything-main", "sessions-main"]
    assert (exports / "a.md").is_file() and agent["sessions"]["exportDir"] == str(exports)
    assert env.run()[1]["status"] == "fresh"  # everything-main indexes the exports too: taken after them
