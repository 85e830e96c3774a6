"""Session keys: which agent a session belongs to and which class it is (spec §2.1).

`agent:main:main` is the agent's main interactive session; `agent:<id>:subagent:<uuid>` a subagent,
`agent:<id>:cron:<job>` a cron run. Keys that are not agent-scoped belong to the default agent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NamedTuple

from memwarm_cli.agents import normalize_agent_id, resolve_default_agent_id
from memwarm_cli.jsstring import js_trim

SessionClass = Literal["main", "subagent", "cron", "acp"]


class SessionKey(NamedTuple):
    key: str | None
    agent_id: str  # sessionAgentId
    agent_scoped: bool  # the agent came from the key (`agent:<id>:...`), not from the default agent
    subagent: bool
    cron: bool
    acp: bool

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


def parse_session_key(key: str | None, cfg: Mapping[str, Any] | None) -> SessionKey:
    """`resolveSessionAgentId` plus the subagent/cron/acp tests, all case-insensitive."""
    lowered = js_trim(key).lower() if key is not None else ""
    pieces = [piece for piece in lowered.split(":") if piece]
    scoped = len(pieces) >= 3 and pieces[0] == "agent" and bool(js_trim(pieces[1]))
    rest = ":".join(pieces[2:]) if scoped else ""
    if scoped:
        agent_id = normalize_agent_id(pieces[1])
    else:
        agent_id = resolve_default_agent_id(cfg) if cfg is not None else "main"
    return SessionKey(
        key=key,
        agent_id=agent_id,
        agent_scoped=scoped,
        subagent=lowered.startswith("subagent:") or rest.startswith("subagent:"),
        cron=scoped and rest.startswith("cron:"),
        acp=lowered.startswith("acp:") or rest.startswith("acp:"),
    )
