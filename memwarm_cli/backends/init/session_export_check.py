"""The session export's `config check` findings: export dirs that init-backends refuses, that agents
share or that lie outside the agent's own state, and the secrets the release's redaction leaves in
clear (the formats, and per agent what memwarm's last export pass counted)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from memwarm_cli.agents import resolve_agents
from memwarm_cli.backends.init.session_export_step import homes_of
from memwarm_cli.backends.sessions.export_cache import CACHE_FILE_NAME, MAX_CACHE_BYTES, parse_cache
from memwarm_cli.backends.sessions.redaction.clear_secrets import add_counts, labelled
from memwarm_cli.backends.sessions.session_config import CLEAR_TEXT_NOTICE, export_dir_refusal
from memwarm_cli.backends.sessions.stale_exports import is_within
from memwarm_cli.backends.settings.agent_backend import resolve_agent_backend
from memwarm_cli.backends.settings.backend_choice import resolve_backend_choice
from memwarm_cli.jsstring import js_truthy
from memwarm_cli.safe_files import FileTooLargeError, NotRegularFileError, read_bounded

if TYPE_CHECKING:
    from memwarm_cli.config import LoadedConfig
    from memwarm_cli.profiles.releases import Profile

Severity = Literal["error", "warning"]


def session_export_findings(loaded: LoadedConfig, *, profile: Profile) -> list[tuple[Severity, str, str]]:
    """(severity, config path, message) for `config check`: an export dir that agents share (an error:
    init-backends refuses each of them), each agent's export dir that memwarm refuses, one outside the
    agent's qmd state (the gateway's stale cleanup deletes every *.md in it), and, when any agent exports
    sessions, the secret formats the release's redaction leaves in clear."""
    choice = resolve_backend_choice(loaded.data)  # memory.qmd is global: one look decides for every agent
    sessions = choice.qmd_block.get("sessions")
    if choice.backend != "qmd" or not isinstance(sessions, dict) or not js_truthy(sessions.get("enabled")):
        return []
    where = "memory.qmd.sessions.exportDir"
    findings: list[tuple[Severity, str, str]] = []
    owners: dict[str, list[str]] = {}
    exporting = False
    for agent in resolve_agents(loaded.data, loaded.env, profile=profile):
        try:
            backend = resolve_agent_backend(
                loaded.data,
                agent.id,
                agent.entry,
                agent.workspace,
                loaded.state_dir,
                loaded.env,
                profile=profile,
            )
        except (OSError, ValueError):
            continue
        qmd = backend.qmd
        if qmd is None or not qmd.sessions.enabled:
            continue
        exporting = True
        export_dir = qmd.sessions.export_dir
        in_clear = _clear_findings(loaded, agent.id, qmd.sessions.agent_qmd_dir, export_dir)
        if in_clear is not None:
            findings.append(("warning", "memory.qmd.sessions", in_clear))
        if "\0" not in str(export_dir):
            owners.setdefault(os.path.realpath(export_dir), []).append(agent.id)
        others = [spec.path for spec in qmd.collections if spec.kind != "sessions"]
        refusal = export_dir_refusal(
            export_dir,
            sessions_dir=qmd.sessions.sessions_dir,
            protected_dirs=[Path(agent.workspace), Path(agent.workspace, "memory"), *others],
            notes_dirs=[Path(agent.workspace, "memory")],
            homes=homes_of(loaded.env),
        )
        if refusal is not None:
            findings.append(("warning", where, f'agent "{agent.id}": init-backends refuses this: {refusal}'))
        elif "\0" not in str(export_dir) and not is_within(export_dir, qmd.sessions.agent_qmd_dir):
            findings.append(
                (
                    "warning",
                    where,
                    f'agent "{agent.id}": export dir {export_dir} is outside the agent\'s own state '
                    f"({qmd.sessions.agent_qmd_dir}): the gateway's stale-export cleanup deletes every *.md "
                    "directly in it, the user's too (memwarm's deletes only the exports it wrote); leave "
                    "exportDir unset or give it a directory of its own",
                )
            )
    for shared, agent_ids in owners.items():
        if len(agent_ids) > 1:
            names = ", ".join(f'"{agent_id}"' for agent_id in agent_ids)
            findings.append(
                (
                    "error",
                    where,
                    f"agents {names} share the export dir {shared}: init-backends refuses each of them "
                    "(each agent's stale-export cleanup would delete the others' exports; give each agent "
                    "its own exportDir)",
                )
            )
    if exporting:
        findings.append(("warning", "memory.qmd.sessions", CLEAR_TEXT_NOTICE))
    return findings


def _clear_findings(loaded: LoadedConfig, agent_id: str, qmd_dir: Path, export_dir: Path) -> str | None:
    """What the agent's last export pass (its cache) counted in clear, as a `config check` line."""
    try:
        data, _ = read_bounded(qmd_dir / CACHE_FILE_NAME, MAX_CACHE_BYTES, follow_symlinks=False)
        entries = parse_cache(json.loads(data), str(export_dir))
    except (OSError, ValueError, FileTooLargeError, NotRegularFileError):  # no export yet, or unusable
        return None
    counts: dict[int, int] = {}
    for entry in entries.values():
        add_counts(entry.clear_secrets, counts)
    total = sum(counts.values())
    if not total:
        return None
    kinds = "; ".join(f"{label}: {count}" for label, count in labelled(counts).items())
    return (
        f'agent "{agent_id}": {total} secret{"s" if total != 1 else ""} in clear in its session exports and '
        f"the qmd index, as memwarm last exported them ({kinds})"
    )
