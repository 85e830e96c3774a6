"""Session keys: which agent a session belongs to and which class it is (spec §2.1), per release.

`agent:main:main` is the agent's main interactive session; `agent:<id>:subagent:<uuid>` a subagent,
`agent:<id>:cron:<job>` a cron run. Keys that are not agent-scoped belong to the default agent.

How `agent:<id>:<rest>` is split changed in every group (`profile.session_key_shape`, research B.1):
- "split-filtered" (2026.6.35): `split(":")` with empty pieces dropped, so `agent::main:x` is agent
  `main`, rest `x`;
- "split" (2026.7.33+): `split(":")` kept whole; the id and the first piece of the rest must be
  non-empty (`agent::main:x` is not agent-scoped, `agent:main:x::y` has rest `x::y`);
- "prefix" (2026.8.1+): the id runs from `agent:` to the next `:`, the rest is what follows and must not
  start with `:`. A key that starts with `agent:` but does not parse is refused (the session fails),
  and a key that names no agent belongs to the workspace owner, or is refused when there is none.
"""

from __future__ import annotations

from collections.abc import Mapping

from memwarm_cli.agents import (
    list_agent_ids,
    normalize_agent_id,
    resolve_default_agent_id,
    workspace_owner_id,
)
from memwarm_cli.errors import UsageError
from memwarm_cli.jsstring import js_trim
from memwarm_cli.profiles.releases import Profile
from memwarm_cli.textsafe import clip

# typing.TYPE_CHECKING without importing typing: ~2.5 ms of `context`'s start (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal, NamedTuple

    SessionClass = Literal["main", "subagent", "cron", "acp"]
else:
    from memwarm_cli.named_tuples import NamedTuple

MALFORMED_KEY = "Malformed agent session key; refusing default-agent resolution."
NO_SESSION_OWNER = (
    "Multiple agents are configured, but session agent resolution has no explicit owner. Pass an agentId, "
    "an agent-scoped session key, or a prepared fallbackAgentId."
)


class SessionKeyError(UsageError):
    """A session key the release refuses (2026.8.1+), in its own words."""

    def __init__(self, key: str, reason: str) -> None:
        self.key = key
        self.reason = reason
        super().__init__(f"session key {clip(key)!r}: {reason}")


class SessionKey(NamedTuple):
    key: str | None
    agent_id: str  # sessionAgentId
    agent_scoped: bool  # the agent came from the key (`agent:<id>:...`), not from the default agent
    subagent: bool
    cron: bool
    acp: bool
    group_chat: bool = False  # a group or channel chat (2026.8.1+ drop MEMORY.md for those)

    @property
    def primary(self) -> bool:
        """Neither subagent nor acp (a cron session is primary too)."""
        return not self.subagent and not self.acp

    @property
    def session_class(self) -> SessionClass:
        if self.subagent:
            return "subagent"
        if self.acp:
            return "acp"
        return "cron" if self.cron else "main"


def main_session_key(agent_id: str) -> str:
    """The agent's main interactive session, the default `context` describes."""
    return f"agent:{agent_id}:main"


def split_agent_key(lowered: str, profile: Profile) -> tuple[str, str] | None:
    """`parseAgentSessionKey` of a trimmed, lower-cased key: (agent id as written, rest), or None."""
    if profile.session_key_shape == "split-filtered":
        pieces = [piece for piece in lowered.split(":") if piece]
        if len(pieces) < 3 or pieces[0] != "agent" or not js_trim(pieces[1]):
            return None
        return js_trim(pieces[1]), ":".join(pieces[2:])
    if profile.session_key_shape == "split":
        parts = lowered.split(":")
        if len(parts) < 3 or not parts[1] or not parts[2] or parts[0] != "agent" or not js_trim(parts[1]):
            return None
        return js_trim(parts[1]), ":".join(parts[2:])
    if not lowered.startswith("agent:"):
        return None
    end = lowered.find(":", 6)
    if end == -1:
        return None
    agent, rest = js_trim(lowered[6:end]), lowered[end + 1 :]
    if not agent or not rest or rest.startswith(":"):
        return None
    return agent, rest


# ---- group and channel chats (`deriveSessionChatTypeFromKey`, 2026.8.1+) -------------------------

_PEER_KINDS = frozenset({"direct", "dm", "group", "channel"})


