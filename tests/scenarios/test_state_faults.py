"""init-backends with memwarm's own state files under attack: planted symlinks, malformed and absurd
contents, a full disk (issue 10, classes 9 to 11). Nothing outside the state dir may change, no temp
file may stay behind, and a bad state file costs one warning, never the agent (`--force` included)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.backends.freshness import fingerprint as fp
from memwarm_cli.exitcodes import ExitCode
from tests.backends.support import (
    Scenario,
    by_agent,
    fake_log,
    fake_scenario,
    quiet_fake_log,
    run_measured,
)
from tests.conftest import run_memwarm

SYMLINK = "it is a symbolic link (memwarm does not follow symlinks below the state dir)"


def run(scenario: Scenario, state: Path, *args: str) -> tuple[Any, dict[str, Any]]:
    result, report = scenario.run_json(list(args), extra_env={"FAKE_QMD_DIR": str(state)}, timeout=60)
    assert "Traceback" not in result.stderr, result.stderr
    return result, report


def no_temp_files(root: Path) -> None:
    leftovers = [str(p) for p in root.rglob("*.tmp")]
    assert leftovers == [], leftovers


# (where, relative to the state dir, {agent} for the agent id; a file or a directory)
FILE_TARGETS = {
    "agent lock": "agents/main/qmd/memwarm-init.lock",
    "embed lock": "memwarm/qmd-embed.lock",
}
DIR_TARGETS = {
    "memwarm dir": "memwarm",
    "agents dir": "agents",
    "agent qmd dir": "agents/main/qmd",
    "xdg-cache dir": "agents/main/qmd/xdg-cache",
}


@pytest.mark.parametrize("where", [*FILE_TARGETS, *DIR_TARGETS])
def test_a_planted_symlink_is_refused_and_nothing_outside_changes(
    tmp_path: Path, outside: Path, where: str
) -> None:
    """The PID went into whatever the lock symlink named; directories were created through links."""
    scenario, state = fake_scenario(tmp_path, searchMode="query")  # so the embed lock is taken too
    relative = FILE_TARGETS.get(where) or DIR_TARGETS[where]
    link = scenario.state / relative
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside if where in FILE_TARGETS else outside.parent)
    result, report = run(scenario, state)
    assert result.returncode == ExitCode.FINDINGS, result.stderr
    agent = report["agents"][0]
    assert agent["status"] == "failed"
    assert agent["reason"] == f"cannot prepare {link}: {SYMLINK}"
    assert link.is_symlink()  # refused, not replaced


@pytest.mark.parametrize("name", ["fingerprint", "version cache"])
def test_a_symlink_at_a_state_file_is_ignored_then_replaced_never_written_through(
    tmp_path: Path, outside: Path, name: str
) -> None:
    scenario, state = fake_scenario(tmp_path)
    path = (
        scenario.fingerprint("main")
        if name == "fingerprint"
        else scenario.state / "memwarm" / "qmd-versions.json"
    )
    path.parent.mkdir(parents=True)
    path.symlink_to(outside)
    result, report = run(scenario, state)
    assert result.returncode == 0, result.stderr
    assert report["agents"][0]["status"] == "armed"
    assert f"ignoring {path}: {SYMLINK}; continuing as if it were absent" in result.stderr
    assert not path.is_symlink() and json.loads(path.read_text())  # memwarm's own file now
    result, report = run(scenario, state)
    assert report["agents"][0]["status"] == "fresh"
    assert "ignoring" not in result.stderr


MALFORMED_FINGERPRINTS: dict[str, bytes] = {
    "not json": b"{not json",
    "a list": b"[]",
    "wrong types": json.dumps({"version": 2, "digest": "", "embedFailures": "x"}).encode(),
    "NaN": b'{"version": 2, "digest": "", "embedFailures": NaN}',
    "nested": b"[" * 200_000,
    "binary": bytes(range(256)) * 8,
    "huge": b'{"version": 2, "digest": "", "pad": "' + b"x" * (2 << 20) + b'"}',
}


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
@pytest.mark.parametrize("kind", [*MALFORMED_FINGERPRINTS, "fifo", "directory"])
def test_a_malformed_fingerprint_costs_one_warning_not_the_agent(
    tmp_path: Path, kind: str, force: bool
) -> None:
    scenario, state = fake_scenario(tmp_path)
    path = scenario.fingerprint("main")
    path.parent.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    else:
        path.write_bytes(MALFORMED_FINGERPRINTS[kind])
    result, report = run(scenario, state, *(["--force"] if force else []))
    warnings = [line for line in result.stderr.splitlines() if f"ignoring {path}:" in line]
    assert len(warnings) == 1, result.stderr
    assert result.returncode == 0, result.stderr
    assert report["agents"][0]["status"] == "armed"
    if kind == "directory":  # cannot be replaced (memwarm deletes no directory): not recorded, in words
        assert f"cannot record the fingerprint: cannot prepare {path}: Is a directory" in result.stderr
        assert path.is_dir()
        return
    assert json.loads(path.read_text())["version"] == fp.FINGERPRINT_VERSION  # replaced by a good one
    no_temp_files(scenario.state)


def test_absurd_embed_failures_are_clamped_and_force_still_embeds(tmp_path: Path) -> None:
    """embedFailures 1e14 made every run compute 2**(1e14-1)."""
    scenario, state = fake_scenario(tmp_path, searchMode="query")
    (state / "embed.sh").write_text("echo offline >&2; exit 1\n")
    result, _ = run(scenario, state)
    assert result.returncode == ExitCode.DEGRADED, result.stderr
    path = scenario.fingerprint("main")
    data = json.loads(path.read_text())
    data.update(embedFailures=1e14, embedFailedAt=1e300, recordedAt=1e300)
    path.write_text(json.dumps(data))
    started = time.monotonic()
    result, report = run(scenario, state)
    took = time.monotonic() - started
    assert took < 50, f"{took:.1f} s (bound sized for load 10 on 2 cores; computing 2**(1e14-1) took minutes)"
    assert result.returncode == ExitCode.DEGRADED, result.stderr
    assert "next attempt in 3600s" in report["agents"][0]["reason"]  # at most the 1 h ceiling
    (state / "embed.sh").unlink()
    result, report = run(scenario, state, "--force")
    assert result.returncode == 0, result.stderr
    assert report["agents"][0]["status"] == "armed"
    assert json.loads(path.read_text())["embedFailures"] == 0


@pytest.mark.parametrize("kind", ["nested", "wrong types", "fifo"])
def test_a_malformed_version_cache_costs_one_warning_per_run(tmp_path: Path, kind: str) -> None:
    scenario, state = fake_scenario(tmp_path, agents=("a", "b", "c"))
    cache = scenario.state / "memwarm" / "qmd-versions.json"
    cache.parent.mkdir(parents=True)
    for force in ([], ["--force"]):  # plain: the cache is read; --force: asked anyway, the cache rewritten
        cache.unlink(missing_ok=True)
        if kind == "fifo":
            os.mkfifo(cache)  # read_text() waited for a writer forever
        else:
            cache.write_bytes(b"[" * 200_000 if kind == "nested" else b'{"x": ["qmd 1"]}')
        result, report = run(scenario, state, *force)
        assert result.returncode == 0, result.stderr
        assert {a["status"] for a in report["agents"]} == {"armed"}
        assert result.stderr.count(f"ignoring {cache}:") == 1, result.stderr
        assert json.loads(cache.read_text())  # replaced by a good cache


def test_a_full_disk_leaves_no_temp_file_and_fails_in_words(tmp_path: Path) -> None:
    """RLIMIT_FSIZE makes every write past 64 bytes fail with EFBIG, as a full disk fails them with
    ENOSPC: the fingerprint and the version cache used to leave `.*.tmp` files behind on every run."""
    scenario, state = fake_scenario(tmp_path, agents=("a", "b"))
    quiet_fake_log(state)
    env = scenario.env({"FAKE_QMD_DIR": str(state)})
    for _ in range(2):
        limited = run_measured(["init-backends", "--json", "--force"], env, file_size_limit=64)
        assert "Traceback" not in limited.stderr, limited.stderr
        no_temp_files(scenario.state)
        assert limited.returncode == ExitCode.FINDINGS, limited.stderr
        agents = by_agent(json.loads(limited.stdout))
        for agent_id in ("a", "b"):
            # The first state file a full pass writes: the fingerprint (no file lists are kept any more).
            fingerprint = scenario.fingerprint(agent_id)
            assert agents[agent_id]["reason"] == f"cannot prepare {fingerprint}: File too large"
        cache = scenario.state / "memwarm" / "qmd-versions.json"
        assert (
            f"cannot update the qmd version cache: cannot prepare {cache}: File too large" in limited.stderr
        )
    result, report = run(scenario, state)  # with room again, the next run recovers
    assert result.returncode == 0, result.stderr
    assert {a["status"] for a in report["agents"]} == {"armed"}


def test_a_session_export_dir_below_the_state_dir_is_not_made_through_a_symlink(
    tmp_path: Path, outside: Path
) -> None:
    """`mkdir -p` followed a symlinked `<state>/exports` and created the export dir outside the state dir."""
    scenario, state = fake_scenario(tmp_path)
    export_dir = scenario.state / "exports" / "main"
    scenario.config["memory"]["qmd"]["sessions"] = {"enabled": True, "exportDir": str(export_dir)}
    scenario.write_config()
    (scenario.state / "exports").symlink_to(outside.parent, target_is_directory=True)
    result, report = run(scenario, state)
    assert result.returncode == ExitCode.FINDINGS, result.stderr
    assert report["agents"][0]["reason"] == f"cannot prepare {scenario.state / 'exports'}: {SYMLINK}"


@pytest.mark.parametrize("dry_run", [False, True])
def test_a_nul_in_the_export_dir_fails_the_agent_in_words(tmp_path: Path, dry_run: bool) -> None:
    """`exportDir: "a\\u0000b"` is valid JSON5; realpath raised on it, a traceback before any agent ran."""
    scenario, state = fake_scenario(tmp_path)
    scenario.config["memory"]["qmd"]["sessions"] = {"enabled": True, "exportDir": "a\0b"}
    scenario.write_config()
    result, report = run(scenario, state, *(["--dry-run"] if dry_run else []))
    assert result.returncode == ExitCode.FINDINGS, result.stderr
    reason = report["agents"][0]["reason"]
    assert (
        reason
        == f"qmd session export refused: export dir {scenario.root / 'ws-main'}/a\0b holds a NUL "
        + ("character (memory.qmd.sessions.exportDir)")
    )
    assert not (scenario.root / "ws-main" / "a").exists()


@pytest.mark.parametrize("name", [fp.FINGERPRINT_NAME])
def test_a_directory_at_a_fingerprint_file_is_a_warning_not_a_failure_every_run(
    tmp_path: Path, name: str
) -> None:
    """Not memwarm's to remove: every run failed the agent on it, --force included. Now the index is
    prepared, the record is not, and the warning says the next run does the full pass again."""
    scenario, state = fake_scenario(tmp_path)
    planted = scenario.fingerprint("main").with_name(name)
    planted.mkdir(parents=True)
    (planted / "keep").write_text("the user's\n")
    for args in ([], ["--force"], []):
        result, report = run(scenario, state, *args)
        assert result.returncode == ExitCode.OK, result.stderr
        assert report["agents"][0]["status"] == "armed"
        assert result.stderr.count("cannot record the fingerprint: cannot prepare ") == 1, result.stderr
        assert "the next run does the full pass again" in result.stderr
    assert (planted / "keep").read_text() == "the user's\n"


@pytest.mark.parametrize(
    ("where", "dangling"),
    [
        ("xdg-config/qmd/index.yml", False),
        ("xdg-config/qmd/index.yml", True),
        ("xdg-cache/qmd/index.sqlite", True),
        ("xdg-cache/qmd/index.sqlite-journal", True),
    ],
)
def test_a_symlink_at_a_file_qmd_writes_fails_the_agent_before_qmd_runs(
    tmp_path: Path, outside: Path, where: str, dangling: bool
) -> None:
    """qmd follows links: a symlinked index.yml had qmd merge its collections into the file it points
    to, and a dangling index.sqlite had it create the database outside the state dir."""
    scenario, state = fake_scenario(tmp_path)
    link = scenario.qmd_dir("main") / where
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside.with_name("not-yet") if dangling else outside)
    result, report = run(scenario, state)
    assert result.returncode == ExitCode.FINDINGS, result.stderr
    assert report["agents"][0]["reason"] == f"cannot prepare {link}: {SYMLINK}"
    assert link.is_symlink()  # left as it was
    assert not [line for line in fake_log(state) if "collection" in line or "update" in line]


@pytest.mark.parametrize("where", ["xdg-config/qmd/index.yml", "xdg-cache/qmd/index.sqlite"])
def test_a_hard_link_at_a_file_qmd_writes_fails_the_agent_before_qmd_runs(
    tmp_path: Path, outside: Path, where: str
) -> None:
    """qmd rewrites its index in place: a hard link to the user's file had qmd change that file."""
    scenario, state = fake_scenario(tmp_path)
    link = scenario.qmd_dir("main") / where
    link.parent.mkdir(parents=True, exist_ok=True)
    os.link(outside, link)
    result, report = run(scenario, state)
    assert result.returncode == ExitCode.FINDINGS, result.stderr
    assert report["agents"][0]["reason"] == (
        f"cannot prepare {link}: it has other hard links (qmd would write through to them)"
    )
    assert not [line for line in fake_log(state) if "collection" in line or "update" in line]


