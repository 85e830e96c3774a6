"""The qmd version cache, keyed by the executable's identity."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memwarm_cli.backends.qmd import version_cache
from memwarm_cli.cancel import CancelToken


def test_version_cache_follows_the_executable(tmp_path: Path) -> None:
    exe = tmp_path / "bin" / "qmd"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    first = version_cache.executable_identity(str(exe))
    assert first is not None
    cache = version_cache.version_cache_path(tmp_path / "state")
    version_cache.write_version_cache(cache, {first: "qmd 1"})
    assert version_cache.read_version_cache(cache) == {first: "qmd 1"}
    (tmp_path / "package.json").write_text("{}")  # a reinstall next to it changes the identity
    assert version_cache.executable_identity(str(exe)) != first
    os.utime(exe, ns=(1, 1))
    assert version_cache.executable_identity(str(exe)) != first


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b"[" * 200_000, "it is not valid JSON: nested too deeply"),  # RecursionError failed the agent
        (b'{"a": 1}', "it does not map executables to versions"),
        (b'{"a": "' + b"v" * 5000 + b'"}', "it holds a version longer than a version can be"),
        (b"[]", "it is not a JSON object"),
    ],
)
def test_an_invalid_cache_warns_once_per_run_and_reads_as_empty(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    state = tmp_path / "state"
    cache = version_cache.version_cache_path(state)
    cache.path.parent.mkdir(parents=True)
    cache.path.write_bytes(content)
    warnings: list[str] = []
    versions = version_cache.QmdVersions(state, force=False, token=CancelToken(), warn=warnings.append)
    qmd = tmp_path / "bin" / "qmd"
    qmd.parent.mkdir()
    qmd.write_text("#!/bin/sh\necho 'qmd 9.9.9'\n")
    qmd.chmod(0o755)
    env = {"PATH": f"{qmd.parent}:/usr/bin:/bin"}
    for _ in range(2):
        version, _ran = versions.lookup("qmd", env, tmp_path, 5000)
        assert version == "qmd 9.9.9"
    assert warnings == [f"ignoring {cache.path}: {problem}; continuing as if it were absent"]
    # The next run finds a good cache: the version is not asked again.
    again = version_cache.QmdVersions(state, force=False, token=CancelToken(), warn=warnings.append)
    assert again.lookup("qmd", env, tmp_path, 5000) == ("qmd 9.9.9", None)
    assert len(warnings) == 1


def test_a_fifo_at_the_cache_name_is_not_waited_on(tmp_path: Path) -> None:
    """read_text() on a FIFO blocked until something wrote to it: every cron run hung."""
    state = tmp_path / "state"
    cache = version_cache.version_cache_path(state)
    cache.path.parent.mkdir(parents=True)
    os.mkfifo(cache.path)
    warnings: list[str] = []
    assert version_cache.read_version_cache(cache, warnings.append) == {}
    assert warnings == [f"ignoring {cache.path}: it is not a regular file; continuing as if it were absent"]
