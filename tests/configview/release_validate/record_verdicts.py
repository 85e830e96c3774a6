"""Record a release's `openclaw config validate --json` verdicts on the configs of this directory.

    python tests/configview/release_validate/record_verdicts.py NODE OPENCLAW_MJS RELEASE OUT [FILE...]

Runs the release the way verdicts.json's "how" says: the configs copied to /tmp/research/config-variants
(the include messages name that directory), each run with `env -i PATH=/usr/bin:/bin HOME=<tmp>
OPENCLAW_STATE_DIR=<fresh> OPENCLAW_CONFIG_PATH=<file>` and the variables of "env". OUT is written in
verdicts.json's format; when OUT exists, its "differences", notes and variants not named are kept, so
one file can be re-recorded (RELEASE `-` keeps OUT's "release"). Not a test: it needs the released
package (see test_release_validate.py).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
COPY = Path("/tmp/research/config-variants")
MISSING = "150-config-missing-file.json5"
ENV = {"MW_PRESENT_VAR": "/tmp/r4/ws", "MW_NUM_VAR": "100"}


def verdict(node: str, openclaw: str, name: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as state:
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": home,
            "OPENCLAW_STATE_DIR": state,
            "OPENCLAW_CONFIG_PATH": str(COPY / name),
            **ENV,
        }
        run = subprocess.run(
            [node, openclaw, "config", "validate", "--json"],
            env=env,
            cwd=COPY,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    start = run.stdout.find("{")
    if start < 0:
        raise SystemExit(f"{name}: no JSON from the release (exit {run.returncode}): {run.stderr[-500:]}")
    data = json.loads(run.stdout[start:])
    issues = data.get("issues") or []
    error = data.get("error")
    if error and not issues:  # a file that cannot be read: one message, no path
        issues = [{"path": "", "message": error.get("message") if isinstance(error, dict) else error}]
    found = {
        "valid": bool(data.get("valid")),
        "errorPaths": list(dict.fromkeys(i.get("path") or "<root>" for i in issues)),
        "messages": [f"{i.get('path', '')}: {i.get('message', '')}" for i in issues],
    }
    warnings = data.get("warnings") or []
    if warnings:  # 2026.9 reports what it drops from a valid config
        found["warnings"] = [f"{i.get('path', '')}: {i.get('message', '')}" for i in warnings]
    return found


def main(argv: list[str]) -> None:
    node, openclaw, release, out, *names = argv
    node, openclaw = str(Path(node).resolve()), str(Path(openclaw).resolve())
    shutil.rmtree(COPY, ignore_errors=True)
    COPY.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(HERE / "configs", COPY)
    Path(ENV["MW_PRESENT_VAR"]).mkdir(parents=True, exist_ok=True)
    everything = [*sorted(p.name for p in (HERE / "configs").glob("*.json5")), MISSING]
    names = names or everything
    target = Path(out)
    old = json.loads(target.read_text()) if target.exists() else {}
    reference = json.loads((HERE / "verdicts.json").read_text())
    notes = {v["file"]: v["note"] for v in reference["variants"]}
    notes.update({v["file"]: v["note"] for v in old.get("variants", [])})
    with ThreadPoolExecutor(max_workers=2) as pool:
        found = dict(zip(names, pool.map(lambda n: verdict(node, openclaw, n), names), strict=True))
    kept = {v["file"]: v for v in old.get("variants", [])}
    for name, result in found.items():
        kept[name] = {"file": name, "note": notes.get(name, ""), **result}
    record = {
        "release": old.get("release", release) if release == "-" else release,
        "how": old.get("how", reference["how"]),
        "env": ENV,
        "differences": old.get("differences", {}),
        **{k: v for k, v in old.items() if k not in ("release", "how", "env", "differences", "variants")},
        "variants": [kept[n] for n in sorted(kept, key=lambda n: (n == MISSING, n))],
    }
    target.write_text(json.dumps(record, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1:])