@pytest.mark.parametrize("where", ["xdg-config/qmd/index.yml", "xdg-cache/qmd/index.sqlite-journal"])
@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_special_file_at_a_file_qmd_writes_fails_the_agent_before_qmd_runs(
    tmp_path: Path, where: str, kind: str
) -> None:
    """qmd opened a device planted at index.yml and wrote its collections into it (then reported armed,
    fresh and warm with no usable index); a FIFO at the journal hung the run to its command timeout."""
    scenario, state = fake_scenario(tmp_path)
    planted = scenario.qmd_dir("main") / where
    planted.parent.mkdir(parents=True, exist_ok=True)
    if kind == "fifo":
        os.mkfifo(planted)
    else:
        planted.mkdir()
    result, report = run(scenario, state)
    assert result.returncode == ExitCode.FINDINGS, result.stderr
    assert report["agents"][0]["reason"] == (
        f"cannot prepare {planted}: it is not a regular file (qmd would write into it)"
    )
    assert not [line for line in fake_log(state) if "collection" in line or "update" in line]


def test_status_and_dry_run_say_the_next_run_fails_on_a_link_at_qmds_files(
    tmp_path: Path, outside: Path
) -> None:
    """status said `warm` and --dry-run `planned` (exit 0) while the next run refused the symlink."""
    scenario, state = fake_scenario(tmp_path)
    result, _ = run(scenario, state)
    assert result.returncode == ExitCode.OK, result.stderr
    index = scenario.qmd_dir("main") / "xdg-cache" / "qmd" / "index.sqlite"
    index.unlink()
    index.symlink_to(outside)
    refusal = f"cannot prepare {index}: {SYMLINK}"
    env = scenario.env({"FAKE_QMD_DIR": str(state)})
    status = run_memwarm(["status", "--json"], env)
    assert status.returncode == ExitCode.FINDINGS, status.stderr
    agent = json.loads(status.stdout)["agents"][0]
    assert agent["status"] == "failed" and agent["why"][0] == f"the next run fails: {refusal}"
    dry, report = run(scenario, state, "--dry-run")
    assert dry.returncode == ExitCode.FINDINGS, dry.stderr
    assert report["agents"][0]["status"] == "failed" and report["agents"][0]["reason"] == refusal


