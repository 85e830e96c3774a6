"""Agent ids, the default agent and workspace directories (config.md §8, with its pinned choices), by the
rules of the OpenClaw release a profile names (memwarm_cli/profiles/).

Works on the raw (unvalidated) config: a value of the wrong type counts as absent.

Two shapes of roster (`profile.agent_roster`): `agents.list`, an array of entries with an `id` (up to
2026.7.x), and from 2026.8.1 `agents.entries`, a record keyed by id, which wins when present; the list
is still read when it is absent (a config the release has not rewritten yet). Two rules for the default
agent (`profile.default_agent_rule`):
- "first-marked" (2026.6.35): the first entry with a truthy `default`, else the first entry, else `main`.
  That agent also inherits `agents.defaults.workspace`.
- "ownership" (2026.8.1+): with `agents.ownership: "explicit"`, `agents.defaults.systemAgent.agentId`
  when it names a configured agent, else none; otherwise the one entry with `default: true`, else the
  sole agent, else none (a multi-agent roster without an owner, which the release rejects). The agent
  that inherits `agents.defaults.workspace` (the "legacy data owner") is the unique marker (ignored
  under explicit ownership), else the sole agent; a session key that names no agent belongs to it, and
  without one the session is refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from memwarm_cli.config.paths import resolve_default_workspace_dir, resolve_state_dir, resolve_user_path
from memwarm_cli.errors import UnknownAgentError, UsageError
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_trim, js_trimmed_string, js_truthy
from memwarm_cli.os_paths import join_path, pure_path
from memwarm_cli.profiles.releases import Profile

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

DEFAULT_AGENT_ID = "main"
MAX_AGENT_ID_LENGTH = 64
# Compiled by re's cache when an id needs a slug (rarely: compiling it cost every start).
_INVALID_RUN = r"[^a-z0-9_-]+"


class EmptyAgentIdError(UnknownAgentError):
    """An `--agent` that normalises to no id at all (`..`, `!!!`): no agent, not the default one."""

    def __init__(self, requested: str, known: list[str]) -> None:
        super().__init__(requested, known)
        self.message = (
            f'agent id "{requested}" has no letter, digit, "_" or "-" to keep: it names no agent '
            f"(known agents: {', '.join(known)})"
        )
        self.args = (self.message,)


class NoDefaultAgentError(UsageError):
    """No agent is the default one (2026.8.1+ multi-agent rosters without an owner)."""

    def __init__(self, known: list[str], why: str) -> None:
        self.known = known
        super().__init__(f"no default agent: {why}; pass --agent ID (known agents: {', '.join(known)})")


def _is_valid_id(text: str) -> bool:
    """`/^[a-z0-9][a-z0-9_-]{0,63}$/i`: 1-64 ASCII letters, digits, `_` and `-`, the first a letter or
    digit. In str methods, not a regex compiled at every start (tests/test_agents.py holds them equal)."""
    return (
        0 < len(text) <= MAX_AGENT_ID_LENGTH
        and text.isascii()
        and text[0].isalnum()
        and text.replace("-", "").replace("_", "").isalnum()
    )


def _slug(text: str) -> str:
    # The slug holds only [a-z0-9_-]: strip("-") is upstream's /^-+/ and /-+$/ replaced by "".
    return re.sub(_INVALID_RUN, "-", text.lower()).strip("-")[:MAX_AGENT_ID_LENGTH]


def normalize_agent_id(value: object) -> str:
    """`normalizeAgentId`: a valid id lowercased, else a slug of it, else `main`.

    Non-string values (which upstream's schema rejects) count as missing.
    """
    text = js_trim(value) if isinstance(value, str) else ""
    if not text:
        return DEFAULT_AGENT_ID
    if _is_valid_id(text):
        return text.lower()
    return _slug(text) or DEFAULT_AGENT_ID


def requested_agent_id(value: str) -> str | None:
    """An id typed by the user, normalised; None when nothing of it is left (`..`, `!!!`, blank), where
    `normalize_agent_id` would fall back to `main`."""
    text = js_trim(value)
    if _is_valid_id(text):
        return text.lower()
    return _slug(text) or None


def _agents_section(cfg: Mapping[str, Any] | None) -> Mapping[str, Any]:
    agents = cfg.get("agents") if isinstance(cfg, Mapping) else None
    return agents if isinstance(agents, Mapping) else {}


def _defaults_section(cfg: Mapping[str, Any] | None) -> Mapping[str, Any]:
    defaults = _agents_section(cfg).get("defaults")
    return defaults if isinstance(defaults, Mapping) else {}


def _keyed_roster(cfg: Mapping[str, Any] | None, profile: Profile) -> bool:
    """2026.8.1+: `agents.entries` is present (any value but absent), so it is the roster."""
    return profile.agent_roster == "entries-or-list" and "entries" in _agents_section(cfg)


def has_roster(cfg: Mapping[str, Any] | None, *, profile: Profile) -> bool:
    """The config owns a roster property (`agents.entries` with the keyed roster, or `agents.list`)."""
    agents = _agents_section(cfg)
    return "list" in agents or _keyed_roster(cfg, profile)


def list_agent_entries(cfg: Mapping[str, Any] | None, *, profile: Profile) -> list[dict[str, Any]]:
    """The roster's entries that are objects, each with its `id` (from 2026.8.1 the key of
    `agents.entries` when that is the roster; else `cfg.agents.list` when it is an array)."""
    agents = _agents_section(cfg)
    if _keyed_roster(cfg, profile):
        keyed = agents.get("entries")
        if not isinstance(keyed, Mapping):
            return []
        return [{**entry, "id": key} for key, entry in keyed.items() if isinstance(entry, dict)]
    entries = agents.get("list")
    if not isinstance(entries, list):
        return []
    return [entry for entry in entries if isinstance(entry, dict)]


def roster_label(cfg: Mapping[str, Any] | None, *, profile: Profile) -> str:
    """Where the config's agents are listed, for messages: `agents.entries` or `agents.list`."""
    return "agents.entries" if _keyed_roster(cfg, profile) else "agents.list"


