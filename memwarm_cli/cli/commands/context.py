"""`memwarm context`'s work, free of Typer so the fast path (cli/fastpath.py) can run it too.

It computes the two plans once, the bootstrap plan (memwarm_cli/bootstrap/) and the startup plan that
`prelude` and `scan` render, and hands both to the view chosen (cli/commands/context_views.py).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from memwarm_cli.agents import Agent
    from memwarm_cli.bootstrap.context_plan import BootstrapPlan
    from memwarm_cli.config import LoadedConfig
    from memwarm_cli.startup.prelude_settings import GateDecision
    from memwarm_cli.startup.session import AgentPlan

FORMATS = ("text", "table", "plain", "json")
PARTS = ("bootstrap", "prelude")


class StartupContext(NamedTuple):
    """Both plans for one session: what `context`'s views render."""

    agent_id: str
    session_key: str
    notes: list[str]  # warnings about the session (an agent missing from agents.list)
    action: str
    bootstrap: BootstrapPlan
    startup: AgentPlan
    gate: GateDecision
    config: object  # the raw config the plans were computed from

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


def _check_options(action: str, only: str | None, json_output: bool, output_format: str | None) -> str | None:
    """The options' values checked as `prelude` and every `--format` are; returns the chosen format."""
    from memwarm_cli.cli.terminal.view_format import chosen_format
    from memwarm_cli.errors import UsageError

    if action not in ("new", "reset"):
        raise UsageError(f'--action must be new or reset, not "{action}"')
    if only is not None and only not in PARTS:
        raise UsageError(f'--only must be bootstrap or prelude, not "{only}"')
    return chosen_format(json_output, output_format, FORMATS)


def _session_agent(
    loaded: LoadedConfig, agent: str | None, session_key: str | None
) -> tuple[Agent, str, list[str]]:
    """The agent, session key and warnings to describe; a key's agent wins and must agree with --agent."""
    from memwarm_cli.agents import (
        Agent,
        find_agent_entry,
        list_agent_ids,
        normalize_agent_id,
        resolve_agent_workspace_dir,
        resolve_default_agent_id,
        select_agent,
    )
    from memwarm_cli.bootstrap.session_keys import main_session_key, parse_session_key
    from memwarm_cli.errors import UsageError

    cfg, env = loaded.data, loaded.env
    if session_key is None:
        chosen = select_agent(cfg, env, agent)
        return chosen, main_session_key(chosen.id), []
    session = parse_session_key(session_key, cfg)
    if agent is not None:
        chosen = select_agent(cfg, env, agent)
        if chosen.id != session.agent_id:
            raise UsageError(
                f"--session-key {session_key!r} belongs to agent {session.agent_id!r}, "
                f"not {normalize_agent_id(agent)!r}"
            )
        return chosen, session_key, []
    if session.agent_id in list_agent_ids(cfg):
        return select_agent(cfg, env, session.agent_id), session_key, []
    # OpenClaw runs a session of any agent id; it just has no entry of its own (defaults apply).
    note = f'agent "{session.agent_id}" of the session key is not in agents.list; its defaults apply'
    default_id = resolve_default_agent_id(cfg)
    workspace = resolve_agent_workspace_dir(cfg, session.agent_id, env)
    entry = find_agent_entry(cfg, session.agent_id)
    return Agent(session.agent_id, session.agent_id == default_id, workspace, entry), session_key, [note]


def compute_startup_context(
    loaded: LoadedConfig,
    agent: str | None,
    workspace: Path | None,
    session_key: str | None,
    at_ms: int,
    action: str,
) -> StartupContext:
    from memwarm_cli.bootstrap.context_plan import build_bootstrap_plan
    from memwarm_cli.startup.prelude_settings import should_apply_startup_context
    from memwarm_cli.startup.session import plan_for_agent

    chosen, key, notes = _session_agent(loaded, agent, session_key)
    startup = plan_for_agent(loaded, chosen, at_ms, workspace_override=workspace)
    bootstrap = build_bootstrap_plan(startup.workspace, loaded.data, key)
    gate = should_apply_startup_context(loaded.data, "new" if action == "new" else "reset")
    return StartupContext(chosen.id, key, notes, action, bootstrap, startup, gate, loaded.data)


def run_context(
    config_path: str | None,
    agent: str | None = None,
    workspace: Path | None = None,
    session_key: str | None = None,
    at: str | None = None,
    action: str = "new",
    only: str | None = None,
    json_output: bool = False,
    output_format: str | None = None,
    quiet: bool = False,
) -> None:
    """Print the startup context of a new session: text, table, plain or JSON."""
    from memwarm_cli.cli.commands import context_views
    from memwarm_cli.cli.terminal.invocation import load_for_command
    from memwarm_cli.cli.terminal.output import stdout_is_terminal, warn
    from memwarm_cli.startup.clock import parse_instant

    fmt = _check_options(action, only, json_output, output_format)
    if fmt is None:
        fmt = "table" if stdout_is_terminal() else "text"
    at_ms = parse_instant(at)
    loaded = load_for_command(config_path, quiet=quiet)
    context = compute_startup_context(loaded, agent, workspace, session_key, at_ms, action)
    if not quiet:
        for line in context.notes:
            warn(line)
    if fmt != "json" and not quiet and not os.path.isdir(context.startup.workspace):
        warn(f'workspace of agent "{context.agent_id}" does not exist: {context.startup.workspace}')
    if fmt == "json":
        from memwarm_cli.cli.commands.context_json import write_json_view

        write_json_view(context)
    elif fmt == "text":
        context_views.write_text_view(context, only, quiet)
    elif fmt == "plain":
        context_views.write_plain_view(context, only, quiet)
    else:
        context_views.write_table_view(context, only)
