"""What makes OpenClaw 2026.6.35 refuse a config, beyond the field schema (schema.py), and the refusal
that the commands acting on a config (`init-backends`, `status`, `search`) share.

The release validates in steps (research config-validate.md §2, `readConfigFileSnapshot`): a top level
that is no object is invalid; the schema, with its root refinement (every `bindings[].agentId` and
`broadcast` id must name a listed agent; run only when `agents.list` has entries and nothing before it
stopped Zod: a wrong type, a bad enum value or an unknown key does, a number out of range does not);
then, only for a config the schema accepts, no two agents may share an effective agentDir.

`release_errors` gives these findings for the schema the run's profile names (`Profile.config_schema`:
this module for 2026.6.35's, release_checks_p2.py for 2026.9.6's); `refuse_rejected_config` turns the
first into the one-line config error (exit 3) a command stops with: a config the selected release would
refuse never leads to a silent success, because the gateway would not run on it at all.
`duplicate_defaults` finds a config the release accepts but whose memory search fails (a custom
collection equal to a default one).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from memwarm_cli.config.positions import PNode, join_path
from memwarm_cli.configview.agent_dirs import bound_agent_ids, duplicate_agent_dir_message
from memwarm_cli.configview.schema_types import Issue
from memwarm_cli.errors import ConfigError
from memwarm_cli.profiles.releases import Profile
from memwarm_cli.textsafe import clip


def release_name(*, profile: Profile, version: str | None) -> str:
    """`OpenClaw 2026.9.6`: the release a refusal is said of (the run's version, else the profile's
    reference release)."""
    return f"OpenClaw {clip(version.strip()) if version else profile.reference}"


class ConfigRejectedError(ConfigError):
    """The selected release refuses this config: the command does not act on it (exit 3)."""


def _unknown_agent(agent_id: str) -> str:
    return f'Unknown agent id "{agent_id}" (not in agents.list).'


def reference_findings(data: Mapping[str, Any], positions: PNode | None) -> list[Issue]:
    """The root refinement: `bindings[i].agentId` (normalised) and `broadcast.<peer>[j]` (as written)
    must be the id of an `agents.list` entry; nothing is checked while the list is empty."""
    from memwarm_cli.agents import normalize_agent_id

    agents = data.get("agents")
    entries = agents.get("list") if isinstance(agents, dict) else None
    if not isinstance(entries, list) or not entries:
        return []
    ids = [entry.get("id") for entry in entries if isinstance(entry, dict)]
    normalized = {normalize_agent_id(i) for i in ids}
    out: list[Issue] = []
    bindings = data.get("bindings")
    node = positions.child("bindings") if positions is not None else None
    if isinstance(bindings, list):
        for index, binding in enumerate(bindings):
            agent_id = binding.get("agentId") if isinstance(binding, dict) else None
            if isinstance(agent_id, str) and normalize_agent_id(agent_id) not in normalized:
                item = node.child(index) if node is not None else None
                at = item.child("agentId") if item is not None else None
                path = join_path(join_path("bindings", index), "agentId")
                out.append(Issue("error", path, _unknown_agent(agent_id), at or item, continues=True))
    broadcast = data.get("broadcast")
    node = positions.child("broadcast") if positions is not None else None
    if isinstance(broadcast, dict):
        for peer, listed in broadcast.items():
            if peer == "strategy" or not isinstance(listed, list):
                continue
            peer_node = node.child(peer) if node is not None else None
            for index, agent_id in enumerate(listed):
                if agent_id not in ids:
                    at = peer_node.child(index) if peer_node is not None else None
                    path = join_path(join_path("broadcast", peer), index)
                    out.append(Issue("error", path, _unknown_agent(str(agent_id)), at, continues=True))
    return out


def _canonical(path: str) -> str:
    return path.lower() if sys.platform in ("darwin", "win32") else path


def agent_dir_findings(
    data: Mapping[str, Any], positions: PNode | None, env: Mapping[str, str], state_dir: Path
) -> list[Issue]:
    """`findDuplicateAgentDirs`: the agents the config names (the default agent, every entry, every
    binding's agentId; normalised, once each) and the agentDir each resolves to (its entry's trimmed
    `agentDir` through resolveUserPath, else `<stateDir>/agents/<id>/agent`); one finding at
    `agents.list` when two share one."""
    from memwarm_cli.agents import normalize_agent_id
    from memwarm_cli.config import resolve_user_path
    from memwarm_cli.jsstring import js_truthy

    agents = data.get("agents")
    raw_list = agents.get("list") if isinstance(agents, dict) else None
    entries = [e for e in raw_list if isinstance(e, dict)] if isinstance(raw_list, list) else []
    marked = next((e for e in entries if js_truthy(e.get("default"))), None)
    # `find(a => a.default)?.id ?? list[0]?.id ?? "main"`
    default_id = marked.get("id") if marked is not None else None
    if default_id is None:
        default_id = entries[0].get("id") if entries else None
    referenced = [normalize_agent_id("main" if default_id is None else default_id)]
    referenced += [normalize_agent_id(e["id"]) for e in entries if js_truthy(e.get("id"))]
    referenced += [normalize_agent_id(agent_id) for agent_id in bound_agent_ids(data)]
    first_entry: dict[str, dict[str, Any]] = {}
    for entry in entries:
        first_entry.setdefault(normalize_agent_id(entry.get("id")), entry)
    by_dir: dict[str, tuple[str, list[str]]] = {}
    for agent_id in dict.fromkeys(referenced):
        found = first_entry.get(agent_id)
        raw = found.get("agentDir") if found is not None else None
        resolved = resolve_user_path(raw, env) if isinstance(raw, str) else None
        agent_dir = (
            str(resolved) if resolved is not None else os.path.join(state_dir, "agents", agent_id, "agent")
        )
        by_dir.setdefault(_canonical(os.path.abspath(agent_dir)), (agent_dir, []))[1].append(agent_id)
    message = duplicate_agent_dir_message(by_dir, _AGENT_DIR_FIX)
    if message is None:
        return []
    node = positions.child("agents") if positions is not None else None
    at = node.child("list") if node is not None else None
    return [Issue("error", "agents.list", message, at or node)]


_AGENT_DIR_FIX = (
    "Fix: remove the shared agents.list[].agentDir override (or give each agent its own directory).",
    "If you want to share credentials, copy auth-profiles.json instead of sharing the entire agentDir.",
)


def duplicate_defaults(
    loaded: Any, agent: Any, qmd_block: Mapping[str, Any], found: dict[str, tuple[str, list[str]]]
) -> None:
    """A custom collection with the path and pattern of a default one (qmd holds one per path and
    pattern: 6.35 swaps them at every open and its search fails). Valid for the release's schema, so a
    warning; init-backends refuses it. The collections are resolved (with their stats) only for an
    agent one of whose entries names the workspace, its memory/ or its MEMORY.md."""
    from memwarm_cli.backends.settings.memory_search import extra_collection_sources, extra_path_sources
    from memwarm_cli.backends.settings.qmd_collections import duplicates_of_defaults, resolve_collections
    from memwarm_cli.config.lookup import lookup

    if qmd_block.get("includeDefaultMemory") is False:
        return
    env, workspace = loaded.env, agent.workspace
    paths = qmd_block.get("paths")
    raw = [e.get("path") for e in paths if isinstance(e, Mapping)] if isinstance(paths, list) else []
    searched = (
        lookup(loaded.data, "agents", "defaults", "memorySearch"),
        lookup(agent.entry, "memorySearch"),
    )
    if any(isinstance(block, Mapping) for block in searched):
        extra = extra_path_sources(loaded.data, agent.entry)
        collections = extra_collection_sources(loaded.data, agent.entry)
        raw += [path for path, _ in extra] + [item.get("path") for item, _ in collections]
    else:
        extra, collections = [], []
    if not any(_may_be_default(r, workspace, env) for r in raw):
        return
    specs, _ = resolve_collections(qmd_block, agent.id, workspace, extra, collections, env)
    for custom, default in duplicates_of_defaults(specs):
        message = (
            f"the collection {custom.name} has the path and pattern of {default.name} (agent "
            f'"{agent.id}": {custom.path}, {custom.pattern}): qmd holds one collection per path and pattern, '
            "so OpenClaw 2026.6.35 swaps the two at every open and its memory search fails (init-backends "
            "refuses it); remove the entry, the default collection indexes these notes already"
        )
        found.setdefault(custom.source, (message, []))[1].append(agent.id)


_DEFAULT_NAMES = (".", "memory", "MEMORY.md")


def _may_be_default(raw: Any, workspace: Path, env: Mapping[str, str]) -> bool:
    """Whether an entry's path resolves to the workspace, its memory/ or its MEMORY.md (a relative path
    without `..` is told by its own text, with no path built: 10,000 agents ask this)."""
    from memwarm_cli.backends.settings.qmd_collections import resolve_collection_path
    from memwarm_cli.jsstring import js_trim

    if not isinstance(raw, str):
        return False
    text = js_trim(raw)
    if text and not text.startswith("~") and not os.path.isabs(text):
        normal = os.path.normpath(text)
        if ".." not in normal.split(os.sep):
            return normal in _DEFAULT_NAMES
    resolved = resolve_collection_path(raw, workspace, env)
    return resolved is not None and str(resolved) in {
        str(workspace),
        os.path.join(workspace, "memory"),
        os.path.join(workspace, "MEMORY.md"),
    }


def release_errors(
    data: Any,
    positions: PNode | None,
    env: Mapping[str, str],
    state_dir: Path,
    *,
    profile: Profile,
) -> list[Issue]:
    """Every finding of the schema of `profile` (its `config_schema`) and of the release's steps after
    it, in the release's order."""
    from memwarm_cli.configview.schema import check_schema

    if profile.config_schema == "2026.9.6":
        from memwarm_cli.configview.release_checks_p2 import release_errors_p2

        return release_errors_p2(data, positions, env, state_dir, profile)
    issues = check_schema(data, positions)
    errors = [issue for issue in issues if issue.severity == "error"]
    if all(issue.continues for issue in errors):
        issues += reference_findings(data, positions)
    if not any(issue.severity == "error" for issue in issues):
        issues += agent_dir_findings(data, positions, env, state_dir)
    return issues