def list_agent_ids(cfg: Mapping[str, Any] | None, *, profile: Profile) -> list[str]:
    """Normalized ids in roster order, first occurrence kept; `["main"]` without entries."""
    entries = list_agent_entries(cfg, profile=profile)
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


def default_agent_entry(cfg: Mapping[str, Any], *, profile: Profile) -> dict[str, Any] | None:
    """The entry the default agent comes from ("first-marked": the first with a truthy `default`, else
    the first; "ownership": the default agent's entry, if any)."""
    entries = list_agent_entries(cfg, profile=profile)
    if not entries:
        return None
    if profile.default_agent_rule == "ownership":
        default = default_agent_id(cfg, profile=profile)
        return next((e for e in entries if normalize_agent_id(e.get("id")) == default), None)
    for entry in entries:
        if js_truthy(entry.get("default")):
            return entry
    return entries[0]


def _explicit(cfg: Mapping[str, Any] | None) -> bool:
    return _agents_section(cfg).get("ownership") == "explicit"


def _unique_marker(cfg: Mapping[str, Any] | None, profile: Profile) -> str | None:
    """`tryResolveRawLegacyDefaultAgentId`: the one entry with `default: true`, unless ownership is
    explicit."""
    if _explicit(cfg):
        return None
    marked = [e for e in list_agent_entries(cfg, profile=profile) if e.get("default") is True]
    return normalize_agent_id(marked[0].get("id")) if len(marked) == 1 else None


def _sole_agent(cfg: Mapping[str, Any] | None, profile: Profile) -> str | None:
    """`tryResolveSoleAgentId`: the only agent; `main` without a roster property; else None."""
    entries = list_agent_entries(cfg, profile=profile)
    if not entries:
        return None if has_roster(cfg, profile=profile) else DEFAULT_AGENT_ID
    return normalize_agent_id(entries[0].get("id")) if len(entries) == 1 else None


def workspace_owner_id(cfg: Mapping[str, Any] | None, *, profile: Profile) -> str | None:
    """The agent that inherits `agents.defaults.workspace` (and the default workspace dir); under
    "ownership" also the agent of a session key that names none. None: no agent does."""
    if profile.default_agent_rule == "ownership":
        return _unique_marker(cfg, profile) or _sole_agent(cfg, profile)
    return resolve_default_agent_id(cfg, profile=profile)


