"""`memwarm status` and `memwarm search` against the real qmd 2.8.3 (tools/bin). Never skipped under CI.

One scenario per module, prepared by a cold init-backends run; tests that change a note put it back, so
the others see the warm index the run left (each xdist worker builds its own).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from memwarm_cli.exitcodes import ExitCode
from tests.backends.session_export_support import record
from tests.backends.support import (
    Scenario,
    install_fake_qmd,
    make_scenario,
    real_qmd_scenario,
    wait_for_marker,
)
from tests.conftest import MEMWARM, TOOLS_BIN, CliResult, run_memwarm
from tests.signal_defaults import DEFAULT_SIGNALS

pytestmark = pytest.mark.qmd

NOTES = {
    "MEMORY.md": "# Main memory\nThe pelican project ships on Fridays.\n",
    "memory/2026-01-01.md": "# Day one\nQuokka handshake protocol agreed.\n",
    "memory/2026-01-02.md": "# Day two\nThe walrus scheduler restarts nightly.\n",
    "memory/2026-01-03.md": "# Day three\nZebra failover drill every Tuesday.\n",
    "memory/walrus.md": "# Walrus\n" + "The walrus eats fish. " * 80 + "\n",
}


def memwarm(scenario: Scenario, *args: str) -> CliResult:
    return run_memwarm(list(args), scenario.env())


def status_json(scenario: Scenario, *args: str) -> tuple[CliResult, dict[str, Any]]:
    result = memwarm(scenario, "status", "--json", *args)
    try:
        return result, json.loads(result.stdout)
    except ValueError as exc:
        raise AssertionError(f"no JSON (exit {result.returncode}):\n{result.stderr}") from exc


def agent(report: dict[str, Any], agent_id: str) -> dict[str, Any]:
    return next(a for a in report["agents"] if a["agentId"] == agent_id)


def tree(root: Path) -> dict[str, tuple[int, int]]:
    """Every entry under root with its size and mtime: what "nothing was written" compares."""
    found: dict[str, tuple[int, int]] = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(directory) / name
            info = path.lstat()
            found[str(path.relative_to(root))] = (info.st_size, info.st_mtime_ns)
    return found


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Scenario:
    root = tmp_path_factory.mktemp("status-real-qmd")
    scenario = real_qmd_scenario(
        root,
        {"main": NOTES, "off": {"memory/x.md": "x\n"}},
        {
            "memory": {"backend": "qmd", "qmd": {"limits": {"maxInjectedChars": 500}}},
            "agents": {"list": [{"id": "off", "memorySearch": {"enabled": False}}]},
        },
    )
    result, _ = scenario.run_json()
    assert result.returncode == 0, result.stderr
    return scenario


def qmd_file_counts(scenario: Scenario, agent_id: str) -> dict[str, int]:
    """What qmd itself reports per collection (`qmd collection list`: `Files: N`)."""
    listing = scenario.qmd(agent_id, "collection", "list")
    assert listing.returncode == 0, listing.stderr
    return {
        name: int(count)
        for name, count in re.findall(
            r"^(\S+) \(qmd://[^)]*\)\n\s+Pattern:.*\n\s+Files:\s+(\d+)", listing.stdout, re.M
        )
    }


def test_after_init_backends_status_is_warm_with_qmds_own_counts_and_writes_nothing(warm: Scenario) -> None:
    qmd_counts = qmd_file_counts(warm, "main")  # qmd itself opens the index: before the snapshot
    before = tree(warm.state)
    result, report = status_json(warm)
    assert result.returncode == ExitCode.OK, result.stderr
    main = agent(report, "main")
    assert main["status"] == "warm" and main["why"] == []
    # memwarm's record vouches for the index it built: nothing read but the walk.
    expected = {"fresh": True, "staleFiles": 0, "reasons": [], "judgedFrom": "record", "notes": []}
    assert main["freshness"] == expected
    counts = {c["name"]: c["documents"] for c in main["index"]["collections"]}
    assert counts == qmd_counts == {"memory-root-main": 1, "memory-dir-main": 4}
    assert main["index"]["exists"] and main["index"]["sizeBytes"] > 0
    assert main["lastRun"]["status"] == "armed" and main["lastRun"]["durationMs"] > 0
    assert main["lastSuccessAt"] == main["lastRun"]["finishedAt"]
    assert main["qmdVersion"].startswith("qmd 2.8.3") and main["qmdVersionSource"] == "cache"
    assert agent(report, "off")["status"] == "skipped"
    for args in ((), ("--format", "plain"), ("--format", "prometheus")):
        assert memwarm(warm, "status", *args).returncode == ExitCode.OK
    # Nothing created, written or touched under the state dir: no -wal/-shm beside the index, no cache.
    assert tree(warm.state) == before


@pytest.mark.parametrize("change", ["edited", "added", "removed"])
def test_editing_adding_and_removing_a_note_make_it_stale_with_the_counts(
    warm: Scenario, change: str
) -> None:
    memory = warm.workspace("main") / "memory"
    note = memory / "2026-01-02.md"
    info = note.stat()
    text = note.read_text()
    if change == "edited":
        note.write_text(text + "An edit.\n")
    elif change == "added":
        (memory / "2026-01-04.md").write_text("a new note\n")
    else:
        note.unlink()
    try:
        result, report = status_json(warm)
        assert result.returncode == ExitCode.DEGRADED, result.stderr
        main = agent(report, "main")
        assert main["status"] == "stale" and main["freshness"]["judgedFrom"] == "index"
        (reason,) = main["freshness"]["reasons"]
        changes = reason["changes"]
        expected = {"edited": ("changed", "2026-01-02.md"), "added": ("added", "2026-01-04.md")}
        kind, path = expected.get(change, ("removed", "2026-01-02.md"))
        assert reason["kind"] == "files" and changes["scope"] == "memory-dir-main" and changes[kind] == 1
        assert changes["added"] + changes["changed"] + changes["removed"] == 1
        assert changes["paths"][kind] == [path]
        assert main["freshness"]["staleFiles"] == 1
        plain = memwarm(warm, "status", "--format", "plain", "-q")
        (row,) = plain.stdout.splitlines()[1:]
        assert row.split("\t")[:2] == ["main", "stale"] and f"1 {kind} ({path})" in row
    finally:
        if change == "added":
            (memory / "2026-01-04.md").unlink()
        else:
            note.write_text(text)
            os.utime(note, ns=(info.st_atime_ns, info.st_mtime_ns))
    assert agent(status_json(warm)[1], "main")["status"] == "warm"


def test_a_touched_note_is_warm_from_the_index_and_the_next_run_does_no_qmd_work(warm: Scenario) -> None:
    """qmd compares content, never mtimes: a note touched (or rewritten with the same bytes) is
    unchanged for `qmd update`, so memwarm calls the index warm too, reading it to be sure."""
    note = warm.workspace("main") / "memory" / "2026-01-03.md"
    info = note.stat()
    note.write_bytes(note.read_bytes())  # the same bytes, a new mtime
    os.utime(note, ns=(info.st_atime_ns, info.st_mtime_ns + 7_000_000_000))
    try:
        result, report = status_json(warm)
        assert result.returncode == ExitCode.OK, result.stderr
        main = agent(report, "main")
        assert (main["status"], main["freshness"]["judgedFrom"]) == ("warm", "index")
        run, run_report = warm.run_json()
        assert run.returncode == 0, run.stderr
        (outcome,) = [a for a in run_report["agents"] if a["agentId"] == "main"]
        assert outcome["status"] == "fresh" and outcome["commands"] == []
        # The run recorded what it found: the next status is vouched for by the record again.
        assert agent(status_json(warm)[1], "main")["freshness"]["judgedFrom"] == "record"
    finally:
        os.utime(note, ns=(info.st_atime_ns, info.st_mtime_ns))


def test_max_age_makes_an_old_success_stale(warm: Scenario) -> None:
    result, report = status_json(warm, "--max-age", "0")
    assert result.returncode == ExitCode.DEGRADED
    (why,) = agent(report, "main")["why"]
    assert why.startswith("the last success was ") and why.endswith("ago (--max-age 0s)")
    assert memwarm(warm, "status", "--max-age", "1d").returncode == ExitCode.OK
    bad = memwarm(warm, "status", "--max-age", "soon")
    assert bad.returncode == ExitCode.USAGE and "--max-age: invalid duration: soon" in bad.stderr


def test_prometheus_text_parses_back_with_the_real_parser(warm: Scenario) -> None:
    result = memwarm(warm, "status", "--format", "prometheus")
    assert result.returncode == ExitCode.OK, result.stderr
    families = {family.name: family for family in text_string_to_metric_families(result.stdout)}
    values = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in families.values()
        for sample in family.samples
    }
    assert values[("memwarm_agent_warm", (("agent", "main"),))] == 1
    assert values[("memwarm_agent_status", (("agent", "main"), ("status", "warm")))] == 1
    assert values[("memwarm_agent_status", (("agent", "main"), ("status", "stale")))] == 0
    documents = ("memwarm_index_documents", (("agent", "main"), ("collection", "memory-dir-main")))
    assert values[documents] == 4
    assert values[("memwarm_stale_files", (("agent", "main"),))] == 0
    assert values[("memwarm_last_run_timestamp_seconds", (("agent", "main"),))] > 1.7e9
    assert values[("memwarm_last_run_duration_seconds", (("agent", "main"),))] > 0
    assert not any(labels and dict(labels).get("agent") == "off" for _, labels in values)  # skipped
    for name in (
        "memwarm_agent_warm",
        "memwarm_last_success_timestamp_seconds",
        "memwarm_embed_backoff_until_seconds",
    ):
        assert f"# HELP {name} " in result.stdout and f"# TYPE {name} gauge" in result.stdout


def test_the_textfile_is_never_seen_half_written(warm: Scenario, tmp_path: Path) -> None:
    target = tmp_path / "memwarm.prom"
    target.write_text("# an older file\n")
    seen: list[str] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            seen.append(target.read_text())

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        for _ in range(5):
            result = memwarm(warm, "status", "--textfile", str(target))
            assert result.returncode == ExitCode.OK and result.stdout == "", result.stderr
    finally:
        stop.set()
        watcher.join()
    complete = [text for text in seen if text != "# an older file\n"]
    assert complete and all(
        text.endswith("\n") and "memwarm_embed_backoff_until_seconds" in text for text in complete
    )
    assert {text for text in complete} == {target.read_text()}  # every read saw one whole file
    assert sorted(p.name for p in tmp_path.iterdir()) == ["memwarm.prom"]  # no temp file left
    list(text_string_to_metric_families(target.read_text()))  # and it parses
    missing = memwarm(warm, "status", "--textfile", str(tmp_path / "no-such-dir" / "m.prom"))
    assert missing.returncode == ExitCode.OUTPUT
    assert "does not exist" in missing.stderr and missing.stderr.startswith("memwarm: error: ")


def test_search_finds_the_note_a_word_is_in(warm: Scenario) -> None:
    result = memwarm(warm, "search", "quokka")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert re.fullmatch(r"\d+\.\d{3} memory/2026-01-01\.md:\d+-\d+", lines[0]), lines
    assert "Quokka handshake protocol agreed." in result.stdout
    data = json.loads(memwarm(warm, "search", "pelican", "--json").stdout)
    (hit,) = data["results"]
    assert (
        hit["path"] == "MEMORY.md" and hit["source"] == "memory" and hit["collection"] == "memory-root-main"
    )
    assert data["argv"][1:4] == ["search", "pelican", "--json"]
    assert memwarm(warm, "search", "xylophonezzz").stdout == "No matches.\n"


def test_search_honours_n_and_the_injected_chars_clamp(warm: Scenario) -> None:
    one = json.loads(memwarm(warm, "search", "walrus", "-n", "1", "--json").stdout)
    assert one["maxResults"] == 1 and len(one["results"]) == 1
    both = json.loads(memwarm(warm, "search", "walrus", "--json").stdout)
    assert {hit["path"] for hit in both["results"]} == {"memory/walrus.md", "memory/2026-01-02.md"}
    # maxInjectedChars 500: the long walrus note's snippet (up to maxSnippetChars 700) is cut to fit.
    assert sum(len(hit["snippet"]) for hit in both["results"]) <= 500
    assert both["limits"]["maxInjectedChars"] == 500
    assert any(len(hit["snippet"]) < 700 and "walrus eats fish" in hit["snippet"] for hit in both["results"])


def test_search_rejects_an_unknown_agent_and_a_missing_index(warm: Scenario, tmp_path: Path) -> None:
    unknown = memwarm(warm, "search", "pelican", "--agent", "nobody")
    assert unknown.returncode == ExitCode.USAGE and 'unknown agent "nobody"' in unknown.stderr
    other = make_scenario(tmp_path, {"main": NOTES}, {"memory": {"backend": "qmd"}})
    other.path_dirs = [TOOLS_BIN]
    missing = memwarm(other, "search", "pelican")
    assert missing.returncode == ExitCode.FINDINGS
    assert "run memwarm init-backends first" in missing.stderr


@pytest.fixture
def hanging_update(tmp_path: Path) -> Iterator[tuple[Scenario, Path]]:
    scenario = make_scenario(tmp_path, {"main": NOTES}, {"memory": {"backend": "qmd"}})
    bin_dir = tmp_path / "fake-bin"
    state = install_fake_qmd(bin_dir, {"update": 'touch "$FAKE_QMD_DIR/updating"; sleep 30\n'})
    scenario.path_dirs = [bin_dir]
    yield scenario, state


def test_status_during_a_running_init_backends_says_running_and_does_not_wait(
    hanging_update: tuple[Scenario, Path],
) -> None:
    scenario, state = hanging_update
    env = scenario.env({"FAKE_QMD_DIR": str(state)})
    run = subprocess.Popen(
        [MEMWARM, "init-backends"],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=DEFAULT_SIGNALS,  # terminate()'s SIGTERM at its default, whatever the run inherited
    )
    try:
        wait_for_marker(run, state / "updating", "qmd update")
        started = time.monotonic()
        result, report = run_json_status(scenario, env)
        took = time.monotonic() - started
        assert took < 30, (
            f"{took:.1f} s (bound sized for load 10 on 2 cores): the lock is looked at, never waited for"
        )
        main = agent(report, "main")
        assert main["status"] == "running" and report["runningKnown"] is True
        assert result.returncode == ExitCode.OK
    finally:
        run.terminate()
        run.wait(timeout=30)
    # Interrupted: the run records the failure for the next status.
    _, after = run_json_status(scenario, env)
    main = agent(after, "main")
    assert main["status"] == "failed" and main["lastRun"]["reason"] == "interrupted (SIGTERM)"


def run_json_status(scenario: Scenario, env: dict[str, str]) -> tuple[CliResult, dict[str, Any]]:
    result = run_memwarm(["status", "--json"], env)
    return result, json.loads(result.stdout)


def test_a_failed_run_shows_failed_with_its_reason(tmp_path: Path) -> None:
    scenario = make_scenario(tmp_path, {"main": NOTES}, {"memory": {"backend": "qmd"}})
    bin_dir = tmp_path / "fake-bin"
    state = install_fake_qmd(bin_dir, {"update": 'echo "disk I/O error" >&2; exit 3\n'})
    scenario.path_dirs = [bin_dir]
    env = scenario.env({"FAKE_QMD_DIR": str(state)})
    init = run_memwarm(["init-backends"], env)
    assert init.returncode == ExitCode.FINDINGS
    result, report = run_json_status(scenario, env)
    assert result.returncode == ExitCode.FINDINGS
    main = agent(report, "main")
    assert main["status"] == "failed"
    assert main["lastRun"]["status"] == "failed"
    assert (
        main["lastRun"]["reason"]
        == "qmd boot update failed: Error: qmd update failed (code 3): disk I/O error"
    )
    assert main["why"][0] == f"the last run failed: {main['lastRun']['reason']}"
    plain = run_memwarm(["status"], env)
    assert plain.stdout.splitlines()[1].split("\t")[1] == "failed"


def test_a_search_that_times_out_says_so_with_the_limit(warm: Scenario, tmp_path: Path) -> None:
    """qmd that does not answer (a first vsearch loading models, say): the limit ends it, exit 1."""
    slow = tmp_path / "slow-bin"
    slow.mkdir()
    wrapper = slow / "qmd"
    wrapper.write_text(
        f'#!/bin/bash\nif [ "$1" = search ]; then sleep 30; fi\nexec {TOOLS_BIN / "qmd"} "$@"\n'
    )
    wrapper.chmod(0o755)
    config = json.loads(warm.config_path.read_text())
    config["memory"]["qmd"]["limits"]["timeoutMs"] = 300
    config["memory"]["qmd"]["command"] = str(wrapper)
    other_config = tmp_path / "openclaw.json"
    other_config.write_text(json.dumps(config))
    started = time.monotonic()
    result = run_memwarm(["--config", str(other_config), "search", "pelican"], warm.env())
    took = time.monotonic() - started
    assert took < 25, f"{took:.1f} s (bound sized for load 10 on 2 cores; the wrapper sleeps 30 s)"
    assert result.returncode == ExitCode.FINDINGS and result.stdout == ""
    assert result.stderr.startswith(
        "memwarm: error: qmd search timed out after 300ms (memory.qmd.limits.timeoutMs)"
    )


# ---- an index memwarm did not build: OpenClaw's gateway runs the real qmd the same way ------------------


def openclaw_indexes(scenario: Scenario, agent_id: str = "main") -> None:
    """What OpenClaw 2026.6.35's `memory index` runs for a fresh agent (research backend-635 §7): in the
    agent's env (XDG_CONFIG_HOME, XDG_CACHE_HOME, QMD_CONFIG_DIR), `collection add` per managed
    collection in config order, then `update`. memwarm has no record of it."""
    workspace = scenario.workspace(agent_id)
    (scenario.qmd_dir(agent_id) / "xdg-config" / "qmd").mkdir(parents=True, exist_ok=True)
    (scenario.qmd_dir(agent_id) / "xdg-cache" / "qmd").mkdir(parents=True, exist_ok=True)
    for args in (
        ("collection", "add", str(workspace), "--name", f"memory-root-{agent_id}", "--mask", "MEMORY.md"),
        (
            "collection",
            "add",
            str(workspace / "memory"),
            "--name",
            f"memory-dir-{agent_id}",
            "--mask",
            "**/*.md",
        ),
        ("update",),
    ):
        proc = scenario.qmd(agent_id, *args)
        assert proc.returncode == 0, proc.stderr


@pytest.fixture
def openclaw_built(tmp_path: Path) -> Scenario:
    scenario = real_qmd_scenario(tmp_path, {"main": NOTES}, {"memory": {"backend": "qmd"}})
    openclaw_indexes(scenario)
    return scenario


def test_an_index_qmd_built_without_memwarm_is_warm_and_init_backends_does_no_qmd_work(
    openclaw_built: Scenario,
) -> None:
    scenario = openclaw_built
    assert not scenario.fingerprint("main").exists()
    result, report = status_json(scenario)
    assert result.returncode == ExitCode.OK, result.stderr
    main = agent(report, "main")
    assert (main["status"], main["freshness"]["judgedFrom"]) == ("warm", "index"), main["why"]
    assert main["lastRun"] is None
    run, run_report = scenario.run_json()
    assert run.returncode == 0, run.stderr
    (outcome,) = run_report["agents"]
    assert outcome["status"] == "fresh"
    # No collection add or remove, no update, no embed: at most the version memwarm did not know yet.
    assert [c["argv"][1:] for c in outcome["commands"]] in ([], [["--version"]])
    assert {c["action"] for c in outcome["collections"]} == {"kept"}
    assert agent(status_json(scenario)[1], "main")["freshness"]["judgedFrom"] == "record"


def test_an_index_refreshed_by_qmd_after_an_edit_is_warm(openclaw_built: Scenario) -> None:
    scenario = openclaw_built
    assert scenario.run_json()[1]["agents"][0]["status"] == "fresh"  # memwarm's record now vouches
    note = scenario.workspace("main") / "memory" / "2026-01-01.md"
    note.write_text("# Day one\nQuokka handshake protocol revised.\n")
    stale = agent(status_json(scenario)[1], "main")
    assert stale["status"] == "stale" and stale["freshness"]["reasons"][0]["changes"]["changed"] == 1
    proc = scenario.qmd("main", "update")  # the gateway's own interval update
    assert proc.returncode == 0, proc.stderr
    main = agent(status_json(scenario)[1], "main")
    assert (main["status"], main["freshness"]["judgedFrom"]) == ("warm", "index")


def test_a_note_emptied_to_whitespace_stays_warm_as_qmd_leaves_its_row(openclaw_built: Scenario) -> None:
    """qmd skips a whitespace-only file and keeps its old row: `qmd update` changes nothing."""
    note = openclaw_built.workspace("main") / "memory" / "2026-01-03.md"
    note.write_text("  \n\t\n")
    assert agent(status_json(openclaw_built)[1], "main")["status"] == "warm"
    (note.parent / "blank.md").write_text("\n")  # a new whitespace-only file is never indexed either
    assert agent(status_json(openclaw_built)[1], "main")["status"] == "warm"


def test_a_collection_qmd_does_not_hold_is_stale_with_the_reason(openclaw_built: Scenario) -> None:
    scenario = openclaw_built
    proc = scenario.qmd("main", "collection", "remove", "memory-root-main")
    assert proc.returncode == 0, proc.stderr
    main = agent(status_json(scenario)[1], "main")
    assert main["status"] == "stale"
    assert [(r["kind"], r["text"]) for r in main["freshness"]["reasons"]] == [
        ("unregistered", "collection memory-root-main is not in the index (a run adds it)")
    ]
    run, report = scenario.run_json()
    assert run.returncode == 0 and report["agents"][0]["status"] == "armed", run.stderr
    assert agent(status_json(scenario)[1], "main")["status"] == "warm"


def test_session_exports_rewritten_with_the_same_bytes_stay_warm(tmp_path: Path) -> None:
    """OpenClaw's one-shot manager rewrites every export on each pass (new mtime, same bytes)."""
    scenario = real_qmd_scenario(
        tmp_path, {"main": NOTES}, {"memory": {"backend": "qmd", "qmd": {"sessions": {"enabled": True}}}}
    )
    sessions = scenario.state / "agents" / "main" / "sessions"
    sessions.mkdir(parents=True)
    (sessions / "trip.jsonl").write_text(
        record("Plan the narwhal expedition.", "user") + record("It leaves in May.", "assistant"),
        encoding="utf-8",
    )
    first, report = scenario.run_json()
    assert first.returncode == 0 and report["agents"][0]["status"] == "armed", first.stderr
    export = scenario.qmd_dir("main") / "sessions" / "trip.md"
    data = export.read_bytes()
    export.unlink()
    export.write_bytes(data)  # a new file, a new mtime, the same bytes
    os.utime(export, ns=(time.time_ns(), time.time_ns() + 3_000_000_000))
    main = agent(status_json(scenario)[1], "main")
    assert (main["status"], main["freshness"]["judgedFrom"]) == ("warm", "index"), main["why"]
    run, run_report = scenario.run_json()
    assert run.returncode == 0, run.stderr
    assert run_report["agents"][0]["status"] == "fresh" and run_report["agents"][0]["commands"] == []
    # A transcript that changes is work: the export would write it.
    (sessions / "trip.jsonl").write_text(
        record("Plan the narwhal expedition for June.", "user"), encoding="utf-8"
    )
    stale = agent(status_json(scenario)[1], "main")
    assert stale["status"] == "stale"
    assert [r["kind"] for r in stale["freshness"]["reasons"]] == ["export"]
    assert "1 to write (trip.md)" in stale["freshness"]["reasons"][0]["text"]


