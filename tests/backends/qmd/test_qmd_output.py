"""What memwarm reads from qmd: `collection list` text, index.yml, error messages (no qmd needed)."""

from __future__ import annotations

import os
from pathlib import Path

from memwarm_cli.backends.qmd import qmd_output

LIST_TEXT = """Collections (2):

memory-dir-main (qmd://memory-dir-main/)
  Pattern:  **/*.md
  Files:    1
  Updated:  1s ago

memory-root-main (qmd://memory-root-main/)
  Pattern:  MEMORY.md
  Files:    1
  Updated:  1s ago
"""


CONFLICT = """A collection already exists for this path and pattern:
  Name: memory-alt-main (qmd://memory-alt-main/)
  Pattern: MEMORY.md

Use 'qmd update' to re-index it, or remove it first with 'qmd collection remove memory-alt-main'
"""


def test_collection_list_text() -> None:
    listed = qmd_output.parse_collection_list(LIST_TEXT)
    assert set(listed) == {"memory-dir-main", "memory-root-main"}
    assert listed["memory-dir-main"].pattern == "**/*.md"
    assert listed["memory-dir-main"].path is None


def test_index_yml_fills_in_paths(tmp_path: Path) -> None:
    yml = tmp_path / "index.yml"
    yml.write_text("collections:\n  memory-dir-main:\n    path: /ws/memory\n    pattern: '**/*.md'\n")
    listed = qmd_output.parse_collection_list(LIST_TEXT)
    merged = qmd_output.merge_listing(listed, qmd_output.read_index_yml(yml))
    assert merged["memory-dir-main"].path == "/ws/memory"
    assert merged["memory-root-main"].path is None  # unknown: never rebound
    assert qmd_output.read_index_yml(tmp_path / "missing.yml") == {}
    (tmp_path / "bad.yml").write_text("collections: [\n")
    assert qmd_output.read_index_yml(tmp_path / "bad.yml") == {}


def test_error_classification() -> None:
    assert qmd_output.conflicting_collection(CONFLICT) == "memory-alt-main"
    assert qmd_output.conflicting_collection("Collection 'x' already exists.") is None
    assert qmd_output.is_name_taken("Collection 'x' already exists.\nUse a different name")
    assert not qmd_output.is_name_taken(CONFLICT)
    assert qmd_output.is_retryable_update_error("SqliteError: SQLITE_BUSY: database is locked")
    assert qmd_output.is_retryable_update_error("qmd update timed out after 120000ms")
    assert not qmd_output.is_retryable_update_error("qmd update failed (code 1): boom")
    assert qmd_output.parse_version("qmd 2.8.3 (facd35e)\n") == "qmd 2.8.3 (facd35e)"


def test_index_yml_that_is_not_qmds_is_ignored_without_blocking(tmp_path: Path) -> None:
    """A FIFO at index.yml never blocks (a plain read would wait for a writer forever); an oversized
    file, bad scalars and deep nesting read as "nothing recorded", never an exception."""
    fifo = tmp_path / "fifo.yml"
    os.mkfifo(fifo)
    assert qmd_output.read_index_yml(fifo) == {}
    assert qmd_output.read_index_yml(tmp_path) == {}  # a directory
    big = tmp_path / "big.yml"
    big.write_text("collections:\n  c:\n    path: /p\n" + "#" * qmd_output.MAX_INDEX_YML_BYTES)
    assert qmd_output.read_index_yml(big) == {}
    for name, text in {
        "date.yml": "collections: !!timestamp 2026-02-30\n",
        "deep.yml": "collections: " + "[" * 100_000 + "]" * 100_000 + "\n",
        "latin1.yml": "collections:\n  c:\n    path: /caf\xe9\n",
    }.items():
        (tmp_path / name).write_bytes(text.encode("latin-1"))
        assert qmd_output.read_index_yml(tmp_path / name) == {}, name
