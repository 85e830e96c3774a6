"""qmd command lines, in upstream's spelling (the run, the dry run, the probe, search and the bench build
them here), and how a search's answer is read."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from memwarm_cli.backends.qmd import qmd_commands
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from tests.conftest import require_tool


def test_command_lines() -> None:
    spec = CollectionSpec("memory-dir-main", Path("/ws/memory"), "**/*.md", "default", "default memory")
    assert qmd_commands.version_args() == ("--version",)
    assert qmd_commands.collection_list_args() == ("collection", "list", "--json")
    assert qmd_commands.collection_add_args(spec) == (
        "collection",
        "add",
        "/ws/memory",
        "--name",
        "memory-dir-main",
        "--mask",
        "**/*.md",
    )
    assert qmd_commands.collection_remove_args("x") == ("collection", "remove", "x")
    assert qmd_commands.update_args() == ("update",)
    assert qmd_commands.embed_args() == ("embed",)
    assert qmd_commands.probe_args("vsearch", "q", 6, ["a", "b"]) == (
        "vsearch",
        "q",
        "--json",
        "-n",
        "6",
        "-c",
        "a",
        "-c",
        "b",
    )
    assert qmd_commands.probe_args("search", "q", 4, []) == ("search", "q", "--json", "-n", "4")


def test_search_lines_as_the_release_builds_them() -> None:
    """`buildSearchArgs` + `buildCollectionFilterArgs`: the trimmed query, `--no-rerank` only for a
    `query` search (the caller asks for it with searchMode query and rerank false)."""
    assert qmd_commands.search_args("search", "  zebra ", 4, ["a", "", "b"]) == (
        "search", "zebra", "--json", "-n", "4", "-c", "a", "-c", "b",
    )  # fmt: skip
    assert qmd_commands.search_args("query", "q", 4, ["a"], no_rerank=True) == (
        "query", "q", "--json", "-n", "4", "--no-rerank", "-c", "a",
    )  # fmt: skip
    assert qmd_commands.search_args("vsearch", "q", 4, ["a"], no_rerank=True) == (
        "vsearch", "q", "--json", "-n", "4", "-c", "a",
    )  # fmt: skip


def test_a_query_starting_with_a_dash_goes_after_double_dash() -> None:
    assert qmd_commands.search_args("search", " -x", 4, ["a"]) == (
        "search", "--json", "-n", "4", "-c", "a", "--", "-x",
    )  # fmt: skip
    assert qmd_commands.search_args("search", "--json", 2, []) == (
        "search",
        "--json",
        "-n",
        "2",
        "--",
        "--json",
    )


def _indexed(tmp_path: Path, text: str) -> tuple[Path, dict[str, str]]:
    qmd = require_tool("qmd")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text(text)
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "xc"),
        "XDG_CACHE_HOME": str(tmp_path / "xk"),
        "QMD_CONFIG_DIR": str(tmp_path / "xc" / "qmd"),
        "NO_COLOR": "1",
    }
    for args in (("collection", "add", str(notes), "--name", "m", "--mask", "**/*.md"), ("update",)):
        subprocess.run([str(qmd), *args], env=env, check=True, capture_output=True, timeout=120)
    return qmd, env


@pytest.mark.parametrize("query", ["-x", "--json", "-n"])
def test_the_real_qmd_takes_a_dash_query_as_the_query(tmp_path: Path, query: str) -> None:
    """qmd 2.8.3 parses its argv with util.parseArgs (strict: false): `search -x --json ...` gives no
    query (its usage, exit 1); after `--` it is the query. (qmd reads a leading `-` as "without".)"""
    qmd, env = _indexed(tmp_path, "-x marks the spot, zebra\n")
    plain = subprocess.run(
        [str(qmd), "search", query, "--json", "-n", "4", "-c", "m"], env=env, capture_output=True, text=True
    )
    assert plain.returncode != 0 or plain.stdout.strip() in ("", "[]"), plain.stdout
    args = qmd_commands.search_args("search", query, 4, ["m"])
    proc = subprocess.run([str(qmd), *args], env=env, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Usage:" not in proc.stderr
    assert qmd_commands.parse_search_answer(proc.stdout, proc.stderr) == []
    found = subprocess.run(
        [str(qmd), *qmd_commands.search_args("search", "zebra", 4, ["m"])],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    (hit,) = qmd_commands.parse_search_answer(found.stdout, found.stderr)
    assert hit["file"] == "qmd://m/a.md"


@pytest.mark.parametrize(
    ("stdout", "stderr", "hits"),
    [
        ('[{"docid": "#a"}]', "", 1),
        ("No results found.", "", 0),
        ("  [qmd] warning: No  results found ", "", 0),
        ("", "No results found.", 0),
        ('noise [1, {"docid": "#b"}] more [2]', "", 1),  # the first array; items that are no objects dropped
        ("[]", "", 0),
    ],
)
def test_search_answers_as_the_release_reads_them(stdout: str, stderr: str, hits: int) -> None:
    assert len(qmd_commands.parse_search_answer(stdout, stderr)) == hits


@pytest.mark.parametrize(
    ("stdout", "reason"),
    [
        ("", "stdout empty"),
        ("this is not json", "no JSON array"),
        ('{"docid": "#a"}', "no JSON array"),
        ("[1, 2", "no JSON array"),
    ],
)
def test_an_answer_that_is_no_search_result_is_an_error(stdout: str, reason: str) -> None:
    with pytest.raises(qmd_commands.SearchAnswerError, match=reason):
        qmd_commands.parse_search_answer(stdout)