def _legacy_chat_type(scoped: str) -> str | None:
    """The built-in legacy shapes: `group:<id>`, `channel:<id>`, WhatsApp `<id>@g.us`, Discord
    `discord:[<acct>:]guild-<g>:channel-<c>`."""
    head, colon, _ = scoped.partition(":")
    if head in ("group", "channel") and colon and scoped[len(head) + 1 :].partition(":")[0]:
        return head
    body = scoped[len("whatsapp:") :] if scoped.startswith("whatsapp:") else scoped
    if body.endswith("@g.us") and len(body) > len("@g.us") and ":" not in body:
        return "group"
    parts = scoped.split(":")
    if parts[0] == "discord" and len(parts) in (3, 4):
        guild, channel = parts[-2], parts[-1]
        middle_ok = len(parts) == 3 or bool(parts[1])
        if (
            middle_ok
            and guild.startswith("guild-")
            and guild[6:]
            and channel.startswith("channel-")
            and channel[8:]
        ):
            return "channel"
    return None


def _canonical_chat_type(scoped: str) -> str | None:
    parts = scoped.split(":")
    if parts[0] == "agent":
        return None
    shapes = [
        bool(parts[0] in ("direct", "dm") and len(parts) > 1 and parts[1]),
        bool(parts[0] and len(parts) > 2 and parts[1] in _PEER_KINDS and parts[2]),
        bool(parts[0] and len(parts) > 3 and parts[1] and parts[2] in _PEER_KINDS and parts[3]),
        _legacy_chat_type(scoped) is not None,
    ]
    if sum(shapes) > 1:  # ambiguous: no canonical reading
        return None
    if parts[0] in ("direct", "dm"):
        kind, start = parts[0], 1
    elif len(parts) > 1 and parts[0] and parts[1] in _PEER_KINDS:
        kind, start = parts[1], 2
    elif len(parts) > 2 and parts[0] and parts[1] and parts[2] in _PEER_KINDS:
        kind, start = parts[2], 3
    else:
        return None
    if len(parts) <= start or not parts[start]:
        return None
    return "direct" if kind in ("direct", "dm") else kind


def chat_type(lowered: str, profile: Profile) -> str:
    """`deriveSessionChatTypeFromKey` without channel plugins: group, channel, direct or unknown."""
    if not lowered:
        return "unknown"
    parsed = split_agent_key(lowered, profile)
    scoped = parsed[1] if parsed is not None else lowered
    return _canonical_chat_type(scoped) or _legacy_chat_type(scoped) or "unknown"


def _fallback_agent(cfg: Mapping[str, Any] | None, profile: Profile, key: str | None) -> str:
    """The agent of a session whose key names none."""
    if profile.default_agent_rule != "ownership":
        return resolve_default_agent_id(cfg, profile=profile) if cfg is not None else "main"
    owner = workspace_owner_id(cfg, profile=profile)
    if owner is None:
        known = ", ".join(list_agent_ids(cfg, profile=profile))
        raise SessionKeyError(key or "", f"{NO_SESSION_OWNER} (known agents: {known})")
    return owner


def parse_session_key(key: str | None, cfg: Mapping[str, Any] | None, *, profile: Profile) -> SessionKey:
    """`resolveSessionAgentId` plus the subagent/cron/acp tests, all case-insensitive.

    SessionKeyError (2026.8.1+) for a malformed `agent:` key, or one that names no agent when no agent
    owns the workspace."""
    lowered = js_trim(key).lower() if key is not None else ""
    parsed = split_agent_key(lowered, profile)
    if parsed is None and profile.malformed_agent_key_refused and lowered.startswith("agent:"):
        raise SessionKeyError(key or "", MALFORMED_KEY)
    rest = parsed[1] if parsed is not None else ""
    agent_id = normalize_agent_id(parsed[0]) if parsed is not None else _fallback_agent(cfg, profile, key)
    group = profile.group_chats_drop_memory and chat_type(lowered, profile) in ("group", "channel")
    return SessionKey(
        key=key,
        agent_id=agent_id,
        agent_scoped=parsed is not None,
        subagent=lowered.startswith("subagent:") or rest.startswith("subagent:"),
        cron=parsed is not None and rest.startswith("cron:"),
        acp=lowered.startswith("acp:") or rest.startswith("acp:"),
        group_chat=group,
    )
