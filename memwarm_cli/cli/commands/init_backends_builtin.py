"""`init-backends` on a release with the builtin index only (2026.8.1+): the log on stderr, the live
progress on a terminal (init_backends_progress.ProgressDisplay: the agent being built, how long its
`openclaw memory index` has run, its timeout), a dry run's plan and `--json`'s report on stdout.
The work is backends/builtin/builtin_init.py's.

Log lines: one per agent built or failed (`[<id>] …`); a problem that stops every build (OpenClaw not
installed, a Node it refuses) once for the run; the provider notice before the first build; then the
summary. Cold agents left unbuilt are named in the summary, not one line each.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from memwarm_cli.backends.builtin.builtin_init import (
    BUILTIN_INIT_STATUSES,
    BuiltinDoneEvent,
    run_builtin_init,
)
from memwarm_cli.backends.init.init_report import AgentStartEvent, LogEvent, RunStartEvent, StepEvent
from memwarm_cli.backends.retired import release_label
from memwarm_cli.cancel import CancelToken
from memwarm_cli.cli.commands.init_backends_cron import builtin_quiet_lines
from memwarm_cli.cli.commands.init_backends_progress import ProgressDisplay
from memwarm_cli.cli.terminal.interrupts import signals_cancel
from memwarm_cli.cli.terminal.invocation import current, is_terminal
from memwarm_cli.cli.terminal.output import guarded_lines, make_console, write_stderr
from memwarm_cli.cli.terminal.view_format import JsonView, View, Views
from memwarm_cli.textsafe import escape_text, shell_quote

if TYPE_CHECKING:
    from memwarm_cli.backends.builtin.builtin_init import (
        BuiltinInitOptions,
        BuiltinInitReport,
        BuiltinOutcome,
    )
    from memwarm_cli.config import LoadedConfig
    from memwarm_cli.exitcodes import ExitCode
    from memwarm_cli.profiles.choice import OpenClawChoice


class BuiltinRun(NamedTuple):
    report: BuiltinInitReport
    openclaw: OpenClawChoice  # the release whose `openclaw memory index` built the indexes


def outcome_line(outcome: BuiltinOutcome) -> str | None:
    """The agent's log line, or None for one that needs none (warm, skipped, planned, or left cold for a
    reason the run states once)."""
    head = f'agent "{outcome.agent_id}"'
    if outcome.status == "built":
        return f"builtin memory index built for {head} ({outcome.reason})"
    if outcome.status == "failed":
        return f"builtin memory index failed for {head}: {outcome.reason}"
    if outcome.status in ("stale", "invalid") and outcome.run is None:
        return f"builtin memory index {outcome.status} for {head}: {outcome.reason}"
    if outcome.status == "invalid":
        return f"builtin memory index built for {head} but not valid: {outcome.reason}"
    if outcome.status == "cold" and outcome.reason and "interrupted" in outcome.reason:
        return f"builtin memory index not built for {head}: {outcome.reason}"
    return None


def summary_line(report: BuiltinInitReport) -> str:
    counts = report.counts()
    parts = []
    for status in BUILTIN_INIT_STATUSES:
        if counts[status]:
            ids = ", ".join(f'"{a.agent_id}"' for a in report.agents if a.status == status)
            label = "cold, not built" if status == "cold" else status
            parts.append(f"{counts[status]} {label} ({ids})")
    total = len(report.agents)
    noun = "agent" if total == 1 else "agents"
    tail = ""
    if report.signum is not None:
        tail = f"; interrupted by {signal.Signals(report.signum).name}"
    body = "; ".join(parts) or "nothing to do"
    return (
        f"init-backends: {total} {noun} in {report.duration_ms / 1000:.2f}s: {body}{tail}; {report.release}"
    )


class _Renderer:
    """Core events to stderr lines and, on a terminal, the live display (agents run one at a time, so
    lines come out in order)."""

    def __init__(self, *, quiet: bool) -> None:
        self.quiet = quiet
        self._lock = threading.Lock()
        self.display: ProgressDisplay | None = None
        self._live: Any = None
        self._console: Any = None

    def start(self) -> None:
        if self.quiet or not is_terminal(current().stderr):
            return
        # rich.live (~28 ms by -X importtime): only a terminal's stderr shows the display, never cron's
        from rich.live import Live

        self._console = make_console(stderr=True)
        self.display = ProgressDisplay(time.monotonic)
        self._live = Live(
            self.display, console=self._console, transient=True, auto_refresh=True, refresh_per_second=4
        )

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()

    def _emit(self, line: str) -> None:
        if self._console is not None:
            self._console.print(escape_text(line), markup=False, highlight=False, emoji=False, soft_wrap=True)
        else:
            write_stderr(escape_text(line))

    def handle(self, event: object) -> None:
        display = self.display
        with self._lock:
            if isinstance(event, RunStartEvent):
                if display is not None:
                    display.run_started(event.agent_ids)
                if self._live is not None:
                    self._live.start()  # after the judging's forked workers: see init_backends_progress
            elif isinstance(event, LogEvent):
                if not self.quiet:
                    self._emit(event.message)
            elif isinstance(event, AgentStartEvent) and display is not None:
                display.agent_started(event.agent_id)
            elif isinstance(event, StepEvent) and display is not None:
                display.step_started(event.agent_id, event.step, event.timeout_ms)
            elif isinstance(event, BuiltinDoneEvent):
                outcome = event.outcome
                if display is not None and outcome.run is not None:
                    display.agent_done(outcome.agent_id)
                line = outcome_line(outcome)
                if line is not None and (not self.quiet or outcome.status == "failed"):
                    self._emit(line)


def run_builtin_init_command(
    loaded: LoadedConfig,
    options: BuiltinInitOptions,
    *,
    openclaw: OpenClawChoice,
    json_output: bool,
    quiet: bool,
) -> ExitCode:
    view = BUILTIN_INIT_VIEWS.choose(json_output, None)
    choice = openclaw
    token = CancelToken()
    renderer = _Renderer(quiet=quiet)
    renderer.start()
    try:
        with signals_cancel(token):
            report = run_builtin_init(
                loaded,
                options,
                choice=choice,
                release=release_label(choice),
                token=token,
                on_event=renderer.handle,
            )
    finally:
        renderer.stop()
    if not quiet:
        write_stderr(escape_text(summary_line(report)))
    else:  # -q: an index OpenClaw will not search, or a run that warmed nothing, still says so
        for line in builtin_quiet_lines(report):
            write_stderr(line)
    view.show(BuiltinRun(report, choice))
    return report.exit_code


class BuiltinInitText(View[BuiltinRun]):
    """A dry run's plan, per agent: its verdict, and for those it would build the command, env and cwd."""

    name = "text"

    def render(self, result: BuiltinRun) -> Iterator[str]:
        report = result.report
        if not report.dry_run:
            return
        lines: list[str] = []
        for outcome in report.agents:
            head = f'agent "{escape_text(outcome.agent_id)}"'
            if outcome.status != "planned":
                lines.append(f"{head}: {outcome.status}: {escape_text(outcome.reason or '')}")
                continue
            lines.append(f"{head}: build ({escape_text(outcome.reason or '')})")
            lines.append(f"  cwd: {escape_text(outcome.planned_cwd or '')}")
            lines.append("  env: " + " ".join(f"{k}={shell_quote(v)}" for k, v in outcome.planned_env))
            lines.append("  $ " + " ".join(shell_quote(word) for word in outcome.planned))
        yield from guarded_lines(lines)


def _report(result: BuiltinRun) -> dict[str, Any]:
    return result.report.to_json()


BUILTIN_INIT_VIEWS: Views[BuiltinRun] = Views(BuiltinInitText(), JsonView(_report), pipe="text")
