"""The `openclaw` package a PATH would run, identified from its own files without starting Node.

`openclaw` on PATH is either a link to `<package>/openclaw.mjs` (npm and pnpm global installs: resolved
with realpath) or a small shell wrapper that execs node on `<package>/openclaw.mjs` or
`<package>/dist/entry.js` (the official installer's `$PREFIX/bin/openclaw`, a git checkout, pnpm and
yarn shims with `"$basedir/..."` paths). The version comes from `dist/build-info.json` first, then
`package.json`, as the release's own `--version` reads them (openclaw-versions.md §6, research §D).

Every failure is an outcome (None, or a package without a version), never an exception: detection is a
fallback and must not stop a run. Cost: one PATH search and a few small reads (bench/bench_profile.py).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping

from memwarm_cli.exec_search import find_on_path, search_path, working_directory
from memwarm_cli.frozen_records import record
from memwarm_cli.safe_files import FileTooLargeError, NotRegularFileError, read_bounded

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EXECUTABLE = "openclaw"
PACKAGE_NAME = "openclaw"
MAX_WRAPPER_BYTES = 64 * 1024  # a wrapper is a few lines; a bigger file is no wrapper
MAX_JSON_BYTES = 1024 * 1024  # package.json is a few KiB
_ENTRY_SUFFIXES = ("/openclaw.mjs", "/dist/entry.js", "/dist/entry.mjs")
# Compiled by re's cache when a wrapper is read (most runs read none; compiling cost every start).
# A wrapper's words: runs of characters that are neither whitespace nor a quote. One pass, no
# backtracking: the path a wrapper runs is a word ending in an entry file (see _entry_paths).
_WORD = r"""[^\s"']+"""
# `$basedir`/`${basedir}` (pnpm, yarn and npm's cmd-shim) stands for the wrapper's own directory.
_BASEDIR = r"\$\{?basedir\}?"


@record
class InstalledOpenClaw:
    executable: str  # the `openclaw` PATH found
    package_dir: str  # the package the executable runs
    version: str | None  # build-info.json's, else package.json's; None when neither says
    node_range: str | None  # package.json `engines.node`


def which(env: Mapping[str, str]) -> str | None:
    """The first `openclaw` on the environment's PATH that is an executable regular file (or a link to
    one), as the user's shell finds it from memwarm's working directory (exec_search.py: an empty PATH
    entry or `.` is that directory); an absolute path, or None without one."""
    return find_on_path(EXECUTABLE, search_path(env), working_directory())


def _read_small(path: str, limit: int) -> bytes | None:
    try:
        return read_bounded(path, limit)[0]
    except (OSError, ValueError, NotRegularFileError, FileTooLargeError):
        return None


def _json_object(path: str) -> dict[str, Any] | None:
    data = _read_small(path, MAX_JSON_BYTES)
    if data is None:
        return None
    import json  # here: ~2 ms CPU of every start, where no package.json is read

    try:
        value = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _package_of_entry(entry: str) -> str:
    """`<package>/openclaw.mjs` -> `<package>`; `<package>/dist/entry.js` -> `<package>`."""
    directory = os.path.dirname(entry)
    return os.path.dirname(directory) if os.path.basename(directory) == "dist" else directory


def _entry_paths(text: str) -> Iterator[str]:
    """The paths a wrapper names that end in an entry file, in order: each word (see _WORD) ending in
    one, from its first `/` or `$basedir`. Linear in the text: a word is looked at once."""
    for word in re.finditer(_WORD, text):
        path = word.group()
        suffix = next((s for s in _ENTRY_SUFFIXES if path.endswith(s)), None)
        if suffix is None:
            continue
        slash = path.find("/", 0, len(path) - len(suffix))  # a `/` before the entry's own
        basedir = re.compile(_BASEDIR).search(path, 0, slash if slash >= 0 else len(path) - len(suffix))
        if basedir is not None:
            yield path[basedir.start() :]
        elif slash >= 0:
            yield path[slash:]


def _entry_in_wrapper(wrapper: str) -> str | None:
    """The entry file a small shell wrapper runs, resolved; None when it names none (or is no wrapper:
    not a `#!` script, or over MAX_WRAPPER_BYTES, which is all that is ever read of it)."""
    data = _read_small(wrapper, MAX_WRAPPER_BYTES)
    if data is None or not data.startswith(b"#!") or b"\0" in data:
        return None
    base = os.path.dirname(os.path.abspath(wrapper))
    for found in _entry_paths(data.decode("utf-8", "replace")):
        path = re.sub(_BASEDIR, lambda _: base, found, count=1) if found.startswith("$") else found
        if os.path.isfile(path):
            return os.path.realpath(path)
    return None


def _package_of(executable: str) -> tuple[str, dict[str, Any]] | None:
    """The package directory an `openclaw` executable runs and its package.json, or None when it runs
    no openclaw package."""
    target = os.path.realpath(executable)
    if target.endswith(_ENTRY_SUFFIXES):
        entry: str | None = target
    else:
        entry = _entry_in_wrapper(target)
    if entry is None:
        return None
    package = _package_of_entry(entry)
    manifest = _json_object(os.path.join(package, "package.json"))
    if manifest is None or manifest.get("name") != PACKAGE_NAME:
        return None
    return package, manifest


def _text(value: Any) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def read_package(package: str, executable: str, manifest: dict[str, Any] | None = None) -> InstalledOpenClaw:
    if manifest is None:
        manifest = _json_object(os.path.join(package, "package.json")) or {}
    build = _json_object(os.path.join(package, "dist", "build-info.json")) or {}
    engines = manifest.get("engines")
    node = _text(engines.get("node")) if isinstance(engines, dict) else None
    version = _text(build.get("version")) or _text(manifest.get("version"))
    return InstalledOpenClaw(executable, package, version, node)


def find_installed(env: Mapping[str, str]) -> InstalledOpenClaw | None:
    """The openclaw package the environment's PATH runs, or None (no `openclaw`, or not the package)."""
    executable = which(env)
    if executable is None:
        return None
    found = _package_of(executable)
    if found is None:
        return None
    return read_package(found[0], executable, found[1])