def test_vsearch_on_an_index_without_vectors_says_why_it_finds_nothing(warm: Scenario) -> None:
    """The index was built for BM25 (no `qmd embed`): qmd's vsearch answers `[]` and warns only on its
    own stderr. memwarm's search says how many documents have no vectors, and the way out."""
    result = memwarm(warm, "search", "quokka", "--mode", "vsearch")
    assert (result.returncode, result.stdout) == (ExitCode.OK, "No matches.\n"), result.stderr
    data = json.loads(memwarm(warm, "search", "quokka", "--mode", "vsearch", "--json").stdout)
    total = data["documentsWithoutVectors"]
    assert total > 0 and data["modelsMissing"] == ["embeddinggemma-300M-Q8_0"] and data["results"] == []
    assert result.stderr.splitlines() == [
        f"memwarm: warning: none of the {total} documents searched has vectors yet, which qmd vsearch "
        "cannot find: run memwarm init-backends with network access (embeddinggemma-300M-Q8_0 not "
        "downloaded), or search with --mode search (BM25)"
    ]
    assert memwarm(warm, "search", "quokka", "--mode", "vsearch", "-q").stderr == ""
    bm25 = json.loads(memwarm(warm, "search", "quokka", "--json").stdout)
    assert bm25["documentsWithoutVectors"] is None and bm25["results"]  # BM25 needs no vectors


