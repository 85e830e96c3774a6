"""Build a session-export golden case exactly as tests/golden/sessions/README.md describes.

Used by the core parity test (tests/parity/test_sessions_parity.py) and the CLI one
(tests/parity/test_sessions_cli_parity.py):
`build_sessions_case` makes the tree (steps 1-3), `read_export_dir` lists the result as the README
compares it, and `write_case_config` writes an OpenClaw config that makes `memwarm init-backends` run
that case (state dir `tree.state_dir`, via `tree.env()`).
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memwarm_cli.backends.settings.qmd_collections import (
    ensure_unique_name,
    sanitize_collection_name,
    scope_collection_base,
)
from memwarm_cli.jsstring import JS_WHITESPACE, js_trim
from tests.conftest import GOLDEN_DIR
from tests.parity.case_files import load_json_cases

SESSIONS_CASES_DIR = GOLDEN_DIR / "sessions"
DEFAULT_COLLECTION_BASES = ("memory-root", "memory-dir")  # 2026.6.35 has no memory-alt


def load_session_cases() -> list[dict[str, Any]]:
    return load_json_cases(SESSIONS_CASES_DIR)


def case_agent_id(case: dict[str, Any]) -> str:
    return str(case.get("agentId", "main"))


def case_sessions_block(case: dict[str, Any]) -> dict[str, Any]:
    """`memory.qmd.sessions` as the reference run's config file had it (`null` in a case: absent)."""
    sessions: dict[str, Any] = {"enabled": True}
    if case.get("retentionDays") is not None:
        sessions["retentionDays"] = case["retentionDays"]
    if "exportDir" in case:
        sessions["exportDir"] = case["exportDir"]
    return sessions


@dataclass(frozen=True)
class SessionsCaseTree:
    base: Path  # canonical
    workspace: Path  # W
    outside: Path  # O
    state_dir: Path  # S
    sessions_dir: Path  # S/agents/<agentId>/sessions
    export_dir: Path  # E
    agent_id: str

    def env(self) -> dict[str, str]:
        """The variables the product must run with."""
        return {"OPENCLAW_STATE_DIR": str(self.state_dir)}


def _entry_bytes(entry: dict[str, Any]) -> bytes:
    if "contentB64" in entry:
        return base64.b64decode(entry["contentB64"])
    return str(entry.get("content", "")).encode("utf-8")


