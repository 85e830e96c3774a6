"""What makes OpenClaw 2026.8.1 and later (profiles P2, P3) refuse a config, beyond the field schema
(schema_2026_9_6.py): what its loader does to the roster before validating, and the refinements after.

Held to `openclaw@2026.9.6 config validate` (tests/configview/release_validate/verdicts-2026.9.6.json):

- the loader moves `agents.list` to `agents.entries` when every entry is an object whose `id` is a
  string already in normal form (`normalizeAgentId(id) === id`, no surrounding blanks) and no id
  repeats (`parseLegacyAgentRoster`); the entries are then judged as `agents.entries.<id>`. A list it
  cannot move stays: `list` is an unknown key of `agents`, and the roster is empty;
- with no roster (or an empty one) and no `agents.ownership`, the loader adds the implicit `main` agent;
  one `default: true` marker in a larger roster is turned into explicit ownership;
- the roster's refinement: at least one entry, no two keys naming the same agent, at most one default
  marker, `ownership: "explicit"` without markers, and a roster of more than one agent needs
  `ownership: "explicit"` or one marker; run, as the root refinement, only when nothing inside stopped
  Zod: 2026.8.2 (Zod 4.4) stops at an unknown key, 2026.9.6 (Zod 4.6) does not
  (`Profile.refines_past_unknown_keys`; verdicts-2026.8.2.json, verdicts-2026.9.6.json);
- the root refinement: `bindings[].agentId` (but "main") and the other agent references must name an
  entry, run only when nothing before it stopped Zod (as for 6.35);
- then, for a config the schema accepts, no two agents may share an effective agentDir;
- `agents.defaults.contextTokens` (and an entry's) is dropped with a warning, not refused.

A retired key's error says what the release does and what `openclaw doctor --fix` changes (its legacy
texts and the changes doctor printed, recorded in verdicts-2026.9.6.json's "doctor").
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from memwarm_cli.agents import normalize_agent_id
from memwarm_cli.config import resolve_user_path
from memwarm_cli.config.positions import PNode, join_path
from memwarm_cli.configview.agent_dirs import bound_agent_ids, duplicate_agent_dir_message
from memwarm_cli.configview.schema_2026_9_6 import check_schema
from memwarm_cli.configview.schema_types import UNKNOWN_KEY, Issue
from memwarm_cli.frozen_records import replace
from memwarm_cli.jsstring import js_trim
from memwarm_cli.profiles.releases import Profile

CONTEXT_TOKENS_WARNING = (
    "{path} cannot be represented per model: OpenClaw 2026.8.1 and later drop it when loading the config "
    "(use models.providers.<provider>.models[].contextTokens instead); `openclaw doctor --fix` removes it"
)
LIST_MOVED = (
    "agents.list moved to keyed agents.entries (OpenClaw 2026.8.1 and later); this list cannot be moved "
    "because {why}, so the release refuses it. Give each entry a unique id in normal form (lowercase "
    "letters, digits, '_' or '-'), or run `openclaw doctor --fix`, which moves it to agents.entries"
)

LIST_READ_AS_ENTRIES = (
    "OpenClaw 2026.8.1 and later read agents.list as keyed agents.entries (the loader moves it, each "
    "entry under its id); `openclaw doctor --fix` rewrites it so "
    '("Moved agents.list → keyed agents.entries.")'
)


def _child(node: PNode | None, key: str | int) -> PNode | None:
    return node.child(key) if node is not None else None


def _normalize(value: str) -> str:
    return normalize_agent_id(value)


def _list_problem(value: Any) -> str | None:
    """Why `parseLegacyAgentRoster` refuses the list, or None when it moves it."""
    if not isinstance(value, list):
        return "it is not an array"
    seen: set[str] = set()
    for index, entry in enumerate(value):
        if not isinstance(entry, dict):
            return f"agents.list[{index}] is not an object"
        agent_id = entry.get("id")
        if not isinstance(agent_id, str) or not agent_id:
            return f"agents.list[{index}] has no id"
        if agent_id.strip() != agent_id or _normalize(agent_id) != agent_id:
            normal = _normalize(agent_id)
            return f'the id "{agent_id}" of agents.list[{index}] is not in normal form ("{normal}")'
        if agent_id in seen:
            return f'the id "{agent_id}" is given twice'
        seen.add(agent_id)
        if "default" in entry and not isinstance(entry["default"], bool):
            return f"the default of agents.list[{index}] is not true or false"
    return None


class _Moved:
    """The config as the release validates it: the roster moved or completed, positions kept."""

    def __init__(self, data: dict[str, Any], positions: PNode | None) -> None:
        self.data = data
        self.positions = positions
        self.issues: list[Issue] = []
        self.moved_from: dict[str, int] = {}  # entry id -> index in agents.list it came from
        self.unmoved_list: PNode | None = None  # where a list the loader could not move stands


def _move_roster(data: dict[str, Any], positions: PNode | None) -> _Moved:
    agents = data.get("agents", {})
    out = _Moved(data, positions)
    if not isinstance(agents, dict):
        return out
    agents_node = _child(positions, "agents")
    agents = dict(agents)
    agents_children = (
        dict(agents_node.children) if agents_node and isinstance(agents_node.children, dict) else {}
    )
    if "list" in agents and "entries" not in agents:
        raw = agents["list"]
        why = _list_problem(raw)
        if why is not None:
            at = agents_children.get("list")
            out.issues.append(
                Issue("error", "agents.list", f"{UNKNOWN_KEY}: {LIST_MOVED.format(why=why)}", at)
            )
            del agents["list"]  # judged here, not again by the schema
            out.data = {**data, "agents": agents}
            out.unmoved_list = at or agents_node
            return out
        list_node = agents_children.pop("list", None)
        entries: dict[str, Any] = {}
        entry_nodes: dict[str, PNode] = {}
        for index, entry in enumerate(raw):
            agent_id = entry["id"]
            entries[agent_id] = {k: v for k, v in entry.items() if k != "id"}
            out.moved_from[agent_id] = index
            item_node = _child(list_node, index)
            if item_node is not None:
                entry_nodes[agent_id] = item_node
        del agents["list"]
        agents["entries"] = entries
        if list_node is not None:
            agents_children["entries"] = PNode(list_node.loc, entry_nodes)
        out.issues.append(Issue("warning", "agents.list", LIST_READ_AS_ENTRIES, list_node))
    entries_value = agents.get("entries")
    if (entries_value is None or entries_value == {}) and agents.get("ownership") != "explicit":
        agents["entries"] = {"main": {}}  # the implicit main agent
    out.data = {**data, "agents": agents}
    if agents_node is not None:
        new_agents = PNode(agents_node.loc, agents_children)
        root_children = dict(positions.children) if positions and isinstance(positions.children, dict) else {}
        root_children["agents"] = new_agents
        out.positions = PNode(positions.loc, root_children) if positions is not None else None
    return out


def _roster_findings(moved: _Moved) -> list[Issue]:
    """The `AgentsSchema` refinement on the roster as the loader left it (a list it could not move
    leaves none)."""
    agents = moved.data.get("agents")
    if not isinstance(agents, dict):
        return []
    entries = agents.get("entries")
    if entries is not None and not isinstance(entries, dict):
        return []
    node = _child(moved.positions, "agents")
    out: list[Issue] = []
    items = list((entries or {}).items())
    if not items:
        unmoved = " (agents.list was not moved)" if moved.unmoved_list is not None else ""
        at = moved.unmoved_list or _child(node, "entries") or node
        message = f"agents.entries must contain at least one configured agent{unmoved}"
        out.append(Issue("error", "agents.entries", message, at, continues=True))
    first: dict[str, str] = {}
    for key, _ in items:
        agent_id = _normalize(key)
        if agent_id in first:
            message = (
                f'agents.entries keys "{first[agent_id]}" and "{key}" resolve to the same agent id '
                f'"{agent_id}"; rename one key so each agent has a unique id'
            )
            at = _child(_child(node, "entries"), key)
            out.append(Issue("error", join_path("agents.entries", key), message, at, continues=True))
        else:
            first[agent_id] = key
    marked = [key for key, entry in items if isinstance(entry, dict) and entry.get("default") is True]
    explicit = agents.get("ownership") == "explicit"
    if len(marked) > 1:
        message = f"agents.entries must contain at most one default=true entry (found {len(marked)})"
        out.append(Issue("error", "agents.entries", message, _child(node, "entries") or node, continues=True))
    if explicit and marked:
        message = "agents.ownership=explicit cannot be combined with a legacy default=true marker"
        out.append(
            Issue("error", "agents.ownership", message, _child(node, "ownership") or node, continues=True)
        )
    if len(items) > 1 and not marked and not explicit:
        message = (
            'multi-agent rosters require agents.ownership="explicit" or one legacy default=true marker; add '
            'agents.ownership="explicit" or run `openclaw doctor --fix`, which adds it'
        )
        out.append(Issue("error", "agents.ownership", message, node, continues=True))
    return out


def _reference_findings(moved: _Moved) -> list[Issue]:
    """The root refinement: `bindings[i].agentId` (but "main") must name an entry, once there is one."""
    agents = moved.data.get("agents")
    entries = agents.get("entries") if isinstance(agents, dict) else None
    if not isinstance(entries, dict) or not entries:
        return []
    known = {_normalize(key) for key in entries}
    out: list[Issue] = []
    bindings = moved.data.get("bindings")
    node = _child(moved.positions, "bindings")
    if isinstance(bindings, list):
        for index, binding in enumerate(bindings):
            agent_id = binding.get("agentId") if isinstance(binding, dict) else None
            if isinstance(agent_id, str) and agent_id != "main" and _normalize(agent_id) not in known:
                item = _child(node, index)
                at = _child(item, "agentId") or item
                message = f'Unknown agent id "{agent_id}" (not in agents.entries).'
                out.append(Issue("error", f"bindings[{index}].agentId", message, at, continues=True))
    return out


AGENT_DIR_FIX = (
    "Fix: remove the shared agents.entries.*.agentDir override (or give each agent its own directory).",
    "Auth profiles live in each agent's SQLite store, so a shared agentDir is not how credentials are "
    "shared: give each agent its own directory and either leave its store empty to inherit the main agent's "
    "profiles, or log it in with `openclaw models auth login`.",
)


def _agent_dir_findings(moved: _Moved, env: Mapping[str, str], state_dir: str) -> list[Issue]:
    """`findDuplicateAgentDirs` on the validated config: the agents it names (the marked default, every
    entry, every binding's agentId; normalised, once each) and the agentDir each resolves to (its
    entry's trimmed `agentDir` through resolveUserPath, else `<stateDir>/agents/<id>/agent`, with
    symlinks resolved); one finding at `agents.entries` when two share one."""
    agents = moved.data.get("agents")
    entries = agents.get("entries") if isinstance(agents, dict) else None
    if not isinstance(entries, dict):
        return []
    by_id = {_normalize(key): entry for key, entry in entries.items() if isinstance(entry, dict)}
    referenced = [
        _normalize(key) for key, entry in entries.items() if isinstance(entry, dict) and entry.get("default")
    ]
    referenced += list(by_id)
    referenced += [_normalize(agent_id) for agent_id in bound_agent_ids(moved.data)]
    ids = list(dict.fromkeys(referenced))
    if len(ids) < 2:
        return []
    by_dir: dict[str, tuple[str, list[str]]] = {}
    for agent_id in ids:
        raw = by_id.get(agent_id, {}).get("agentDir")
        configured = js_trim(raw) if isinstance(raw, str) else ""
        resolved = resolve_user_path(configured, env) if configured else None
        agent_dir = (
            str(resolved) if resolved is not None else os.path.join(state_dir, "agents", agent_id, "agent")
        )
        by_dir.setdefault(os.path.realpath(agent_dir), (agent_dir, []))[1].append(agent_id)
    message = duplicate_agent_dir_message(by_dir, AGENT_DIR_FIX)
    if message is None:
        return []
    node = _child(moved.positions, "agents")
    return [Issue("error", "agents.entries", message, _child(node, "entries") or node)]


def _context_tokens(moved: _Moved) -> list[Issue]:
    agents = moved.data.get("agents")
    if not isinstance(agents, dict):
        return []
    node = _child(moved.positions, "agents")
    out: list[Issue] = []
    defaults = agents.get("defaults")
    if isinstance(defaults, dict) and "contextTokens" in defaults:
        at = _child(_child(node, "defaults"), "contextTokens")
        path = "agents.defaults.contextTokens"
        out.append(Issue("warning", path, CONTEXT_TOKENS_WARNING.format(path=path), at))
    entries = agents.get("entries")
    if isinstance(entries, dict):
        for key, entry in entries.items():
            if isinstance(entry, dict) and "contextTokens" in entry:
                at = _child(_child(_child(node, "entries"), key), "contextTokens")
                path = f"agents.entries.{key}.contextTokens"
                out.append(Issue("warning", path, CONTEXT_TOKENS_WARNING.format(path=path), at))
    return out


def _named_where_written(issue: Issue, moved: _Moved) -> Issue:
    """An issue inside a moved list entry names the entry as written too (the path is the release's)."""
    head, _, rest = issue.path.removeprefix("agents.entries.").partition(".")
    index = moved.moved_from.get(head) if issue.path.startswith("agents.entries.") else None
    if index is None:
        return issue
    written = f"agents.list[{index}]" + (f".{rest}" if rest else "")
    return replace(issue, message=f"{issue.message} (at {written}, read as agents.entries.{head})")


def _refines(issues: list[Issue], profile: Profile, prefix: str = "") -> bool:
    """Whether Zod runs an object's refinement after the issues found inside it (`prefix`: its path):
    only past issues that continue (a number out of range); from Zod 4.6 (2026.9.6) past an unknown key
    too (`Profile.refines_past_unknown_keys`)."""
    for issue in issues:
        if issue.severity != "error" or not (
            issue.path == prefix.rstrip(".") or issue.path.startswith(prefix)
        ):
            continue
        if issue.continues:
            continue
        if profile.refines_past_unknown_keys and issue.message.startswith(UNKNOWN_KEY):
            continue
        return False
    return True


def release_errors(
    data: Any, positions: PNode | None, env: Mapping[str, str], state_dir: str, profile: Profile
) -> list[Issue]:
    """Every finding of 2026.8.1+'s loader, schema and refinements, in the release's order."""
    if not isinstance(data, dict):
        return []
    moved = _move_roster(data, positions)
    issues = list(moved.issues)
    issues += _context_tokens(moved)
    issues += [_named_where_written(issue, moved) for issue in check_schema(moved.data, moved.positions)]
    if _refines(issues, profile, "agents."):
        issues += _roster_findings(moved)
    if _refines(issues, profile):
        issues += _reference_findings(moved)
    if not any(issue.severity == "error" for issue in issues):
        issues += _agent_dir_findings(moved, env, state_dir)
    return issues
