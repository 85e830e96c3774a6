"""Fake `openclaw` installs as the package managers and the official installer lay them out: real files
and links in a temporary directory (a package.json, dist/build-info.json, the bin entry)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memwarm_cli.profiles.choice import OpenClawChoice
from memwarm_cli.profiles.releases import Profile


def fake_package(root: Path, version: str | None, *, build_version: str | None = None) -> Path:
    """`root/lib/node_modules/openclaw` with openclaw.mjs, dist/entry.js and the two JSON files."""
    package = root / "lib" / "node_modules" / "openclaw"
    (package / "dist").mkdir(parents=True)
    manifest: dict[str, object] = {"name": "openclaw", "bin": {"openclaw": "openclaw.mjs"}, "type": "module"}
    if version is not None:
        manifest["version"] = version
    manifest["engines"] = {"node": ">=24.16.0 <25 || >=26.1.0"}
    (package / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    if build_version is not None:
        info = {"version": build_version, "commit": "eb377ac59e6c9fd6c7705028034812becf00271b"}
        (package / "dist" / "build-info.json").write_text(json.dumps(info), encoding="utf-8")
    (package / "openclaw.mjs").write_text("#!/usr/bin/env node\n", encoding="utf-8")
    (package / "dist" / "entry.js").write_text("// entry\n", encoding="utf-8")
    return package


def npm_global(prefix: Path, version: str | None, build_version: str | None = None) -> Path:
    """`npm install -g --prefix P`: P/bin/openclaw -> ../lib/node_modules/openclaw/openclaw.mjs.

    Returns the bin directory."""
    package = fake_package(prefix, version, build_version=build_version)
    (package / "openclaw.mjs").chmod(0o755)
    bin_dir = prefix / "bin"
    bin_dir.mkdir()
    os.symlink("../lib/node_modules/openclaw/openclaw.mjs", bin_dir / "openclaw")
    return bin_dir


def installer_wrapper(prefix: Path, version: str | None, build_version: str | None = None) -> Path:
    """The official installer's `$PREFIX/bin/openclaw`: a bash wrapper exec'ing node on dist/entry.js."""
    node_dir = prefix / "tools" / "node-v24.21.0"
    package = fake_package(node_dir, version, build_version=build_version)
    bin_dir = prefix / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "openclaw"
    wrapper.write_text(
        "#!/usr/bin/env bash\nset -euo pipefail\n"
        f'exec "{prefix}/tools/node/bin/node" "{package}/dist/entry.js" "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(0o755)
    return bin_dir


def chosen(profile: Profile, version: str | None = None) -> OpenClawChoice:
    """The choice a run makes when `--openclaw VERSION` names a release of `profile` (no version: when
    only the config's shape said which profile)."""
    if version is None:
        return OpenClawChoice(profile, None, "config-shape", None, "config shape (test)", False)
    return OpenClawChoice(profile, version, "flag", None, "from --openclaw", version in profile.releases)


def choose(profile: Profile, version: str | None = None) -> Callable[[Any], OpenClawChoice]:
    """A `choose_release` for check_config that always picks `profile` (and `version`)."""
    choice = chosen(profile, version)
    return lambda _cfg: choice