def _create_entries(directory: Path, entries: list[dict[str, Any]], outside: Path) -> None:
    """Create `entries` in list order, then apply their mtimes (symlinks: target first, then the link)."""
    directory.mkdir(parents=True, exist_ok=True)
    for entry in entries:
        location = directory / entry["name"]
        if entry.get("dir"):
            location.mkdir()
        elif "symlinkTo" in entry:
            target = outside / entry["symlinkTo"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(_entry_bytes(entry))
            os.symlink(target, location)
        else:
            location.write_bytes(_entry_bytes(entry))
    for entry in entries:
        if "mtimeMs" not in entry:
            continue
        ns = int(entry["mtimeMs"]) * 1_000_000
        location = directory / entry["name"]
        if "symlinkTo" in entry:
            os.utime(outside / entry["symlinkTo"], ns=(ns, ns))
            os.utime(location, ns=(ns, ns), follow_symlinks=False)
        else:
            os.utime(location, ns=(ns, ns))


def build_sessions_case(case: dict[str, Any], base: Path) -> SessionsCaseTree:
    """Steps 1-3 of the README in `base` (an empty directory, given as its realpath)."""
    assert base == Path(os.path.realpath(base)), "pass the canonical base directory"
    agent_id = case_agent_id(case)
    workspace, outside, state_dir = base / "ws", base / "outside", base / "state"
    workspace.mkdir()
    outside.mkdir()
    sessions_dir = state_dir / "agents" / agent_id / "sessions"
    if not case.get("sessionsDirMissing"):
        _create_entries(sessions_dir, case["sessions"], outside)
    if "exportDir" in case:
        export_dir = Path(os.path.normpath(workspace / js_trim(case["exportDir"])))
    else:
        export_dir = state_dir / "agents" / agent_id / "qmd" / "sessions"
    if case.get("exportFiles"):
        _create_entries(export_dir, case["exportFiles"], outside)
    return SessionsCaseTree(base, workspace, outside, state_dir, sessions_dir, export_dir, agent_id)


def snapshot(directory: Path) -> dict[str, tuple[bytes, int]]:
    """Every entry under `directory` (symlinks by their own lstat): content and mtime in ns."""
    found: dict[str, tuple[bytes, int]] = {}
    for root, dirs, files in os.walk(directory):
        for name in files + dirs:
            path = Path(root, name)
            info = path.lstat()
            data = path.read_bytes() if path.is_file() and not path.is_symlink() else b""
            found[str(path)] = (data, info.st_mtime_ns)
    return found


def sources_snapshot(tree: SessionsCaseTree) -> dict[str, tuple[bytes, int]]:
    """The transcripts and the symlink targets in `outside`: what an export must leave as they are."""
    return {**snapshot(tree.sessions_dir), **snapshot(tree.outside)}


@dataclass(frozen=True)
class ExportListing:
    files: dict[str, str]  # top-level regular files: name -> UTF-8 text
    other_entries: list[str] = field(default_factory=list)  # sorted names of everything else


def read_export_dir(export_dir: Path) -> ExportListing:
    """The export dir as the README compares it (a missing dir lists as empty)."""
    files: dict[str, str] = {}
    others: list[str] = []
    if not export_dir.exists():
        return ExportListing(files, others)
    for entry in os.scandir(export_dir):
        if entry.is_file(follow_symlinks=False):
            files[entry.name] = Path(entry.path).read_bytes().decode("utf-8")
        else:
            others.append(entry.name)
    return ExportListing(files, sorted(others))


# --------------------------------------------------------------------------------------------------------
# A config for `memwarm init-backends`


def _custom_collection_base(wanted: str, agent_segment: str, taken: set[str]) -> str | None:
    """A `memory.qmd.paths[].name` that the settings resolver turns into `wanted`, or None.

    `<base>-<agent>` comes from name `<base>`; `<base>-<agent>-<n>` from `<base>` again once the
    earlier ones are taken. Other names cannot be produced by a config (the resolver scopes every name).
    """
    suffix = f"-{agent_segment}"
    numbered = re.fullmatch(r"(.+)-(\d+)", wanted)
    for scoped in (wanted, numbered.group(1) if numbered else None):
        if scoped is None or not scoped.endswith(suffix) or len(scoped) == len(suffix):
            continue
        base = scoped[: -len(suffix)]
        if ensure_unique_name(scope_collection_base(base, agent_segment), set(taken)) == wanted:
            return base
    return None


def case_config(
    case: dict[str, Any], tree: SessionsCaseTree, *, qmd_command: str = "qmd", default_memory: bool = True
) -> dict[str, Any]:
    """An OpenClaw config that runs this case: qmd backend, sessions on, the case's retention and
    exportDir, one agent with workspace W, and collections that take the same names before the
    sessions collection (as far as a config can; the sessions collection gets the same name).

    `default_memory=False` turns the default memory collections off for a case that does not name
    its collections (the sessions collection's name does not depend on them): less qmd work."""
    agent_segment = sanitize_collection_name(tree.agent_id)
    qmd: dict[str, Any] = {"command": qmd_command, "sessions": case_sessions_block(case)}
    wanted = case.get("collections")
    if wanted is not None:
        defaults = {f"{base}-{agent_segment}" for base in DEFAULT_COLLECTION_BASES}
        include_defaults = any(name in defaults for name in wanted)
        taken = defaults.copy() if include_defaults else set()
        paths: list[dict[str, str]] = []
        for name in wanted:
            base = None if name in defaults else _custom_collection_base(name, agent_segment, taken)
            if base is not None:
                ensure_unique_name(scope_collection_base(base, agent_segment), taken)
                paths.append({"path": f"collections/{len(paths) + 1}", "name": base})
        qmd["includeDefaultMemory"] = include_defaults
        qmd["paths"] = paths
    elif not default_memory:
        qmd["includeDefaultMemory"] = False
    return {
        "memory": {"backend": "qmd", "qmd": qmd},
        "agents": {"list": [{"id": tree.agent_id, "default": True, "workspace": str(tree.workspace)}]},
    }


def write_case_config(
    case: dict[str, Any],
    tree: SessionsCaseTree,
    path: Path,
    *,
    qmd_command: str = "qmd",
    default_memory: bool = True,
) -> dict[str, Any]:
    """Write `case_config` to `path` (JSON) and create the custom collections' directories under W."""
    config = case_config(case, tree, qmd_command=qmd_command, default_memory=default_memory)
    for entry in config["memory"]["qmd"].get("paths", []):
        (tree.workspace / entry["path"]).mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config, indent=2, ensure_ascii=False), encoding="utf-8")
    return config


# --------------------------------------------------------------------------------------------------------
# Secrets the reference redacted


def _input_message_texts(case: dict[str, Any]) -> Iterator[str]:
    """The raw text of every message in the case's transcripts, read with plain `json` (not memwarm's)."""
    for entry in case["sessions"]:
        raw = (
            base64.b64decode(entry["contentB64"])
            if "contentB64" in entry
            else entry.get("content", "").encode()
        )
        for line in raw.decode("utf-8", "replace").split("\n"):
            try:
                content = json.loads(line)["message"]["content"]
            except (ValueError, KeyError, TypeError):
                continue
            blocks = content if isinstance(content, list) else [content]
            for block in blocks:
                text = block.get("text") if isinstance(block, dict) else block
                if isinstance(text, str):
                    yield text


_SEPARATORS = str.maketrans(dict.fromkeys(JS_WHITESPACE + "\"'=:,{}()", " "))


def redacted_secrets(case: dict[str, Any]) -> set[str]:
    """Secret-looking values of the inputs that the reference output no longer contains.

    A value is a whitespace/quote/`=`/`:`-separated token of 5+ characters with a letter or digit.
    Only cases whose expected output shows redaction marks (`***` or `…`) are considered.
    """
    expected_texts = list(case["expected"]["files"].values())
    if not any("***" in text or "…" in text for text in expected_texts):
        return set()
    secrets: set[str] = set()
    for text in _input_message_texts(case):
        for token in text.translate(_SEPARATORS).split(" "):
            looks_secret = len(token) >= 5 and any(ch.isalnum() for ch in token)
            if looks_secret and not any(token in expected for expected in expected_texts):
                secrets.add(token)
    return secrets
