"""The collection walk finds exactly the files qmd 2.8.3 would index: held to the real fast-glob that qmd
bundles (tools/node_modules), called as `reindexCollection` calls it, on a tree of odd names, links,
hidden and excluded entries, and on the patterns OpenClaw writes (escaped file basenames included)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from memwarm_cli.backends.freshness import file_walk, qmd_glob
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from tests.conftest import REPO_ROOT, require_tool

# qmd's own calls (store.js reindexCollection): its splitGlobMask, fast-glob with its options, then the
# hidden-segment filter.
FAST_GLOB = """
import fastGlob from "%(modules)s/fast-glob/out/index.js";
import { splitGlobMask } from "%(modules)s/@tobilu/qmd/dist/store.js";
const [cwd, ...masks] = process.argv.slice(2);
const out = {};
for (const mask of masks) {
  const ignore = ["node_modules", ".git", ".cache", "vendor", "dist", "build"].map((d) => `**/${d}/**`);
  const files = await fastGlob(splitGlobMask(mask), {
    cwd, onlyFiles: true, followSymbolicLinks: false, dot: false, ignore,
  });
  out[mask] = files.filter((f) => !f.split("/").some((p) => p.startsWith(".")));
}
console.log(JSON.stringify(out));
"""

FILES = [
    "a.md",
    "b.MD",  # case-sensitive
    "c.md.txt",
    "md",
    ".md",
    ".hidden.md",
    "with space.md",
    "new\nline.md",
    "tab\there.md",
    "\u202eevil.md",
    "emoji 😀.md",
    "é-accent.md",
    "z-last.md",
    "a-b.md",
    "a0.md",
    "dir.md/inner.md",  # a directory whose name matches: walked, not listed
    "x/y/z/deep.md",
    "x/y/skip.txt",
    "x-y/side.md",  # sorts before x/ byte-wise
    "x0/after.md",
    ".git/config.md",
    ".hidden-dir/h.md",
    "node_modules/pkg/readme.md",
    "deep/node_modules/n.md",
    "build/out.md",
    "dist/out.md",
    "dist2/kept.md",
    "vendor/v.md",
    ".cache/c.md",
    "sub/node_modules.md",  # a file named like an excluded directory is a file
    "sub/.dot/x.md",
    "My Notes(1).md",
    "a[1].md",
    "x{y}.md",
    "b!c.md",
    "plus+at@.md",
    "star*.md",
    "q?.md",
    "back\\slash.md",
    "MEMORY.md",
    "memory.md",
    "top.md",
    "bom.md",
    "a/x.markdown",
    "a/b/c.markdown",
    "empty.md",
]


def _odd_tree(root: Path) -> None:
    for rel in FILES:
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("  \n" if rel == "empty.md" else rel, encoding="utf-8")
    with open(os.path.join(os.fsencode(root), b"caf\xe9.md"), "wb") as handle:  # not UTF-8
        handle.write(b"latin-1 name")
    (root / "link.md").symlink_to(root / "a.md")  # a symlink to a file: never indexed
    (root / "link-out.md").symlink_to("/etc/hostname")
    (root / "dirlink").symlink_to(root / "x")  # a symlinked directory: not followed
    (root / "dirlink.md").symlink_to(root / "x")
    (root / "broken.md").symlink_to(root / "nowhere")
    os.mkfifo(root / "fifo.md")  # not a regular file: fast-glob's onlyFiles leaves it out


def escape_basename(name: str) -> str:
    """OpenClaw's escapeQmdExactFilePattern (backend-config: `[\\\\*?[\\]{}()!+@]` -> `\\\\$&`)."""
    return re.sub(r"[\\*?[\]{}()!+@]", lambda m: "\\" + m.group(0), name)


