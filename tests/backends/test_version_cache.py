"""The qmd version cache, keyed by the executable's identity."""

from __future__ import annotations

import os
from pathlib import Path

from memwarm_cli.backends import version_cache


def test_version_cache_follows_the_executable(tmp_path: Path) -> None:
    exe = tmp_path / "bin" / "qmd"
    exe.parent.mkdir()
    exe.write_text("#!/bin/sh\n")
    first = version_cache.executable_identity(str(exe))
    assert first is not None
    cache = tmp_path / "cache.json"
    version_cache.store_version(cache, first, "qmd 1")
    assert version_cache.read_version_cache(cache) == {first: "qmd 1"}
    (tmp_path / "package.json").write_text("{}")  # a reinstall next to it changes the identity
    assert version_cache.executable_identity(str(exe)) != first
    os.utime(exe, ns=(1, 1))
    assert version_cache.executable_identity(str(exe)) != first
