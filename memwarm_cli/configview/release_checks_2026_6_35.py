"""What makes OpenClaw 2026.6.35 refuse a config, beyond the field schema (schema_2026_6_35.py): profiles
P0 and P1 (the extended-stable line, 2026.6.x and 2026.7.x, held to 6.35's and 7.35's verdicts).

The release validates in steps (research config-validate.md §2, `readConfigFileSnapshot`): a top level
that is no object is invalid; the schema, with its root refinement (every `bindings[].agentId` and
`broadcast` id must name a listed agent; run only when `agents.list` has entries and nothing before it
stopped Zod: a wrong type, a bad enum value or an unknown key does, a number out of range does not);
then, only for a config the schema accepts, no two agents may share an effective agentDir.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping

from memwarm_cli.agents import normalize_agent_id
from memwarm_cli.config import resolve_user_path
from memwarm_cli.config.positions import PNode, join_path
from memwarm_cli.configview.agent_dirs import bound_agent_ids, duplicate_agent_dir_message
from memwarm_cli.configview.schema_2026_6_35 import check_schema
from memwarm_cli.configview.schema_types import Issue
from memwarm_cli.jsstring import js_truthy
from memwarm_cli.profiles.releases import Profile

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def release_errors(
    data: Any, positions: PNode | None, env: Mapping[str, str], state_dir: str, profile: Profile
) -> list[Issue]:
    """Every finding of 2026.6.35's schema and of its steps after it, in the release's order (`profile`
    is unused: P0 and P1 judge alike)."""
    issues = check_schema(data, positions)
    errors = [issue for issue in issues if issue.severity == "error"]
    if all(issue.continues for issue in errors):
        issues += reference_findings(data, positions)
    if not any(issue.severity == "error" for issue in issues):
        issues += agent_dir_findings(data, positions, env, state_dir)
    return issues


def _unknown_agent(agent_id: str) -> str:
    return f'Unknown agent id "{agent_id}" (not in agents.list).'


def reference_findings(data: Mapping[str, Any], positions: PNode | None) -> list[Issue]:
    """The root refinement: `bindings[i].agentId` (normalised) and `broadcast.<peer>[j]` (as written)
    must be the id of an `agents.list` entry; nothing is checked while the list is empty."""
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
    data: Mapping[str, Any], positions: PNode | None, env: Mapping[str, str], state_dir: str
) -> list[Issue]:
    """`findDuplicateAgentDirs`: the agents the config names (the default agent, every entry, every
    binding's agentId; normalised, once each) and the agentDir each resolves to (its entry's trimmed
    `agentDir` through resolveUserPath, else `<stateDir>/agents/<id>/agent`); one finding at
    `agents.list` when two share one."""
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