def default_agent_id(cfg: Mapping[str, Any] | None, *, profile: Profile) -> str | None:
    """The default agent's id; None only under "ownership", when no agent is designated."""
    if profile.default_agent_rule != "ownership":
        return resolve_default_agent_id(cfg, profile=profile)
    if _explicit(cfg):
        system = _defaults_section(cfg).get("systemAgent")
        recorded = js_trimmed_string(system.get("agentId")) if isinstance(system, Mapping) else None
        wanted = normalize_agent_id(recorded) if recorded else None
        return wanted if wanted is not None and wanted in list_agent_ids(cfg, profile=profile) else None
    return workspace_owner_id(cfg, profile=profile)


def no_default_reason(cfg: Mapping[str, Any] | None, *, profile: Profile) -> str:
    """Why `default_agent_id` is None, in the release's terms."""
    if _explicit(cfg):
        return (
            'agents.ownership is "explicit" and agents.defaults.systemAgent.agentId names no configured agent'
        )
    return (
        'several agents, none with default: true and no agents.ownership "explicit" (OpenClaw rejects this)'
    )


def resolve_default_agent_id(cfg: Mapping[str, Any] | None, *, profile: Profile) -> str:
    """The default agent's id. NoDefaultAgentError when the profile's rule designates none."""
    if profile.default_agent_rule != "ownership":
        entry = default_agent_entry(cfg or {}, profile=profile)
        return DEFAULT_AGENT_ID if entry is None else normalize_agent_id(entry.get("id"))
    found = default_agent_id(cfg, profile=profile)
    if found is None:
        raise NoDefaultAgentError(
            list_agent_ids(cfg, profile=profile), no_default_reason(cfg, profile=profile)
        )
    return found


def find_agent_entry(
    cfg: Mapping[str, Any] | None, agent_id: str, *, profile: Profile
) -> dict[str, Any] | None:
    """The first roster entry whose normalized id equals the normalized `agent_id`."""
    wanted = normalize_agent_id(agent_id)
    for entry in list_agent_entries(cfg, profile=profile):
        if normalize_agent_id(entry.get("id")) == wanted:
            return entry
    return None


def _strip_nul(path: str) -> str:
    return pure_path(path.replace("\0", "")) if "\0" in path else path


@record
class Agent:
    id: str
    is_default: bool
    workspace: str
    entry: Mapping[str, Any] | None
    # 2026.8.1+: why the workspace is agents.defaults.workspace/<id> and how to change it (one line), the
    # rule that surprises (issue 29); None for any other workspace.
    workspace_rule: str | None = None


@record
class _AgentIndex:
    """What every per-agent lookup needs, computed once per config: lookups in a loop over 10,000
    agents must not rescan (and re-normalise) the whole list each time."""

    ids: list[str]  # listAgentIds order
    entries: dict[str, dict[str, Any]]  # normalised id -> first entry with it
    default_id: str | None
    owner_id: str | None  # the agent that inherits agents.defaults.workspace
    fallback: str | None  # agents.defaults.workspace, resolved
    profile: Profile
    explicit: bool  # agents.ownership is "explicit"
    roster: str  # agents.entries or agents.list


def _index(cfg: Mapping[str, Any], env: Mapping[str, str], profile: Profile) -> _AgentIndex:
    entries: dict[str, dict[str, Any]] = {}
    for entry in list_agent_entries(cfg, profile=profile):
        entries.setdefault(normalize_agent_id(entry.get("id")), entry)
    fallback_text = js_trimmed_string(_defaults_section(cfg).get("workspace"))
    fallback = resolve_user_path(fallback_text, env) if fallback_text is not None else None
    if profile.default_agent_rule == "ownership":
        default_id, owner_id = (
            default_agent_id(cfg, profile=profile),
            workspace_owner_id(cfg, profile=profile),
        )
    else:
        default_id = owner_id = resolve_default_agent_id(cfg, profile=profile)
    ids = list(entries) or [DEFAULT_AGENT_ID]
    explicit, roster = _explicit(cfg), roster_label(cfg, profile=profile)
    return _AgentIndex(ids, entries, default_id, owner_id, fallback, profile, explicit, roster)


