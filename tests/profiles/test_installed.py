"""Finding the installed openclaw from its files (real files and links; Node is never started)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memwarm_cli.profiles.installed import find_installed, package_dir_of, which
from tests.profiles.support import REAL_PACKAGE_96, installer_wrapper, npm_global


def test_an_npm_global_link_is_followed_to_the_package(tmp_path: Path) -> None:
    bin_dir = npm_global(tmp_path / "prefix", "2026.8.2", build_version="2026.8.2")
    found = find_installed({"PATH": f"/nonexistent:{bin_dir}"})
    assert found is not None
    assert found.package_dir == os.path.realpath(tmp_path / "prefix/lib/node_modules/openclaw")
    assert found.version == "2026.8.2"
    assert found.node_range == ">=24.16.0 <25 || >=26.1.0"


def test_the_installer_wrapper_is_parsed_for_its_entry(tmp_path: Path) -> None:
    bin_dir = installer_wrapper(tmp_path / "oc", "2026.9.6", build_version="2026.9.6")
    found = find_installed({"PATH": str(bin_dir)})
    assert found is not None and found.version == "2026.9.6"
    assert found.package_dir.endswith("/tools/node-v24.21.0/lib/node_modules/openclaw")


def test_build_info_wins_over_package_json(tmp_path: Path) -> None:
    # The release's own --version reads dist/build-info.json first.
    bin_dir = npm_global(tmp_path / "p", "2026.6.35", build_version="2026.9.6")
    found = find_installed({"PATH": str(bin_dir)})
    assert found is not None and found.version == "2026.9.6"


def test_a_pnpm_style_basedir_wrapper(tmp_path: Path) -> None:
    npm_global(tmp_path / "store", "2026.7.35")
    shim_dir = tmp_path / "store" / "shims"
    shim_dir.mkdir()
    shim = shim_dir / "openclaw"
    shim.write_text(
        '#!/bin/sh\nbasedir=$(dirname "$0")\n'
        'exec node  "$basedir/../lib/node_modules/openclaw/openclaw.mjs" "$@"\n'
    )
    shim.chmod(0o755)
    found = find_installed({"PATH": str(shim_dir)})
    assert found is not None and found.version == "2026.7.35"


def test_other_programs_called_openclaw_are_not_the_package(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "openclaw"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    assert which({"PATH": str(bin_dir)}) == str(script)
    assert package_dir_of(str(script)) is None
    assert find_installed({"PATH": str(bin_dir)}) is None
    # A package whose package.json is someone else's is not openclaw either.
    other = npm_global(tmp_path / "x", "1.0.0")
    (tmp_path / "x/lib/node_modules/openclaw/package.json").write_text('{"name": "not-openclaw"}')
    assert find_installed({"PATH": str(other)}) is None


def test_not_executable_or_absent_is_not_found(tmp_path: Path) -> None:
    bin_dir = npm_global(tmp_path / "p", "2026.9.6")
    (tmp_path / "p/lib/node_modules/openclaw/openclaw.mjs").chmod(0o644)
    assert find_installed({"PATH": str(bin_dir)}) is None
    assert find_installed({"PATH": ""}) is None
    assert find_installed({"PATH": str(tmp_path / "missing")}) is None


def test_a_package_without_a_version_is_found_without_one(tmp_path: Path) -> None:
    bin_dir = npm_global(tmp_path / "p", None)
    found = find_installed({"PATH": str(bin_dir)})
    assert found is not None and found.version is None


@pytest.mark.skipif(not REAL_PACKAGE_96.is_dir(), reason="the released 2026.9.6 is not installed here")
def test_the_real_release_package(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(REAL_PACKAGE_96 / "openclaw.mjs", bin_dir / "openclaw")
    found = find_installed({"PATH": str(bin_dir)})
    assert found is not None and found.version == "2026.9.6"
    assert found.build_id == "2026.9.6-release-eb377ac59e6c-2026-09-23T16-33-12.144Z"
