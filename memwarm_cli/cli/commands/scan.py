"""`memwarm scan`: every file the startup prelude considered, what happened to it and why.

The work, free of Typer so cli/fastpath.py can run it too (the Typer command is cli/commands/scan_cmd.py):
one startup plan per agent, the plan `prelude` prints, handed to the view chosen
(cli/commands/scan_views.py: a table on a terminal, tab-separated lines in a pipe, or JSON).
"""

from __future__ import annotations

import os

from memwarm_cli.agents import resolve_agents, select_agent
from memwarm_cli.cli.commands.prelude import warn_unknown_zone
from memwarm_cli.cli.commands.scan_views import SCAN_VIEWS
from memwarm_cli.cli.terminal.command_config import load_for_command
from memwarm_cli.errors import UsageError
from memwarm_cli.exitcodes import ExitCode
from memwarm_cli.frozen_records import record
from memwarm_cli.startup.clock import parse_instant
from memwarm_cli.startup.session import plan_for_agent

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from memwarm_cli.profiles.choice import OpenClawChoice
    from memwarm_cli.startup.session import AgentPlan


@record  # not a typing.NamedTuple: importing typing costs every start ~4 ms
class ScanResult:
    """What `scan`'s views show: one plan per agent (with `--all`, the other notes too)."""

    plans: list[AgentPlan]
    config: object  # the raw config the plans were computed from (the gates are read from it)
    all_agents: bool  # --all-agents: JSON is then an object holding every agent's record
    quiet: bool
    openclaw: OpenClawChoice  # the release the plans were made for


def run_scan(
    *,
    config_path: str | None,
    openclaw: str | None,
    agent: str | None = None,
    all_agents: bool = False,
    workspace: str | os.PathLike[str] | None = None,
    at: str | None = None,
    show_all: bool = False,
    json_output: bool = False,
    output_format: str | None = None,
    quiet: bool = False,
) -> ExitCode:
    """Explain every candidate memory file and where the character budget went."""
    if all_agents and agent is not None:
        raise UsageError("--agent and --all-agents exclude each other")
    view = SCAN_VIEWS.choose(json_output, output_format)
    at_ms = parse_instant(at)
    run = load_for_command(config_path, openclaw=openclaw, quiet=quiet)
    loaded, profile = run.loaded, run.profile
    agents = (
        resolve_agents(loaded.data, loaded.env, profile=profile)
        if all_agents
        else [select_agent(loaded.data, loaded.env, agent, profile=profile)]
    )
    plans = [
        plan_for_agent(
            loaded, chosen, at_ms, workspace_override=workspace, include_others=show_all, profile=profile
        )
        for chosen in agents
    ]

    warn_unknown_zone(plans[0].plan, quiet)  # agents.defaults: the same zone for every agent
    view.show(ScanResult(plans, loaded.data, all_agents, quiet, run.openclaw))
    return ExitCode.OK