def refuse_rejected_config(
    loaded: Any, *, profile: Profile, version: str | None, origin: str | None = None
) -> None:
    """Raise ConfigRejectedError (exit 3, one line) when the release would refuse `loaded`'s config; the
    first error is named where it stands, with how many there are. Cheap on a valid config: the schema
    walk without positions (the file is read again with them only to place an error).

    `profile` is the run's release profile (memwarm_cli/profiles): its `config_schema` judges;
    `version` the run's release (None: the profile's reference), which the message names; `origin`
    where that release came from and how to name another (OpenClawChoice.origin), said with it."""
    from memwarm_cli.config import load_config

    release = release_name(profile=profile, version=version)
    said = f"{release} refuses this config" + (f"; {origin}" if origin else "")
    source = loaded.source
    if not source.exists:
        return
    data, positions = loaded.data, loaded.positions
    if not data:  # `{}`, or a top level that is no object (the loader reads those as `{}`)
        tracked = load_config(str(source.path), loaded.env, dotenv=False, track=True)
        if tracked.positions is None:
            raise ConfigRejectedError(str(source.path), f"the top-level value is not an object: {said}", 1, 1)
        return
    found = release_errors(data, positions, loaded.env, loaded.state_dir, profile=profile)
    errors = [i for i in found if i.severity == "error"]
    if not errors:
        return
    if positions is None:
        tracked = load_config(str(source.path), loaded.env, dotenv=False, track=True)
        found = release_errors(
            tracked.data, tracked.positions, tracked.env, tracked.state_dir, profile=profile
        )
        errors = [i for i in found if i.severity == "error"] or errors
    first = errors[0]
    loc = first.node.loc if first.node is not None else None
    more = f"; {len(errors) - 1} more" if len(errors) > 1 else ""
    message = (
        f"{first.path or '(top level)'}: {first.message.splitlines()[0]} "
        f"({said}{more}; `memwarm config check` lists every error)"
    )
    raise ConfigRejectedError(
        loc.file if loc else str(source.path), message, loc.line if loc else None, loc.column if loc else None
    )
