"""init-backends with `memory.qmd.sessions.enabled`: where the export sits among the steps, what makes the
next run do work, `--dry-run`, failures, and the user's files. A fake qmd on PATH records what ran (the
real qmd end to end is in test_real_qmd_sessions.py, the golden cases in tests/parity/).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.exitcodes import ExitCode
from tests.backends.session_export_support import record, snapshot
from tests.backends.support import Scenario, fake_log, install_fake_qmd, make_scenario, wait_for_marker
from tests.conftest import MEMWARM, CliResult, run_memwarm
from tests.signal_defaults import DEFAULT_SIGNALS

NOW_MS = 1_775_930_400_000  # 2026-04-11T18:00:00Z
HOUR_MS = 3_600_000
DAY_MS = 86_400_000
VERSION_HOOK = 'echo "qmd 2.8.3"; exit 0\n'


class SessionsScenario:
    """One agent "main" with a note, sessions on, a fake qmd; transcripts in the state dir."""

    def __init__(self, tmp_path: Path, behaviours: dict[str, str] | None = None, **sessions: Any) -> None:
        qmd = {"sessions": {"enabled": True, **sessions}}
        self.scenario: Scenario = make_scenario(
            tmp_path,
            {"main": {"memory/2026-04-10.md": "# Day\nPelican.\n"}},
            {"memory": {"backend": "qmd", "qmd": qmd}},
        )
        # A version memwarm accepts, whatever the fake says by default.
        self.fake = install_fake_qmd(tmp_path / "fakebin", {"version": VERSION_HOOK, **(behaviours or {})})
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


def test_a_directory_named_md_never_fails_the_pass(tmp_path: Path) -> None:
    """As the release's cleanup (`remove_path` without recursion): an empty `x.md` directory is removed, a
    non-empty one stays (reported), and the agent is armed."""
    env = SessionsScenario(tmp_path)
    env.transcript("a.jsonl", "written")
    (env.export / "empty.md").mkdir(parents=True)
    (env.export / "folder.md").mkdir()
    (env.export / "folder.md" / "inside.md").write_text("untouched", encoding="utf-8")
    result, agent = env.run()
    assert result.returncode == 0, result.stderr
    assert agent["status"] == "armed"
    assert (agent["sessions"]["written"], agent["sessions"]["deleted"]) == (["a.md"], ["empty.md"])
    assert [n["name"] for n in agent["sessions"]["leftAlone"]] == ["folder.md"]
    assert (env.export / "folder.md" / "inside.md").read_text(encoding="utf-8") == "untouched"
    assert env.qmd_calls()[-1] == "update"


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


def test_only_md_entries_directly_inside_the_export_dir_are_ever_deleted(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path)
    env.transcript("..jsonl", "a name made of dots")
    transcripts_before = snapshot(env.sessions)
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim.md"
    victim.write_text("the user's file outside the export dir", encoding="utf-8")
    env.export.mkdir(parents=True)
    (env.export / "link.md").symlink_to(victim)  # the release unlinks the link (never its target)
    (env.export / "sub").mkdir()
    (env.export / "sub" / "nested.md").write_text("never visited", encoding="utf-8")
    result, agent = env.run()
    assert result.returncode == 0, result.stderr
    assert agent["sessions"]["exported"] == ["..md"]  # `..jsonl` -> `.` + `.md`: a plain name, inside
    assert (env.export / "..md").read_text(encoding="utf-8") == "# Session .\n\nUser: a name made of dots\n"
    assert agent["sessions"]["deleted"] == ["link.md"]
    assert victim.read_text(encoding="utf-8") == "the user's file outside the export dir"
    assert not (env.export / "link.md").is_symlink() and (env.export / "sub" / "nested.md").exists()
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
        "inClear",
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
    fake = install_fake_qmd(tmp_path / "fakebin", {"version": VERSION_HOOK})
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


# --------------------------------------------------------------------------------------------------------
# Export dirs whose cleanup would delete the user's notes (issue 21, class 3)


def test_an_export_dir_inside_memory_or_over_the_home_dir_fails_the_agent_in_one_line(tmp_path: Path) -> None:
    for export_dir, why in [("memory/projects/", "is inside"), ("~", "the home directory")]:
        env = SessionsScenario(tmp_path / export_dir.strip("/~").replace("/", "-"), exportDir=export_dir)
        notes = env.scenario.workspace("main") / "memory" / "projects"
        notes.mkdir(parents=True, exist_ok=True)
        (notes / "plan.md").write_text("a note of the user's", encoding="utf-8")
        (env.scenario.home / "todo.md").write_text("a note in the home dir", encoding="utf-8")
        env.transcript("a.jsonl", "hello")
        user_files = [env.scenario.workspace("main"), env.scenario.home]
        before = [snapshot(path) for path in user_files]
        result, agent = env.run()
        assert result.returncode == ExitCode.FINDINGS
        assert agent["status"] == "failed"
        assert agent["reason"].startswith("qmd session export refused: export dir ")
        assert why in agent["reason"] and "\n" not in agent["reason"]
        assert [snapshot(path) for path in user_files] == before  # nothing deleted, nothing written
        assert env.qmd_calls() == ["--version"]  # refused before any collection or index work


def _config_check(env: SessionsScenario) -> CliResult:
    args = ["--config", str(env.scenario.config_path), "config", "check"]
    return run_memwarm(args, env.scenario.env({"FAKE_QMD_DIR": str(env.fake)}))


def test_config_check_warns_about_a_refused_export_dir_and_the_formats_left_in_clear(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path, exportDir="memory/projects")
    result = _config_check(env)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines() + result.stderr.splitlines()
    refused = [line for line in lines if "memory.qmd.sessions.exportDir" in line]
    assert len(refused) == 1 and "init-backends refuses this" in refused[0] and "is inside" in refused[0]
    clear = [line for line in lines if "leaves these in clear" in line]
    assert len(clear) == 1 and "Twilio" in clear[0] and "AccountKey=" in clear[0]
    off = SessionsScenario(tmp_path / "off")
    off.scenario.config["memory"]["qmd"]["sessions"]["enabled"] = False
    off.scenario.write_config()
    quiet = _config_check(off)
    assert "leaves these in clear" not in quiet.stdout + quiet.stderr


# --------------------------------------------------------------------------------------------------------
# Files from outside the sessions dir (issue 21, class 8)


def test_hard_linked_transcripts_and_a_symlinked_sessions_dir_are_not_read(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path)
    private = tmp_path / "private.jsonl"
    private.write_text(record("a private file elsewhere"), encoding="utf-8")
    os.link(private, env.sessions / "linked.jsonl")
    env.transcript("own.jsonl", "own")
    result, agent = env.run()
    assert result.returncode == 0, result.stderr
    assert agent["sessions"]["exported"] == ["own.md"]
    assert [n["name"] for n in agent["sessions"]["unreadable"]] == ["linked.jsonl"]
    assert "[main] qmd session export skipped linked.jsonl: it has 2 hard links" in result.stderr
    real = tmp_path / "sessions-elsewhere"
    os.rename(env.sessions, real)
    os.symlink(real, env.sessions)
    (real / "new.jsonl").write_text(record("must not be read through the link"), encoding="utf-8")
    result, agent = env.run("--force")  # (without: fresh, since such a pass has nothing to do)
    assert result.returncode == 0, result.stderr
    assert agent["status"] == "armed", agent
    assert agent["sessions"]["exported"] == [] and agent["sessions"]["deleted"] == []
    assert "symbolic link" in agent["sessions"]["unreadable"][0]["reason"]
    assert sorted(os.listdir(env.export)) == ["own.md"]  # kept: memwarm cannot tell what is stale


# --------------------------------------------------------------------------------------------------------
# Bounded work: stoppable, and an unchanged transcript is not parsed again (issue 21, classes 1 and 2)


def _slow_export(tmp_path: Path) -> SessionsScenario:
    """Transcripts whose export takes seconds even in linear time: 8 MB of PEM-header lines, the input
    that made the former redaction quadratic (1 MB alone took minutes)."""
    marker = tmp_path / "collections-done"
    env = SessionsScenario(tmp_path, {"add": f'case "$5" in sessions-*) touch "{marker}";; esac\n'})
    line = "-----BEGIN RSA PRIVATE KEY----- " * 32_768
    for n in range(8):
        (env.sessions / f"s{n:02d}.jsonl").write_text(record(line), encoding="utf-8")
    return env


def _lock_is_free(env: SessionsScenario) -> bool:
    import fcntl

    fd = os.open(env.scenario.qmd_dir("main") / "memwarm-init.lock", os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


@pytest.mark.long
def test_timeout_bounds_the_export(tmp_path: Path) -> None:
    env = _slow_export(tmp_path)
    result, agent = env.run("--timeout", "1")
    assert result.returncode == ExitCode.FINDINGS
    assert agent["status"] == "failed"
    assert agent["reason"].startswith("qmd session export timed out after 1 s (--timeout)")
    assert "update" not in env.qmd_calls()
    exports = os.listdir(env.export) if env.export.exists() else []
    assert not [name for name in exports if name.endswith(".tmp")]
    assert not env.scenario.fingerprint("main").exists()
    assert _lock_is_free(env)


def test_the_export_check_before_the_steps_counts_against_the_timeout(tmp_path: Path) -> None:
    # issue 31, class 4: the check that runs before the agent's steps rendered every transcript with no
    # deadline, then the export step ran out of --timeout on them again (--timeout 5 fired after 18.7 s).
    # Now the check's deadline fails the agent, and the export step does not render them a second time.
    env = _slow_export(tmp_path)
    result, agent = env.run("--timeout", "1")
    assert result.returncode == ExitCode.FINDINGS
    assert agent["reason"].startswith(
        "qmd session export timed out after 1 s (--timeout) while memwarm checked whether it had work"
    )
    assert "update" not in env.qmd_calls()
    assert not env.export.exists() or not os.listdir(env.export)  # the pass never started


@pytest.mark.long
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_the_export_promptly_and_releases_the_lock(
    tmp_path: Path, sig: signal.Signals
) -> None:
    env = _slow_export(tmp_path)
    args = ["--config", str(env.scenario.config_path), "init-backends", "--json", "--at", str(NOW_MS)]
    proc = subprocess.Popen(
        [MEMWARM, *args],
        env=env.scenario.env({"FAKE_QMD_DIR": str(env.fake)}),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=DEFAULT_SIGNALS,  # the signal's default, whatever the test run inherited
    )
    # The sessions collection is added just before the export, which takes seconds: the signal comes at
    # its start or inside it, however fast or loaded the machine (no sleep to guess where it lands).
    wait_for_marker(proc, tmp_path / "collections-done", "the session export")
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=300)  # a hang guard only: the former export ran to its end
    assert proc.returncode == 128 + sig, err
    assert "update" not in env.qmd_calls()
    exported = os.listdir(env.export) if env.export.exists() else []
    assert not [name for name in exported if name.endswith(".tmp")]
    # Stopped, not run to its end: none of the eight exports was written.
    assert not [name for name in exported if name.endswith(".md")], exported
    assert _lock_is_free(env)


def test_an_unchanged_transcript_is_not_parsed_again_by_the_next_run(tmp_path: Path) -> None:
    env = SessionsScenario(tmp_path)
    kept = env.transcript("kept.jsonl", "the first text")
    assert env.run()[1]["status"] == "armed"
    cache = env.scenario.qmd_dir("main") / "memwarm-session-export.json"
    assert json.loads(cache.read_text(encoding="utf-8"))["schema"] == 1
    assert kept.exists()
    exported = (env.export / "kept.md").stat()
    env.transcript("new.jsonl", "a new transcript: the next run indexes")
    result, agent = env.run()
    assert result.returncode == 0, result.stderr
    assert agent["sessions"]["written"] == ["new.md"]  # kept.jsonl: vouched for by the cache
    assert (env.export / "kept.md").stat().st_mtime_ns == exported.st_mtime_ns
    assert (env.export / "kept.md").read_text(encoding="utf-8") == "# Session kept\n\nUser: the first text\n"
