"""`memwarm context`'s work, free of Typer so the fast path (cli/fastpath.py) can run it too.

The session's startup context (both plans, memwarm_cli/session_context.py) is computed once and handed
to the view chosen (cli/commands/context_views.py, context_json.py).
"""

from __future__ import annotations

import os

from memwarm_cli.agents import missing_workspace_message
from memwarm_cli.bootstrap.workspace_state import LegacyWorkspaceStateError
from memwarm_cli.cli.commands.context_views import CONTEXT_VIEWS
from memwarm_cli.cli.commands.prelude import warn_unknown_zone
from memwarm_cli.cli.terminal.command_config import load_for_command
from memwarm_cli.cli.terminal.output import warn
from memwarm_cli.errors import UsageError
from memwarm_cli.exitcodes import ExitCode
from memwarm_cli.session_context import compute_startup_context
from memwarm_cli.startup.clock import parse_instant

# typing.TYPE_CHECKING without importing typing: ~2.5 ms of `context`'s start (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple

    from memwarm_cli.profiles.choice import OpenClawChoice
    from memwarm_cli.session_context import SessionContext
else:
    from memwarm_cli.named_tuples import NamedTuple

PARTS = ("bootstrap", "prelude")


class ContextResult(NamedTuple):
    """What `context`'s views show: the session's startup context and the options that shape a view."""

    context: SessionContext
    only: str | None  # --only bootstrap|prelude
    quiet: bool
    raw: bool  # --raw: the text view's exact bytes on a terminal too
    openclaw: OpenClawChoice  # the release the context was computed for


def run_context(
    *,
    config_path: str | None,
    openclaw: str | None,
    agent: str | None = None,
    workspace: str | os.PathLike[str] | None = None,
    session_key: str | None = None,
    at: str | None = None,
    action: str = "new",
    only: str | None = None,
    json_output: bool = False,
    output_format: str | None = None,
    quiet: bool = False,
    raw: bool = False,
) -> ExitCode:
    """Print the startup context of a new session: text, table, plain or JSON."""
    if action not in ("new", "reset"):
        raise UsageError(f'--action must be new or reset, not "{action}"')
    if only is not None and only not in PARTS:
        raise UsageError(f'--only must be bootstrap or prelude, not "{only}"')
    view = CONTEXT_VIEWS.choose(json_output, output_format)
    at_ms = parse_instant(at)
    run = load_for_command(config_path, openclaw=openclaw, quiet=quiet)
    try:
        context = compute_startup_context(
            run.loaded,
            agent=agent,
            workspace=workspace,
            session_key=session_key,
            at_ms=at_ms,
            action="new" if action == "new" else "reset",
            openclaw=run.openclaw,
        )
    except LegacyWorkspaceStateError as refused:
        # The release fails the session: `--json` says so on stdout, the error line follows (exit 1).
        if view.name == "json":
            # context_json: only a refused session's --json needs it, not context's fast path (test_imports)
            from memwarm_cli.cli.commands.context_json import REFUSED_VIEW, RefusedSession

            REFUSED_VIEW.show(RefusedSession(refused, run.openclaw))
        raise

    warn_unknown_zone(context.startup.plan, quiet)
    if not quiet:
        for line in context.notes:
            warn(line)
        if view.name != "json" and not os.path.isdir(context.startup.workspace):
            startup = context.startup
            warn(missing_workspace_message(context.agent_id, startup.workspace, startup.workspace_rule))
    view.show(ContextResult(context, only, quiet, raw, run.openclaw))
    return ExitCode.OK