@pytest.mark.parametrize("plant", ["symlinked xdg-cache", "symlinked agent dir", "fifo lock"])
def test_status_dry_run_and_the_run_agree_on_what_the_run_refuses(tmp_path: Path, plant: str) -> None:
    """A symlinked directory on the way to qmd's files, or a FIFO at the agent's lock: the run failed
    while status said stale and --dry-run planned (and with agents/<id> symlinked the failure could not
    even be recorded for status)."""
    scenario, state = fake_scenario(tmp_path)
    assert run(scenario, state)[0].returncode == ExitCode.OK
    qmd_dir = scenario.qmd_dir("main")
    elsewhere = tmp_path / "moved"
    if plant == "symlinked xdg-cache":
        refused = qmd_dir / "xdg-cache"
        refused.rename(elsewhere)
        refused.symlink_to(elsewhere)
        reason = f"cannot prepare {refused}: {SYMLINK}"
    elif plant == "symlinked agent dir":
        refused = qmd_dir.parent
        refused.rename(elsewhere)
        refused.symlink_to(elsewhere)
        reason = f"cannot prepare {refused}: {SYMLINK}"
    else:
        refused = qmd_dir / "memwarm-init.lock"
        refused.unlink(missing_ok=True)
        os.mkfifo(refused)
        reason = f"cannot prepare {refused}: it is not a regular file"
    status = run_memwarm(["status", "--json"], scenario.env({"FAKE_QMD_DIR": str(state)}))
    assert status.returncode == ExitCode.FINDINGS, status.stderr
    assert json.loads(status.stdout)["agents"][0]["why"][0] == f"the next run fails: {reason}"
    for args in (["--dry-run"], []):
        result, report = run(scenario, state, *args)
        assert result.returncode == ExitCode.FINDINGS, result.stderr
        assert report["agents"][0]["reason"] == reason, args