def _workspace(index: _AgentIndex, agent: str, env: Mapping[str, str]) -> str:
    """`resolveAgentWorkspaceDir` (§8.3 with the pinned choices) for a normalised id."""
    entry = index.entries.get(agent)
    own = js_trimmed_string(entry.get("workspace")) if entry is not None else None
    if own is not None:
        resolved = resolve_user_path(own, env)
        if resolved is not None:
            return _strip_nul(resolved)
    fallback = index.fallback
    if agent == index.owner_id:
        if fallback is not None:
            return _strip_nul(fallback)
        return _strip_nul(resolve_default_workspace_dir(env, profile=index.profile))
    if fallback is not None:
        return _strip_nul(join_path(fallback, agent))
    return _strip_nul(join_path(resolve_state_dir(env), f"workspace-{agent}"))


def _workspace_rule(index: _AgentIndex, agent: str, workspace: str) -> str | None:
    """The one line `config path`, `show` and `check` (and a missing workspace's warning) give an agent
    whose workspace 2026.8.1+ makes agents.defaults.workspace/<id>."""
    fallback = index.fallback
    if index.profile.default_agent_rule != "ownership" or fallback is None or agent == index.owner_id:
        return None
    if workspace != _strip_nul(join_path(fallback, agent)):
        return None
    who = (
        'with agents.ownership "explicit" no agent inherits it itself'
        if index.explicit
        else "only the one agent with default: true (or a sole agent) inherits it itself"
    )
    fix = f"{index.roster}.{agent}.workspace" if index.roster == "agents.entries" else "its entry's workspace"
    return (
        f'agent "{agent}" has no workspace of its own, so OpenClaw 2026.8.1+ uses '
        f"agents.defaults.workspace/{agent} ({who}); to use another directory, set {fix}"
    )


def _agent(index: _AgentIndex, env: Mapping[str, str], agent_id: str) -> Agent:
    workspace = _workspace(index, agent_id, env)
    return Agent(
        id=agent_id,
        is_default=agent_id == index.default_id,
        workspace=workspace,
        entry=index.entries.get(agent_id),
        workspace_rule=_workspace_rule(index, agent_id, workspace),
    )


def missing_workspace_message(
    agent_id: str, workspace: str, rule: str | None, state: str = "does not exist"
) -> str:
    """`workspace of agent "<id>" does not exist: <path>`, and the 2026.8.1+ rule that put it there."""
    return f'workspace of agent "{agent_id}" {state}: {workspace}' + (f"; {rule}" if rule else "")


def agent_by_id(cfg: Mapping[str, Any], env: Mapping[str, str], agent_id: str, *, profile: Profile) -> Agent:
    """The agent `agent_id` names, configured or not (a session key may name any id: defaults apply)."""
    return _agent(_index(cfg, env, profile), env, normalize_agent_id(agent_id))


def resolve_agents(cfg: Mapping[str, Any], env: Mapping[str, str], *, profile: Profile) -> list[Agent]:
    """Every agent, in `listAgentIds` order."""
    index = _index(cfg, env, profile)
    return [_agent(index, env, agent_id) for agent_id in index.ids]


def select_agent(
    cfg: Mapping[str, Any], env: Mapping[str, str], requested: str | None, *, profile: Profile
) -> Agent:
    """The requested agent (matched by normalized id), or the default agent when `requested` is None.

    UnknownAgentError for an id that is not configured or normalises to nothing (EmptyAgentIdError);
    NoDefaultAgentError when none is requested and the profile's rule designates no default.
    """
    index = _index(cfg, env, profile)
    if requested is None:
        if index.default_id is None:
            raise NoDefaultAgentError(index.ids, no_default_reason(cfg, profile=profile))
        return _agent(index, env, index.default_id)
    wanted = requested_agent_id(requested)
    if wanted is None:
        raise EmptyAgentIdError(requested, index.ids)
    if wanted not in index.entries and wanted not in index.ids:
        raise UnknownAgentError(requested, index.ids)
    return _agent(index, env, wanted)
