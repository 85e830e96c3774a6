"""`memwarm prelude`'s work, free of Typer so the fast path (cli/fastpath.py) can run it too."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memwarm_cli.startup.prelude_settings import GateDecision
    from memwarm_cli.startup.session import AgentPlan


def run_prelude(
    config_path: str | None,
    agent: str | None = None,
    workspace: Path | None = None,
    at: str | None = None,
    action: str = "new",
    json_output: bool = False,
    quiet: bool = False,
) -> None:
    """Print the startup prelude a new or reset session would see (or a JSON report)."""
    from memwarm_cli.agents import select_agent
    from memwarm_cli.cli.terminal.invocation import load_for_command
    from memwarm_cli.cli.terminal.output import json_text, note, stdout_is_terminal, warn, write_stdout
    from memwarm_cli.errors import UsageError
    from memwarm_cli.startup.clock import parse_instant
    from memwarm_cli.startup.prelude_settings import should_apply_startup_context
    from memwarm_cli.startup.session import plan_for_agent

    if action not in ("new", "reset"):
        raise UsageError(f'--action must be new or reset, not "{action}"')
    at_ms = parse_instant(at)
    loaded = load_for_command(config_path, quiet=quiet)
    chosen = select_agent(loaded.data, loaded.env, agent)
    result = plan_for_agent(loaded, chosen, at_ms, workspace_override=workspace)
    plan = result.plan
    gate = should_apply_startup_context(loaded.data, "new" if action == "new" else "reset")
    prelude = plan.prelude

    if json_output:
        write_stdout(json_text(prelude_report(result, action, gate)) + "\n")
        return
    if not result.workspace_exists and not quiet:
        warn(f'workspace of agent "{result.agent_id}" does not exist: {result.workspace}')
    if not gate.applied:
        note(f"startup context not applied for /{action}: {gate.reason}")
        return
    if prelude is None:
        if not quiet:
            dates = ", ".join(day.stamp for day in plan.window)
            note(f"no daily memory in the window ({dates}) under {result.workspace / 'memory'}")
        return
    write_stdout(prelude + ("\n" if stdout_is_terminal() else ""))


def prelude_report(result: AgentPlan, action: str, gate: GateDecision) -> dict[str, Any]:
    """`prelude --json`'s object (`context --json` carries the same one)."""
    from memwarm_cli.startup.clock import iso_utc

    return {
        "agent": result.agent_id,
        "workspace": str(result.workspace),
        "at": iso_utc(result.plan.at_ms),
        "timezone": result.plan.settings.timezone.used,
        "action": action,
        "applied": gate.applied,
        "reason": gate.reason,
        "prelude": result.plan.prelude,
    }
