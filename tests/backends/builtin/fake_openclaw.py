"""A fake installed OpenClaw for the faults the real 2026.9.6 cannot show on demand (a hang, a crash, a
Node it refuses): real executables on PATH, as the release installs itself. `bin/openclaw` links to
`<package>/openclaw.mjs` (`#!/usr/bin/env node`) in a package whose package.json says openclaw 2026.9.6
and its engines.node, so memwarm finds and judges it as it does the real one; `bin/node` is a fake node
that answers `--version` and otherwise plays `openclaw <args>` by $FAKE_OPENCLAW_MODE, appending each
call (pid, args, the state dir and config it got, its cwd) to $FAKE_OPENCLAW_LOG."""

from __future__ import annotations

import json
import stat
from pathlib import Path

NODE_RANGE = ">=24.16.0 <25 || >=26.1.0"
FAKE_NODE = r"""#!/bin/bash
if [ "$1" = "--version" ]; then echo "${FAKE_NODE_VERSION:-v24.21.0}"; exit 0; fi
shift  # the entry file
echo "$$ $* STATE=$OPENCLAW_STATE_DIR CONFIG=$OPENCLAW_CONFIG_PATH CWD=$PWD" >> "${FAKE_OPENCLAW_LOG:?}"
case "${FAKE_OPENCLAW_MODE:-ok}" in
  hang) touch "$FAKE_OPENCLAW_LOG.started"; exec sleep 600;;
  crash) echo '{"ok":false,"error":{"type":"Error","message":"Unknown agent id \"x\""}}'; exit 1;;
  *) echo "Memory index updated ($4): 2 files indexed."; exit 0;;
esac
"""


def _executable(path: Path, text: str) -> None:
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def install_fake_openclaw(root: Path, version: str = "2026.9.6") -> Path:
    """The fake's bin directory (put it first on PATH)."""
    package = root / "lib" / "node_modules" / "openclaw"
    package.mkdir(parents=True)
    manifest = {"name": "openclaw", "version": version, "engines": {"node": NODE_RANGE}}
    (package / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    _executable(package / "openclaw.mjs", "#!/usr/bin/env node\n// the fake: bin/node plays it\n")
    bin_dir = root / "bin"
    bin_dir.mkdir()
    (bin_dir / "openclaw").symlink_to(package / "openclaw.mjs")
    _executable(bin_dir / "node", FAKE_NODE)
    return bin_dir


def calls(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8").splitlines() if log.exists() else []
