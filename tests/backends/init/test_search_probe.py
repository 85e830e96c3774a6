"""`--probe`: the agent's own search mode, its own timeout, the default query, and an offline vsearch/query
that hangs (a fake qmd on PATH: the real one would try to download its models; the real qmd's BM25 probe
is in test_real_qmd_sessions.py).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.backends.init.search_probe import longest_word, newest_note_word
from memwarm_cli.backends.qmd import model_cache
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.exitcodes import ExitCode
from tests.backends.support import (
    MODELS_UNRESOLVABLE,
    Scenario,
    install_fake_qmd,
    make_scenario,
    real_qmd_scenario,
    search_files,
)
from tests.conftest import CliResult

# vsearch/query are not in the shared fake: a wrapper answers them (sourcing <mode>.sh first) and hands
# everything else to it.
WRAPPER = """#!/bin/bash
case "$1" in
  vsearch|query)
    echo "$$ $*" >> "$FAKE_QMD_DIR/log"
    if [ -f "$FAKE_QMD_DIR/$1.sh" ]; then . "$FAKE_QMD_DIR/$1.sh"; fi
    echo '[{"file": "qmd://memory-dir-main/a.md"}]' ;;
  *) exec "$(dirname "$0")/base/qmd" "$@" ;;
esac
"""
HANG = "sleep 60\n"  # what qmd does offline: it waits for a model download until the timeout ends it


def probe_scenario(tmp_path: Path, notes: dict[str, str] | None = None, **qmd: Any) -> tuple[Scenario, Path]:
    notes = notes if notes is not None else {"MEMORY.md": "# M\nnotes\n", "memory/a.md": "# A\n"}
    scenario = make_scenario(tmp_path, {"main": notes}, {"memory": {"backend": "qmd", "qmd": qmd}})
    bin_dir = tmp_path / "fakebin"
    # The qmd the tests stand for (2.8.3), whatever the shared fake calls itself.
    state = install_fake_qmd(bin_dir / "base", {"version": 'echo "qmd 2.8.3"; exit 0\n'})
    wrapper = bin_dir / "qmd"
    wrapper.write_text(WRAPPER, encoding="utf-8")
    wrapper.chmod(0o755)
    scenario.path_dirs = [bin_dir]
    return scenario, state


def run(scenario: Scenario, state: Path, *args: str) -> tuple[CliResult, dict[str, Any]]:
    result, report = scenario.run_json(list(args), extra_env={"FAKE_QMD_DIR": str(state)})
    return result, report["agents"][0]


def probe_argv(agent: dict[str, Any]) -> list[str]:
    (argv,) = [c["argv"] for c in agent["commands"] if c["argv"][1] in ("search", "vsearch", "query")]
    return list(argv)


@pytest.mark.parametrize(
    ("mode", "models"),
    [
        ("vsearch", ["embeddinggemma-300M-Q8_0"]),
        (
            "query",
            ["embeddinggemma-300M-Q8_0", "qmd-query-expansion-1.7B-q4_k_m", "qwen3-reranker-0.6b-q8_0"],
        ),
    ],
)
def test_offline_vsearch_or_query_probe_ends_at_its_timeout_and_degrades(
    tmp_path: Path, mode: str, models: list[str]
) -> None:
    scenario, state = probe_scenario(tmp_path, searchMode=mode)
    (state / f"{mode}.sh").write_text(HANG, encoding="utf-8")
    started = time.monotonic()
    result, agent = run(scenario, state, "--probe", "--probe-timeout", "0.5")
    assert time.monotonic() - started < 20  # never hangs past its timeout
    assert result.returncode == ExitCode.DEGRADED, result.stderr
    assert agent["status"] == "degraded"
    probe = agent["probe"]
    assert (probe["answered"], probe["timedOut"], probe["mode"], probe["timeoutMs"]) == (
        False,
        True,
        mode,
        500,
    )
    reason = agent["reason"]
    assert reason.startswith(f"qmd {mode} probe did not answer (qmd {mode} ")
    assert "timed out after 500ms" in reason
    for model in models:
        assert model in reason
    assert reason.count("fix: run `memwarm init-backends --probe` once with network access") == 1
    assert 'set memory.qmd.searchMode to "search"' in reason
    assert f"models in {scenario.home / '.cache' / 'qmd' / 'models'} are shared" in reason
    assert probe_argv(agent)[:2] == ["qmd", mode]
    # The final line says degraded, never "armed" for an agent whose vector search does not answer.
    assert f'qmd memory startup initialization degraded for agent "main": qmd {mode} probe' in result.stderr
    assert "armed for" not in result.stderr
    # Not a successful run: the next one does the work again rather than report "fresh".
    (state / f"{mode}.sh").unlink()
    result, agent = run(scenario, state, "--probe")
    assert result.returncode == 0, result.stderr
    assert (agent["status"], agent["probe"]["answered"], agent["probe"]["hits"]) == ("armed", True, 1)
    assert "(probe (" + mode + "): answered in " in result.stderr


def test_the_probe_searches_as_openclaw_does(tmp_path: Path) -> None:
    scenario, state = probe_scenario(tmp_path, searchMode="vsearch", limits={"maxResults": 3})
    _, agent = run(scenario, state, "--probe-query", "walrus plans")
    assert probe_argv(agent) == [
        "qmd",
        "vsearch",
        "walrus plans",
        "--json",
        "-n",
        "3",
        "-c",
        "memory-root-main",
        "-c",
        "memory-dir-main",
    ]
    assert agent["probe"]["query"] == "walrus plans" and agent["probe"]["timeoutMs"] == 120_000


@pytest.mark.parametrize(
    "answer",
    ["Loading the index... done", '{"docid": "#abc"}', ""],
    ids=["text", "an-object", "nothing"],
)
def test_an_answer_that_is_no_search_result_fails_the_probe(tmp_path: Path, answer: str) -> None:
    """qmd exits 0 but prints no JSON array (and no "no results" line): OpenClaw's search refuses such
    an answer, so the probe did not answer and the agent is not armed."""
    scenario, state = probe_scenario(tmp_path)
    (state / "search.sh").write_text(f"printf '%s' '{answer}'; exit 0\n", encoding="utf-8")
    result, agent = run(scenario, state, "--probe")
    assert result.returncode == ExitCode.FINDINGS, result.stderr
    assert agent["status"] == "failed"
    probe = agent["probe"]
    assert (probe["answered"], probe["hits"]) == (False, None)
    assert probe["error"].startswith("qmd exited 0 but its answer is no search result: qmd query returned")
    assert agent["reason"] == f"qmd search probe failed: {probe['error']}"


def test_a_no_results_line_is_an_answer(tmp_path: Path) -> None:
    scenario, state = probe_scenario(tmp_path)
    (state / "search.sh").write_text("echo 'No results found.'; exit 0\n", encoding="utf-8")
    result, agent = run(scenario, state, "--probe")
    assert result.returncode == 0, result.stderr
    assert (agent["status"], agent["probe"]["answered"], agent["probe"]["hits"]) == ("armed", True, 0)


def test_the_probe_takes_rerank_and_a_dash_query_as_the_search_does(tmp_path: Path) -> None:
    scenario, state = probe_scenario(tmp_path, searchMode="query", rerank=False)
    _, agent = run(scenario, state, "--probe-query", "-walrus")
    assert probe_argv(agent) == [
        "qmd", "query", "--json", "-n", "4", "--no-rerank", "-c", "memory-root-main", "-c", "memory-dir-main",
        "--", "-walrus",
    ]  # fmt: skip


def test_the_probe_waits_longer_than_the_gateways_search_timeout(tmp_path: Path) -> None:
    """limits.timeoutMs is what makes the gateway's first search give up; the probe exists to absorb
    that first slow call, so it has its own timeout."""
    scenario, state = probe_scenario(tmp_path, limits={"timeoutMs": 100})
    (state / "search.sh").write_text("sleep 0.6\n", encoding="utf-8")
    result, agent = run(scenario, state, "--probe")
    assert result.returncode == 0, result.stderr
    assert agent["probe"]["answered"] is True and agent["probe"]["latencyMs"] >= 500


def test_timeout_flag_bounds_the_probe_unless_probe_timeout_is_given(tmp_path: Path) -> None:
    scenario, state = probe_scenario(tmp_path)
    _, agent = run(scenario, state, "--probe", "--timeout", "7")
    assert agent["probe"]["timeoutMs"] == 7000
    _, agent = run(scenario, state, "--probe", "--timeout", "7", "--probe-timeout", "9")
    assert agent["probe"]["timeoutMs"] == 9000


def test_default_query_is_the_longest_word_of_the_newest_note(tmp_path: Path) -> None:
    notes = {
        "MEMORY.md": "# Memory\nThe extraordinary pelican.\n",
        "memory/2026-04-10.md": "# Day\nWalrus migration approved.\n",
        "memory/2026-04-09.md": "# Older\nIncomprehensibilities abound.\n",
    }
    scenario, state = probe_scenario(tmp_path, notes)
    workspace = scenario.workspace("main")
    for rel, age in (("MEMORY.md", 300), ("memory/2026-04-10.md", 100), ("memory/2026-04-09.md", 200)):
        os.utime(workspace / rel, (time.time() - age, time.time() - age))
    _, agent = run(scenario, state, "--probe")
    assert agent["probe"]["query"] == "migration"  # newest note; "migration" and "approved": the longest
    assert probe_argv(agent)[2] == "migration"
    dry = scenario.run(["--dry-run", "--probe"], extra_env={"FAKE_QMD_DIR": str(state)})
    assert "$ qmd search migration --json -n 4 -c memory-root-main -c memory-dir-main" in dry.stdout


def test_newest_note_word_is_deterministic_and_skips_session_exports(tmp_path: Path) -> None:
    notes, exports = tmp_path / "notes", tmp_path / "exports"
    notes.mkdir()
    exports.mkdir()
    same = 1_700_000_000_000_000_000
    for directory, name, text in (
        (notes, "b.md", "bravo charlie"),
        (notes, "a.md", "alpha delta"),
        (exports, "s.md", "# Session s\n\nUser: exported conversation"),
    ):
        (directory / name).write_text(text, encoding="utf-8")
        os.utime(directory / name, ns=(same, same + (1 if directory == exports else 0)))
    specs = [
        CollectionSpec("memory-dir-main", notes, "**/*.md", "default", "test"),
        CollectionSpec("sessions-main", exports, "**/*.md", "sessions", "test"),
    ]
    # Equal mtimes: the first path wins (a.md); the newer export is not a note.
    assert newest_note_word(specs, None) == "alpha"
    assert newest_note_word(specs[1:], None) is None


@pytest.mark.parametrize(
    ("text", "word"),
    [
        ("Walrus migration approved", "migration"),
        ("ab cd 12345 x", None),
        ("naïve café résumé", None),  # whole words of ASCII letters only
        ("the résumé of 2026 plans", "plans"),
        ("abc2def tie tip", "tie"),
    ],
)
def test_longest_word(text: str, word: str | None) -> None:
    assert longest_word(text) == word


def test_probe_options_are_checked(tmp_path: Path) -> None:
    scenario, state = probe_scenario(tmp_path)
    for args, message in (
        (["--probe-query", " \u00a0"], "memwarm: error: --probe-query: the query is empty\n"),
        (
            ["--probe-timeout", "inf"],
            "memwarm: error: --probe-timeout: inf is not a finite number of seconds\n",
        ),
        (
            ["--at", "yesterday"],
            'memwarm: error: --at: cannot read the instant "yesterday": use ISO 8601 with an offset',
        ),
    ):
        result = scenario.run(args, extra_env={"FAKE_QMD_DIR": str(state)})
        assert result.returncode == ExitCode.USAGE
        assert result.stderr.startswith(message) and result.stderr.count("\n") == 1, result.stderr


# --- models that cannot be downloaded: embed and probe end at once ----------------------------------


@pytest.mark.parametrize("mode", ["vsearch", "query"])
def test_models_that_cannot_be_downloaded_end_embed_and_probe_at_once(tmp_path: Path, mode: str) -> None:
    """The real qmd, an empty model cache and a model host that does not resolve: qmd would wait for the
    download until each timeout (embed, then probe: 240 s with nothing printed off a terminal); memwarm
    runs neither, says why once, and the final line says degraded."""
    scenario = real_qmd_scenario(
        tmp_path,
        {"main": {"memory/a.md": "# A\nHeron census.\n"}},
        {"memory": {"backend": "qmd", "qmd": {"searchMode": mode}}},
    )
    result, report = scenario.run_json(["--probe"], extra_env={"HF_ENDPOINT": MODELS_UNRESOLVABLE})
    assert result.returncode == ExitCode.DEGRADED, result.stderr
    (agent,) = report["agents"]
    ran = [command["argv"][1] for command in agent["commands"]]
    assert "update" in ran and "embed" not in ran and mode not in ran, ran
    reason = agent["reason"]
    assert reason.startswith(
        "qmd embed not run: model embeddinggemma-300M-Q8_0 not downloaded, and models.invalid does not "
        "resolve ("
    ), reason
    needed = (
        "model embeddinggemma-300M-Q8_0"
        if mode == "vsearch"
        else ("models embeddinggemma-300M-Q8_0, qmd-query-expansion-1.7B-q4_k_m, qwen3-reranker-0.6b-q8_0")
    )
    assert f"; qmd {mode} probe not run: {needed} not downloaded; fix: " in reason
    assert reason.count("does not resolve") == 1 and reason.count("fix:") == 1
    probe = agent["probe"]
    assert (probe["answered"], probe["timedOut"], probe["mode"]) == (False, False, mode)
    lines = result.stderr.splitlines()
    assert lines[-2] == f'qmd memory startup initialization degraded for agent "main": {reason}'
    assert not any("armed for" in line for line in lines)
    # BM25 answers all the same.
    assert search_files(scenario.qmd("main", "search", "heron", "--json", "-n", "5")) == [
        "qmd://memory-dir-main/a.md"
    ]


def _cached_models(scenario: Scenario, *roles: model_cache.Role) -> None:
    """Model files where qmd looks for them (the shared dir, linked into the agent's cache)."""
    models = scenario.home / ".cache" / "qmd" / "models"
    models.mkdir(parents=True, exist_ok=True)
    for role in roles:
        name = model_cache.cache_file_name(model_cache.DEFAULT_MODELS[role])
        assert name is not None
        (models / name).write_bytes(b"GGUF")


def test_models_in_the_cache_need_no_download_host(tmp_path: Path) -> None:
    """Models already downloaded: qmd loads them from its cache without the network, so an unresolvable
    host changes nothing; `rerank: false` needs no reranker."""
    scenario, state = probe_scenario(tmp_path, searchMode="query", rerank=False)
    _cached_models(scenario, "embed", "generate")
    result, report = scenario.run_json(
        ["--probe"], extra_env={"FAKE_QMD_DIR": str(state), "HF_ENDPOINT": MODELS_UNRESOLVABLE}
    )
    (agent,) = report["agents"]
    assert (result.returncode, agent["status"]) == (ExitCode.OK, "armed"), result.stderr
    ran = [command["argv"][1] for command in agent["commands"]]
    assert "embed" in ran and "query" in ran


def test_a_model_missing_from_the_cache_is_named(tmp_path: Path) -> None:
    """Only the missing model is named; the embed, whose model is there, runs."""
    scenario, state = probe_scenario(tmp_path, searchMode="query")
    _cached_models(scenario, "embed", "generate")
    result, report = scenario.run_json(
        ["--probe"], extra_env={"FAKE_QMD_DIR": str(state), "HF_ENDPOINT": MODELS_UNRESOLVABLE}
    )
    (agent,) = report["agents"]
    assert (result.returncode, agent["status"]) == (ExitCode.DEGRADED, "degraded"), result.stderr
    assert agent["reason"].startswith(
        "qmd query probe not run: model qwen3-reranker-0.6b-q8_0 not downloaded, and models.invalid does not"
    )
    ran = [command["argv"][1] for command in agent["commands"]]
    assert "embed" in ran and "query" not in ran


@pytest.mark.parametrize(
    ("env", "host"),
    [
        ({}, "huggingface.co"),
        ({"HF_ENDPOINT": "https://hf-mirror.com"}, "hf-mirror.com"),
        ({"HF_ENDPOINT": "https://hf-mirror.com", "MODEL_ENDPOINT": "http://10.0.0.2:8080/"}, "10.0.0.2"),
        ({"HF_ENDPOINT": "not a url"}, "huggingface.co"),
    ],
)
def test_the_download_host_is_node_llama_cpps(env: dict[str, str], host: str) -> None:
    assert model_cache.download_host(env) == host


def test_cache_file_names_are_node_llama_cpps() -> None:
    """As node-llama-cpp 3 (qmd 2.8.3's) names the downloads (resolveModelDestination's fullFilename)."""
    names = [model_cache.cache_file_name(uri) for uri in model_cache.DEFAULT_MODELS.values()]
    assert names == [
        "hf_ggml-org_embeddinggemma-300M-Q8_0.gguf",
        "hf_tobil_qmd-query-expansion-1.7B-q4_k_m.gguf",
        "hf_ggml-org_qwen3-reranker-0.6b-q8_0.gguf",
    ]
    assert model_cache.cache_file_name("/models/own.gguf") is None  # a path: qmd loads it as it is
