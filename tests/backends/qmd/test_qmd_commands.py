"""qmd command lines, in upstream's spelling (the run, the dry run and the bench build them here)."""

from __future__ import annotations

from pathlib import Path

from memwarm_cli.backends.qmd import qmd_commands
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec


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
