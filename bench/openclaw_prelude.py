"""OpenClaw's own startup-context code, runnable on its own under Node: the anchor of bench_startup.py.

The released package bundles `src/auto-reply/reply/startup-context.ts` into `dist/get-reply-*.js`, next to
the whole reply pipeline, and exports none of it. `write_module` copies that region verbatim into a module
of its own, with the import lines of the release's own helpers it calls (`formatDateStamp`,
`resolveUserTimezone`, `uniqueStrings`, `openRootFile`, `fs`, `path`), pointed at the same `dist/`, and
exports `buildSessionStartupContextPrelude`. DRIVER calls it as OpenClaw does on a new session: the
workspace, the config (JSON) and the instant; it prints the prelude's exact text, as `memwarm prelude` does
into a pipe (nothing when there is none), so the two outputs compare byte for byte.
"""

from __future__ import annotations

import re
from pathlib import Path

REGION = "//#region src/auto-reply/reply/startup-context.ts"
ENTRY = "buildSessionStartupContextPrelude"
_IMPORT = re.compile(r'^import (?:\{ (?P<named>[^}]*) \}|(?P<default>[\w$]+)) from "(?P<source>[^"]+)";$')

DRIVER = """\
import { readFileSync } from "node:fs";
const [modulePath, workspaceDir, configPath, nowMs] = process.argv.slice(2);
const { buildSessionStartupContextPrelude } = await import(modulePath);
const cfg = JSON.parse(readFileSync(configPath, "utf8"));
const prelude = await buildSessionStartupContextPrelude({ workspaceDir, cfg, nowMs: Number(nowMs) });
if (prelude !== null) process.stdout.write(prelude);
"""


def _bundle(dist: Path) -> tuple[Path, str]:
    for candidate in sorted(dist.glob("get-reply-*.js")):
        text = candidate.read_text(encoding="utf-8")
        if REGION in text:
            return candidate, text
    raise SystemExit(f"no {REGION!r} in {dist}/get-reply-*.js: `make interop-tools` installs the release")


def write_module(dist: Path, target: Path) -> Path:
    """The startup-context region of the release in `dist`, as a module at `target` (returned)."""
    bundle, text = _bundle(dist)
    lines = text.splitlines()
    start = lines.index(REGION)
    end = lines.index("//#endregion", start)
    region = "\n".join(lines[start : end + 1])
    used = set(re.findall(r"[\w$]+", region))
    imports: list[str] = []
    for line in lines[:start]:
        found = _IMPORT.match(line)
        if found is None:
            continue
        source = found["source"]
        if source.startswith("./"):
            source = (bundle.parent / source).resolve().as_uri()
        if found["default"]:
            if found["default"] in used:
                imports.append(f'import {found["default"]} from "{source}";')
            continue
        names = [part.strip() for part in found["named"].split(",")]
        wanted = [name for name in names if name.rpartition(" as ")[2] in used]
        if wanted:
            imports.append(f'import {{ {", ".join(wanted)} }} from "{source}";')
    target.parent.mkdir(parents=True, exist_ok=True)
    header = f"// Copied from {bundle.name} by bench/openclaw_prelude.py; do not edit.\n"
    target.write_text(
        header + "\n".join(imports) + "\n" + region + f"\nexport {{ {ENTRY} }};\n", encoding="utf-8"
    )
    return target


def write_driver(target: Path) -> Path:
    target.write_text(DRIVER, encoding="utf-8")
    return target