PATTERNS = [
    "**/*.md",
    "./**/*.md",
    "**/*",
    "**/*e.md",
    "*.md",
    "MEMORY.md",
    "**/*.markdown",
    "{top,bom}.md,a/*.markdown",
    "a/**",
    "x/**/deep.md",
    "**/*.{md,txt}",
    "[ab]*.md",
    "[!a]*.md",
    "?.md",
    "*/*.md",
    "**/node_modules.md",
    *(escape_basename(name) for name in ("My Notes(1).md", "a[1].md", "x{y}.md", "b!c.md", "plus+at@.md")),
    *(escape_basename(name) for name in ("star*.md", "q?.md", "back\\slash.md", "link.md", "fifo.md")),
]


@pytest.fixture(scope="module")
def odd_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("odd-tree")
    _odd_tree(root)
    return root


@pytest.fixture(scope="module")
def qmd_globs(odd_tree: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    node = require_tool("node")
    script = tmp_path_factory.mktemp("glob") / "glob.mjs"
    script.write_text(FAST_GLOB % {"modules": REPO_ROOT / "tools" / "node_modules"}, encoding="utf-8")
    proc = subprocess.run(
        [str(node), str(script), str(odd_tree), *PATTERNS], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    found: dict[str, list[str]] = json.loads(proc.stdout)
    return found


@pytest.mark.qmd
@pytest.mark.parametrize("pattern", PATTERNS)
def test_the_walk_finds_what_qmds_fast_glob_finds(
    odd_tree: Path, qmd_globs: dict[str, list[str]], pattern: str
) -> None:
    # Node reads the name that is not UTF-8 with U+FFFD and then cannot open it: never indexed.
    expected = sorted(f for f in qmd_globs[pattern] if "\ufffd" not in f)
    found = [
        rel for rel, _, _ in file_walk.collection_files(CollectionSpec("c", odd_tree, pattern, "custom", "t"))
    ]
    assert found == expected, pattern
    assert found == sorted(found, key=lambda rel: rel.encode("utf-8"))  # SQLite's order of the paths


def test_escaped_basenames_match_the_file_alone() -> None:
    for name in (
        "My Notes(1).md",
        "a[1].md",
        "x{y}.md",
        "b!c.md",
        "plus+at@.md",
        "star*.md",
        "back\\slash.md",
    ):
        matcher = qmd_glob.compile_mask(escape_basename(name))
        assert matcher is not None and matcher.names == frozenset({name}) and not matcher.recursive


def test_patterns_memwarm_cannot_read_exactly_are_unsure() -> None:
    for pattern in (
        "@(a|b).md",
        "+(a).md",
        "!(a).md",
        "{1..3}.md",
        "!x.md",
        "/abs/*.md",
        "(a|b).md",
        "[[:alpha:]].md",
    ):
        assert qmd_glob.compile_mask(pattern) is None, pattern
    assert qmd_glob.compile_ignore(["tmp/**"]) is not None
    assert qmd_glob.compile_ignore(["@(x)"]) is qmd_glob.UNSURE


def test_the_digest_does_not_depend_on_how_the_walk_cuts_its_chunks(odd_tree: Path) -> None:
    spec = CollectionSpec("c", odd_tree, "**/*.md", "custom", "t")
    digest, count = file_walk.collection_digest(spec)
    files = file_walk.collection_files(spec)
    assert count == len(files) and digest == file_walk.list_digest(spec, files)
    assert len(list(file_walk.walk_chunks(str(odd_tree), qmd_glob.compile_mask("**/*.md")))) > 1  # type: ignore[arg-type]
    (odd_tree / "z-last.md").touch()
    try:
        assert file_walk.collection_digest(spec)[0] != digest  # an mtime is part of it
    finally:
        os.utime(odd_tree / "z-last.md", ns=(0, dict((r, m) for r, _, m in files)["z-last.md"]))
    assert file_walk.collection_digest(spec)[0] == digest


def test_a_missing_or_unlistable_root_gives_no_files(tmp_path: Path) -> None:
    matcher = qmd_glob.compile_mask("**/*.md")
    assert matcher is not None
    assert list(file_walk.walk_chunks(str(tmp_path / "missing"), matcher)) == []
    (tmp_path / "file.md").write_text("x")
    assert list(file_walk.walk_chunks(str(tmp_path / "file.md"), matcher)) == []
    assert file_walk.collection_digest(
        CollectionSpec("c", tmp_path / "missing", "**/*.md", "custom", "t")
    ) == (
        None,
        0,
    )


def test_shared_parents_resolve_as_realpath_does(tmp_path: Path) -> None:
    base = Path(os.path.realpath(tmp_path))
    (base / "real" / "ws" / "memory").mkdir(parents=True)
    (base / "other").mkdir()
    (base / "linked").symlink_to(base / "real")  # a symlinked parent
    (base / "real" / "ws" / "abs").symlink_to(base / "other")  # a symlinked last name
    (base / "real" / "ws" / "rel").symlink_to("../../other")  # relative to the link's directory
    (base / "real" / "ws" / "dangling").symlink_to(base / "nowhere" / "x")
    (base / "real" / "ws" / "file").write_text("not a directory\n")
    names = ("memory", "abs", "rel", "dangling", "missing", "file", ".", "..", "")
    paths = [f"{base}/{top}/ws/{name}" for top in ("real", "linked") for name in names]
    paths += [f"{base}/linked/ws", f"{base}/linked/ws/file/below", f"{base}//linked/ws", "relative/x"]
    with file_walk.shared_parents():
        for path in paths:
            assert file_walk.shared_realpath(path) == os.path.realpath(path), path
        (base / "linked").unlink()
        (base / "linked").symlink_to(base / "other")
        stale = file_walk.shared_realpath(str(base / "linked" / "ws"))  # its parent resolved once per batch
    assert stale == str(base / "real" / "ws")
    # The next batch resolves the parent again: the link moved.
    with file_walk.shared_parents():
        assert file_walk.shared_realpath(str(base / "linked" / "ws")) == str(base / "other" / "ws")
    assert file_walk.shared_realpath(str(base / "linked" / "ws")) == str(base / "other" / "ws")


def test_small_chunks_give_the_same_files_in_the_same_order(
    odd_tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    matcher = qmd_glob.compile_mask("**/*.md")
    assert matcher is not None
    whole = [entry for chunk in file_walk.walk_chunks(str(odd_tree), matcher) for entry in chunk]
    monkeypatch.setattr(file_walk, "CHUNK_FILES", 2)
    chunks = list(file_walk.walk_chunks(str(odd_tree), matcher))
    assert all(0 < len(chunk) <= 2 for chunk in chunks)
    assert [entry for chunk in chunks for entry in chunk] == whole


WALKED_NOTES = 50_000
# What the walk may hold per file of one directory: its name (about 75 bytes here), its size and mtime
# (16), and a share of one chunk's tuples. A DirEntry with its cached stat and a tuple per file, all held
# until the directory was done, came to about 850 bytes.
BYTES_PER_FILE = 160


def test_the_walk_of_one_huge_directory_holds_its_names_not_an_object_per_file(tmp_path: Path) -> None:
    import tracemalloc

    memory = tmp_path / "memory"
    memory.mkdir()
    for number in range(WALKED_NOTES):
        os.close(
            os.open(
                memory / f"2026-{number % 12 + 1:02d}-{number % 28 + 1:02d}-note-{number:07d}.md", os.O_CREAT
            )
        )
    matcher = qmd_glob.compile_mask("**/*.md")
    assert matcher is not None
    digest = file_walk.ListDigest()
    tracemalloc.start()
    try:
        for chunk in file_walk.walk_chunks(str(memory), matcher):
            digest.update(chunk)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert digest.count == WALKED_NOTES
    assert peak <= WALKED_NOTES * BYTES_PER_FILE, f"{peak / WALKED_NOTES:.0f} bytes per file"
