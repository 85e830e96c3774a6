"""`memwarm prelude`'s views: the prelude itself, and `--json`'s report.

The text is data, written byte for byte into a pipe or a file. On a terminal the characters a terminal
acts on (a daily note's OSC 52 clipboard write, a title change, a clear-screen) are shown as their
escapes instead, unless `--raw` (cli/terminal/output.data_for_stdout).
"""

from __future__ import annotations

from collections.abc import Iterator

from memwarm_cli.agents import missing_workspace_message
from memwarm_cli.cli.terminal.output import data_for_stdout, note_line, warning_line
from memwarm_cli.cli.terminal.view_format import JsonView, View, Views
from memwarm_cli.os_paths import join_path
from memwarm_cli.startup.clock import iso_utc

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memwarm_cli.cli.commands.prelude import PreludeResult
    from memwarm_cli.startup.prelude_settings import GateDecision
    from memwarm_cli.startup.session import AgentPlan

PRELUDE_SCHEMA_VERSION = 1


class PreludeText(View["PreludeResult"]):
    name = "text"

    def notes(self, result: PreludeResult) -> Iterator[str]:
        agent = result.agent
        if not agent.workspace_exists and not result.quiet:
            yield warning_line(
                missing_workspace_message(agent.agent_id, agent.workspace, agent.workspace_rule)
            )
        if not result.gate.applied:
            yield note_line(f"startup context not applied for /{result.action}: {result.gate.reason}")
        elif agent.plan.prelude is None and not result.quiet:
            dates = ", ".join(day.stamp for day in agent.plan.window)
            yield note_line(
                f"no daily memory in the window ({dates}) under {join_path(agent.workspace, 'memory')}"
            )

    def render(self, result: PreludeResult) -> Iterator[str]:
        prelude = result.agent.plan.prelude
        if result.gate.applied and prelude is not None:
            yield data_for_stdout(prelude, raw=result.raw)


def prelude_report(agent: AgentPlan, action: str, gate: GateDecision) -> dict[str, Any]:
    """`prelude --json`'s object (`context --json` carries the same one)."""
    return {
        "schema": PRELUDE_SCHEMA_VERSION,
        "agentId": agent.agent_id,
        "workspace": agent.workspace,
        "at": iso_utc(agent.plan.at_ms),
        "timezone": agent.plan.settings.timezone.used,
        "action": action,
        "applied": gate.applied,
        "reason": gate.reason,
        "prelude": agent.plan.prelude,
    }


def _report(result: PreludeResult) -> dict[str, Any]:
    return prelude_report(result.agent, result.action, result.gate)


PRELUDE_VIEWS: Views[PreludeResult] = Views(PreludeText(), JsonView(_report), pipe="text")
