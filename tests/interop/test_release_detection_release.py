"""Release detection on the released packages themselves (`make interop` installs them into tools/): an
`openclaw` on PATH linked to a release's `openclaw.mjs`, as an npm global install leaves it, is read as
that release from its files alone, without starting Node."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memwarm_cli.profiles.installed import find_installed
from tests.interop.openclaw96_run import OPENCLAW96_VERSION, require_openclaw96
from tests.interop.openclaw_run import require_openclaw

pytestmark = pytest.mark.interop


def _found_through_a_link(entry: Path, tmp_path: Path) -> str | None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    os.symlink(entry, bin_dir / "openclaw")
    found = find_installed({"PATH": str(bin_dir)})
    assert found is not None and Path(found.package_dir).resolve() == entry.parent.resolve()
    return found.version


def test_the_released_2026_9_6_package(tmp_path: Path) -> None:
    assert _found_through_a_link(require_openclaw96(), tmp_path) == OPENCLAW96_VERSION


def test_the_released_2026_6_35_package(tmp_path: Path) -> None:
    assert _found_through_a_link(require_openclaw(), tmp_path) == "2026.6.35"
