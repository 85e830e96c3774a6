"""The collection walk: the inline `**/*<suffix>` walk (the default `**/*.md`) finds exactly what the
general walk and qmd's glob, as a regex over the whole relative path, find, on odd names and trees."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memwarm_cli.backends.freshness import file_walk
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec


def _odd_tree(root: Path) -> None:
    files = [
        "a.md",
        "b.MD",  # case-sensitive: not a match
        "c.md.txt",
        "md",
        ".md",  # hidden
        ".hidden.md",
        "with space.md",
        "new\nline.md",
        "tab\there.md",
        "\u202eevil.md",
        "emoji 😀.md",
        "dir.md/inner.md",  # a directory whose name matches: walked, not listed
        "x/y/z/deep.md",
        "x/y/skip.txt",
        ".git/config.md",
        ".hidden-dir/h.md",
        "node_modules/pkg/readme.md",
        "build/out.md",
        "dist/out.md",
        "vendor/v.md",
        ".cache/c.md",
        "sub/node_modules.md",  # a file named like an excluded directory is a file
        "sub/build",  # no suffix
    ]
    for rel in files:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(rel, encoding="utf-8")
    raw = os.path.join(os.fsencode(root), b"caf\xe9.md")  # not UTF-8
    with open(raw, "wb") as handle:
        handle.write(b"latin-1 name")
    (root / "link.md").symlink_to(root / "a.md")  # a symlink to a file: listed, with the file's stat
    (root / "dirlink.md").symlink_to(root / "x")  # a symlink to a directory: not followed, not listed
    (root / "broken.md").symlink_to(root / "nowhere")  # cannot be stat'ed: not listed
    os.mkfifo(root / "fifo.md")  # not a directory: listed, as qmd's onlyFiles would see it


@pytest.mark.parametrize("pattern", ["**/*.md", "./**/*.md", "**/*", "**/*e.md"])
def test_the_suffix_walk_finds_what_the_general_walk_and_the_glob_find(tmp_path: Path, pattern: str) -> None:
    _odd_tree(tmp_path)
    suffix = file_walk.name_suffix([pattern])
    assert suffix is not None
    fast = file_walk.walk_by_suffix(str(tmp_path), suffix)
    general = file_walk.walk_matching(str(tmp_path), *file_walk.path_test([pattern]))
    regex = file_walk.glob_regex(pattern)
    assert regex is not None
    by_regex = file_walk.walk_matching(str(tmp_path), lambda rel, name, top: bool(regex.match(rel)), True)
    assert fast == general == by_regex
    assert fast == file_walk.collection_files(CollectionSpec("c", tmp_path, pattern, "custom", "test"))
    names = [rel for rel, _, _ in fast]
    assert names == sorted(names)
    if pattern == "**/*.md":
        assert names == sorted(
            [
                "a.md",
                "with space.md",
                "new\nline.md",
                "tab\there.md",
                "\u202eevil.md",
                "emoji 😀.md",
                "dir.md/inner.md",
                "x/y/z/deep.md",
                "sub/node_modules.md",
                os.fsdecode(b"caf\xe9.md"),
                "link.md",
                "fifo.md",
            ]
        )
        sizes = {rel: size for rel, size, _ in fast}
        assert sizes["link.md"] == len("a.md")  # the target's stat


def test_only_one_plain_suffix_pattern_takes_the_inline_walk() -> None:
    assert file_walk.name_suffix(["**/*.md"]) == ".md"
    assert file_walk.name_suffix(["./**/*.md"]) == ".md"
    others = (["*.md"], ["**/*/x.md"], ["**/a/*.md"], ["**/*.{md,txt}"], ["**/x*.md"], ["**/*.md", "*.txt"])
    for patterns in others:
        assert file_walk.name_suffix(patterns) is None, patterns


def test_a_missing_or_unlistable_root_gives_no_files(tmp_path: Path) -> None:
    assert file_walk.walk_by_suffix(str(tmp_path / "missing"), ".md") == []
    (tmp_path / "file.md").write_text("x")
    assert file_walk.walk_by_suffix(str(tmp_path / "file.md"), ".md") == []
