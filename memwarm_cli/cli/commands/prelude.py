"""`memwarm prelude`'s work, free of Typer so the fast path (cli/fastpath.py) can run it too; its views are
cli/commands/prelude_views.py."""

from __future__ import annotations

import os

from memwarm_cli.agents import select_agent
from memwarm_cli.cli.terminal.command_config import load_for_command
from memwarm_cli.cli.terminal.output import warn
from memwarm_cli.errors import UsageError
from memwarm_cli.exitcodes import ExitCode
from memwarm_cli.frozen_records import record
from memwarm_cli.startup.clock import parse_instant
from memwarm_cli.startup.prelude_settings import should_apply_startup_context, unknown_zone_warning
from memwarm_cli.startup.session import plan_for_agent

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from memwarm_cli.profiles.choice import OpenClawChoice
    from memwarm_cli.startup.plan import StartupPlan
    from memwarm_cli.startup.prelude_settings import GateDecision
    from memwarm_cli.startup.session import AgentPlan


@record  # not a typing.NamedTuple: importing typing costs every start ~4 ms
class PreludeResult:
    """What `prelude`'s views show: one agent's startup plan and the gate of the session action."""

    agent: AgentPlan  # the agent, its workspace and its startup plan
    action: str
    gate: GateDecision
    quiet: bool
    raw: bool  # --raw: the prelude's exact bytes on a terminal too
    openclaw: OpenClawChoice  # the release the plan was made for (every --json output names it)


def run_prelude(
    *,
    config_path: str | None,
    openclaw: str | None,
    agent: str | None = None,
    workspace: str | os.PathLike[str] | None = None,
    at: str | None = None,
    action: str = "new",
    json_output: bool = False,
    quiet: bool = False,
    raw: bool = False,
) -> ExitCode:
    """Print the startup prelude a new or reset session would see (or a JSON report)."""
    # prelude_views: scan and context import this module for warn_unknown_zone, not the views (test_imports)
    from memwarm_cli.cli.commands.prelude_views import PRELUDE_VIEWS

    if action not in ("new", "reset"):
        raise UsageError(f'--action must be new or reset, not "{action}"')
    view = PRELUDE_VIEWS.choose(json_output, None)
    at_ms = parse_instant(at)
    run = load_for_command(config_path, openclaw=openclaw, quiet=quiet)
    loaded = run.loaded
    chosen = select_agent(loaded.data, loaded.env, agent, profile=run.profile)
    result = plan_for_agent(loaded, chosen, at_ms, workspace_override=workspace, profile=run.profile)
    gate = should_apply_startup_context(loaded.data, "new" if action == "new" else "reset")
    warn_unknown_zone(result.plan, quiet)
    view.show(PreludeResult(result, action, gate, quiet, raw, run.openclaw))
    return ExitCode.OK


def warn_unknown_zone(plan: StartupPlan, quiet: bool) -> None:
    """One stderr warning when userTimezone names no zone (with the nearest name): OpenClaw itself falls
    back to the host zone without a word, and the window of days then silently moves."""
    message = None if quiet else unknown_zone_warning(plan.settings.timezone)
    if message is not None:
        warn(message)
