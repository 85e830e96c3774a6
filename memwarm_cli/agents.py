"""Agent ids, the default agent and workspace directories (config.md §8, with its pinned choices).

Works on the raw (unvalidated) config: a value of the wrong type counts as absent.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memwarm_cli.config.paths import resolve_home_dir, resolve_state_dir, resolve_user_path
from memwarm_cli.errors import UnknownAgentError
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_trim, js_trimmed_string, js_truthy

DEFAULT_AGENT_ID = "main"
MAX_AGENT_ID_LENGTH = 64
_VALID_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}", re.IGNORECASE | re.ASCII)
_INVALID_RUN = re.compile(r"[^a-z0-9_-]+")
_LEADING_DASHES = re.compile(r"^-+")
_TRAILING_DASHES = re.compile(r"-+$")


def normalize_agent_id(value: object) -> str:
    """`normalizeAgentId`: a valid id lowercased, else a slug of it, else `main`.

    Non-string values (which upstream's schema rejects) count as missing.
    """
    text = js_trim(value) if isinstance(value, str) else ""
    if not text:
        return DEFAULT_AGENT_ID
    if _VALID_ID.fullmatch(text):
        return text.lower()
    slug = _INVALID_RUN.sub("-", text.lower())
    slug = _TRAILING_DASHES.sub("", _LEADING_DASHES.sub("", slug))[:MAX_AGENT_ID_LENGTH]
    return slug or DEFAULT_AGENT_ID


def _agents_section(cfg: Mapping[str, Any]) -> Mapping[str, Any]:
    agents = cfg.get("agents") if isinstance(cfg, Mapping) else None
    return agents if isinstance(agents, Mapping) else {}


def _defaults_section(cfg: Mapping[str, Any]) -> Mapping[str, Any]:
    defaults = _agents_section(cfg).get("defaults")
    return defaults if isinstance(defaults, Mapping) else {}


def list_agent_entries(cfg: Mapping[str, Any]) -> list[dict[str, Any]]:
    """`cfg.agents.list` when it is an array, keeping only the entries that are objects."""
    entries = _agents_section(cfg).get("list")
    if not isinstance(entries, list):
        return []
    return [entry for entry in entries if isinstance(entry, dict)]


def list_agent_ids(cfg: Mapping[str, Any]) -> list[str]:
    """Normalized ids in list order, first occurrence kept; `["main"]` without entries."""
    entries = list_agent_entries(cfg)
    if not entries:
        return [DEFAULT_AGENT_ID]
    ids: list[str] = []
    seen: set[str] = set()
    for entry in entries:
        agent_id = normalize_agent_id(entry.get("id"))
        if agent_id not in seen:
            seen.add(agent_id)
            ids.append(agent_id)
    return ids or [DEFAULT_AGENT_ID]


def default_agent_entry(cfg: Mapping[str, Any]) -> dict[str, Any] | None:
    """The entry the default agent comes from: the first with a truthy `default`, else the first."""
    entries = list_agent_entries(cfg)
    if not entries:
        return None
    for entry in entries:
        if js_truthy(entry.get("default")):
            return entry
    return entries[0]


def resolve_default_agent_id(cfg: Mapping[str, Any]) -> str:
    """Pinned rule: the first entry with a truthy `default`, else the first entry; no entries: `main`."""
    entry = default_agent_entry(cfg)
    if entry is None:
        return DEFAULT_AGENT_ID
    return normalize_agent_id(entry.get("id"))


def find_agent_entry(cfg: Mapping[str, Any], agent_id: str) -> dict[str, Any] | None:
    """The first list entry whose normalized id equals the normalized `agent_id`."""
    wanted = normalize_agent_id(agent_id)
    for entry in list_agent_entries(cfg):
        if normalize_agent_id(entry.get("id")) == wanted:
            return entry
    return None


def _strip_nul(path: Path) -> Path:
    text = str(path)
    return Path(text.replace("\0", "")) if "\0" in text else path


def resolve_default_workspace_dir(env: Mapping[str, str]) -> Path:
    """`OPENCLAW_WORKSPACE_DIR`, else `<home>/.openclaw/workspace[-<profile>]` (profile case kept)."""
    override = env.get("OPENCLAW_WORKSPACE_DIR")
    if override is not None:
        resolved = resolve_user_path(override, env)
        if resolved is not None:
            return resolved
    home = resolve_home_dir(env)
    profile = js_trim(env.get("OPENCLAW_PROFILE") or "")
    if profile and profile.lower() != "default":
        return home / ".openclaw" / f"workspace-{profile}"
    return home / ".openclaw" / "workspace"


@record
class Agent:
    id: str
    is_default: bool
    workspace: Path
    entry: Mapping[str, Any] | None


@record
class _AgentIndex:
    """What every per-agent lookup needs, computed once per config: lookups in a loop over 10,000
    agents must not rescan (and re-normalise) the whole list each time."""

    ids: list[str]  # listAgentIds order
    entries: dict[str, dict[str, Any]]  # normalised id -> first entry with it
    default_id: str
    fallback: Path | None  # agents.defaults.workspace, resolved


def _index(cfg: Mapping[str, Any], env: Mapping[str, str]) -> _AgentIndex:
    entries: dict[str, dict[str, Any]] = {}
    for entry in list_agent_entries(cfg):
        entries.setdefault(normalize_agent_id(entry.get("id")), entry)
    fallback_text = js_trimmed_string(_defaults_section(cfg).get("workspace"))
    fallback = resolve_user_path(fallback_text, env) if fallback_text is not None else None
    return _AgentIndex(list(entries) or [DEFAULT_AGENT_ID], entries, resolve_default_agent_id(cfg), fallback)


def _workspace(index: _AgentIndex, agent: str, env: Mapping[str, str]) -> Path:
    """`resolveAgentWorkspaceDir` (§8.3 with the pinned choices) for a normalised id."""
    entry = index.entries.get(agent)
    own = js_trimmed_string(entry.get("workspace")) if entry is not None else None
    if own is not None:
        resolved = resolve_user_path(own, env)
        if resolved is not None:
            return _strip_nul(resolved)
    fallback = index.fallback
    if agent == index.default_id:
        return _strip_nul(fallback if fallback is not None else resolve_default_workspace_dir(env))
    if fallback is not None:
        return _strip_nul(Path(os.path.join(fallback, agent)))
    return _strip_nul(resolve_state_dir(env) / f"workspace-{agent}")


def resolve_agent_workspace_dir(cfg: Mapping[str, Any], agent_id: str, env: Mapping[str, str]) -> Path:
    """`resolveAgentWorkspaceDir` (§8.3 with the pinned choices)."""
    return _workspace(_index(cfg, env), normalize_agent_id(agent_id), env)


def _agent(index: _AgentIndex, env: Mapping[str, str], agent_id: str) -> Agent:
    return Agent(
        id=agent_id,
        is_default=agent_id == index.default_id,
        workspace=_workspace(index, agent_id, env),
        entry=index.entries.get(agent_id),
    )


def resolve_agents(cfg: Mapping[str, Any], env: Mapping[str, str]) -> list[Agent]:
    """Every agent, in `listAgentIds` order."""
    index = _index(cfg, env)
    return [_agent(index, env, agent_id) for agent_id in index.ids]


def select_agent(cfg: Mapping[str, Any], env: Mapping[str, str], requested: str | None) -> Agent:
    """The requested agent (matched by normalized id), or the default agent when `requested` is None."""
    index = _index(cfg, env)
    if requested is None:
        return _agent(index, env, index.default_id)
    wanted = normalize_agent_id(requested)
    if wanted not in index.entries and wanted not in index.ids:
        raise UnknownAgentError(requested, index.ids)
    return _agent(index, env, wanted)