def test_search_text_puts_one_blank_line_after_each_hit(warm: Scenario) -> None:
    """`<score> <path>:<lines>`, the snippet, one blank line (docs/search.md), whatever line break the
    snippet ends with; the scores are qmd's own (see test_a_bm25_score_is_qmds_own)."""
    result = memwarm(warm, "search", "walrus")
    assert result.returncode == 0, result.stderr
    assert result.stdout.endswith("\n\n") and "\n\n\n" not in result.stdout, repr(result.stdout)
    data = json.loads(memwarm(warm, "search", "walrus", "--json").stdout)
    assert result.stdout.count("\n\n") == len(data["results"])


def test_a_bm25_score_is_qmds_own(warm: Scenario) -> None:
    """qmd 2.8.3 scores BM25 as |bm25| / (1 + |bm25|): a word in half the documents or more has an IDF of
    0, so even the only, exact hit can score 0.000. memwarm shows qmd's score, as OpenClaw does."""
    data = json.loads(memwarm(warm, "search", "quokka", "--json").stdout)
    raw = json.loads(warm.qmd("main", "search", "quokka", "--json", "-n", "6").stdout)
    assert [round(hit["score"], 6) for hit in data["results"]] == [round(hit["score"], 6) for hit in raw][
        : len(data["results"])
    ]
