"""The startup context of one session: its agent, the bootstrap plan (memwarm_cli/bootstrap/) and the
startup plan (memwarm_cli/startup/), computed once from one config, with the prelude gate decided once
for both session actions. `memwarm context` renders it in every view; nothing here writes or exits.

Which agent a session belongs to: the session key's agent wins, and must agree with an `--agent`
given beside it (UsageError otherwise). A key whose agent is not in agents.list is described as OpenClaw
would run it: with the defaults, and a note saying so.
"""

from __future__ import annotations

import os

from memwarm_cli.agents import agent_by_id, list_agent_ids, normalize_agent_id, roster_label, select_agent
from memwarm_cli.bootstrap.context_plan import build_bootstrap_plan
from memwarm_cli.bootstrap.session_keys import main_session_key, parse_session_key
from memwarm_cli.errors import UsageError
from memwarm_cli.jsstring import js_length
from memwarm_cli.startup.prelude_settings import ACTIONS, should_apply_startup_context
from memwarm_cli.startup.session import plan_for_agent
from memwarm_cli.textsafe import clip

# typing.TYPE_CHECKING without importing typing: ~2.5 ms of `context`'s start (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import NamedTuple

    from memwarm_cli.agents import Agent
    from memwarm_cli.bootstrap.context_plan import BootstrapPlan
    from memwarm_cli.config import LoadedConfig
    from memwarm_cli.profiles.choice import OpenClawChoice
    from memwarm_cli.profiles.releases import Profile
    from memwarm_cli.startup.prelude_settings import Action, GateDecision
    from memwarm_cli.startup.session import AgentPlan
else:
    from memwarm_cli.named_tuples import NamedTuple

CHARS_PER_TOKEN = 4  # the usual rough estimate of a token; labelled as one wherever it is shown


class SessionContext(NamedTuple):
    """Both plans for one session: what `context`'s views render."""

    agent_id: str
    session_key: str
    notes: list[str]  # warnings about the session (an agent missing from agents.list)
    action: Action
    bootstrap: BootstrapPlan
    startup: AgentPlan
    gates: Mapping[Action, GateDecision]  # the prelude gate of each session action, decided once
    config: object  # the raw config the plans were computed from

    @property
    def gate(self) -> GateDecision:
        """The gate of this session's action."""
        return self.gates[self.action]

    @property
    def prelude_suppressed(self) -> bool:
        """BOOTSTRAP.md is pending for this (primary, interactive) session: OpenClaw's bare /new or /reset
        then prepends no prelude (startup-context.md §5.2, `shouldPrependStartupContext`)."""
        return self.bootstrap.bootstrap_mode == "full"

    @property
    def prelude(self) -> str | None:
        """The prelude the session gets: None when the gate is closed, BOOTSTRAP.md is pending, or
        nothing loaded. Otherwise exactly what `memwarm prelude` prints."""
        if not self.gate.applied or self.prelude_suppressed:
            return None
        return self.startup.plan.prelude

    @property
    def total_chars(self) -> tuple[int, int]:
        """(bootstrap, prelude) UTF-16 units the session's context gains: the rendered blocks and the
        prelude."""
        prelude = self.prelude
        return self.bootstrap.rendered_chars, js_length(prelude) if prelude is not None else 0


def session_agent(
    loaded: LoadedConfig, agent: str | None, session_key: str | None, *, profile: Profile
) -> tuple[Agent, str, list[str]]:
    """The agent, session key and notes to describe; a key's agent wins and must agree with `agent`.
    By the rules of `profile`."""
    cfg, env = loaded.data, loaded.env
    if session_key is None:
        chosen = select_agent(cfg, env, agent, profile=profile)
        return chosen, main_session_key(chosen.id), []
    session = parse_session_key(session_key, cfg, profile=profile)
    if agent is not None:
        chosen = select_agent(cfg, env, agent, profile=profile)
        if chosen.id != session.agent_id:
            raise UsageError(
                f"--session-key {clip(session_key)!r} belongs to agent {clip(session.agent_id)!r}, "
                f"not {clip(normalize_agent_id(agent))!r}"
            )
        return chosen, session_key, []
    if session.agent_id in list_agent_ids(cfg, profile=profile):
        return select_agent(cfg, env, session.agent_id, profile=profile), session_key, []
    # OpenClaw runs a session of any agent id; it just has no entry of its own (defaults apply).
    roster = roster_label(cfg, profile=profile)
    note = f'agent "{session.agent_id}" of the session key is not in {roster}; its defaults apply'
    return agent_by_id(cfg, env, session.agent_id, profile=profile), session_key, [note]


def compute_startup_context(
    loaded: LoadedConfig,
    *,
    agent: str | None,
    workspace: str | os.PathLike[str] | None,
    session_key: str | None,
    at_ms: int,
    action: Action,
    openclaw: OpenClawChoice,
) -> SessionContext:
    """Both plans of the session `session_key` (default: the agent's main session) at `at_ms`, by the
    rules of the release `openclaw` names.

    Raises UsageError (an agent that does not match the key, a bad key) and UnknownAgentError; as the
    release fails the session, SessionKeyError (a key it refuses) and, from 2026.8.1,
    LegacyWorkspaceStateError (legacy setup state to migrate first)."""
    choice = openclaw
    profile = choice.profile
    chosen, key, notes = session_agent(loaded, agent, session_key, profile=profile)
    startup = plan_for_agent(loaded, chosen, at_ms, workspace_override=workspace, profile=profile)
    # No config file is no config object (the golden cases' `config: null`), not `{}`.
    cfg = loaded.data if loaded.source.exists else None
    bootstrap = build_bootstrap_plan(
        startup.workspace, cfg, key, profile=profile, env=loaded.env, version=choice.version
    )
    gates = {each: should_apply_startup_context(loaded.data, each) for each in ACTIONS}
    return SessionContext(chosen.id, key, notes, action, bootstrap, startup, gates, loaded.data)
