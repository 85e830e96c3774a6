"""`init-backends`' log and its live progress display on a terminal.

The log: core events become stderr lines (thread-safe). Agents run concurrently, but their lines come out
in config order (an agent's warnings, then its final line), so the log of one run reads the same every
time. Every line is made one line: qmd's stderr inside a reason may hold newlines and terminal escapes.

The display (stderr a terminal, not `-q`): the run's agents done and its elapsed time, then one line per
running agent with its own elapsed time, the step it is in, how long that step has run and its timeout:

    init-backends  1/3 agents done  0:42
    ⠹ main    41.8s  qmd embed 38.2s (timeout 2m00s)
    ⠹ ops      3.1s  collections 0.4s (timeout 30s)

An embed can take minutes; this says it is not stuck, and how long it may still take. Times come from an
injectable clock, so tests drive the display with a fake one instead of sleeping. Rich (rich.live: ~28 ms
by -X importtime) is imported only where the display is shown: a cron run, whose stderr is no terminal,
never loads it.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from memwarm_cli.backends.init.init_report import (
    AgentDoneEvent,
    AgentStartEvent,
    LogEvent,
    RunStartEvent,
    StepEvent,
    final_log_line,
    summary_line,
)
from memwarm_cli.cli.terminal.invocation import current, is_terminal
from memwarm_cli.cli.terminal.output import make_console, write_stderr
from memwarm_cli.textsafe import escape_text

if TYPE_CHECKING:
    from rich.console import Console, ConsoleOptions, RenderResult
    from rich.live import Live

    from memwarm_cli.backends.init.init_report import Event, InitReport

Clock = Callable[[], float]
_SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"


def duration_text(seconds: float) -> str:
    """`0.4s`, `41.8s`, `2m05s`, `1h02m`: short, and steady in width while it ticks."""
    if seconds < 60:
        return f"{seconds:.1f}s"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes}m{int(seconds % 60):02d}s"
    return f"{minutes // 60}h{minutes % 60:02d}m"


def clock_text(seconds: float) -> str:
    """The run's elapsed time as a clock: `0:42`, `12:05`, `1:02:09`."""
    whole = int(seconds)
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class _AgentProgress:
    __slots__ = ("started", "step", "step_started", "timeout_ms")

    def __init__(self, now: float) -> None:
        self.started = now
        self.step = "starting"
        self.step_started = now
        self.timeout_ms: int | None = None


class ProgressDisplay:
    """What the live display shows, computed from the clock each time Rich draws it."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self.started = clock()
        self.total: int | None = None
        self.done = 0
        self._running: dict[str, _AgentProgress] = {}
        self._order: dict[str, int] = {}  # agent id -> position in the config

    def run_started(self, agent_ids: tuple[str, ...]) -> None:
        with self._lock:
            self.total = len(agent_ids)
            self._order = {agent: index for index, agent in enumerate(agent_ids)}

    def agent_started(self, agent_id: str) -> None:
        with self._lock:
            self._running[agent_id] = _AgentProgress(self._clock())

    def step_started(self, agent_id: str, step: str, timeout_ms: int | None) -> None:
        with self._lock:
            agent = self._running.setdefault(agent_id, _AgentProgress(self._clock()))
            agent.step, agent.step_started, agent.timeout_ms = step, self._clock(), timeout_ms

    def agent_done(self, agent_id: str) -> None:
        with self._lock:
            self._running.pop(agent_id, None)
            self.done += 1

    def lines(self) -> list[str]:
        """The display's lines (agent ids escaped: they are outside text)."""
        now = self._clock()
        with self._lock:
            running = sorted(
                self._running.items(), key=lambda item: self._order.get(item[0], len(self._order))
            )
            total = "?" if self.total is None else str(self.total)
            lines = [f"init-backends  {self.done}/{total} agents done  {clock_text(now - self.started)}"]
            names = [escape_text(agent_id) for agent_id, _ in running]
            width = max(map(len, names), default=0)
            spinner = _SPINNER[int(now * 10) % len(_SPINNER)]
            for name, (_, agent) in zip(names, running, strict=True):
                step = f"{agent.step} {duration_text(now - agent.step_started)}"
                if agent.timeout_ms is not None:
                    step += f" (timeout {duration_text(agent.timeout_ms / 1000)})"
                lines.append(f"{spinner} {name:<{width}}  {duration_text(now - agent.started):>6}  {step}")
        return lines

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        from rich.text import Text  # off cron runs (module docstring); only Rich, loaded by then, calls this

        for line in self.lines():
            # A line wider than the terminal is cut, never wrapped: the live region keeps its height.
            yield Text(line, no_wrap=True, overflow="ellipsis")


class InitRenderer:
    """Turns core events into the log on stderr and, on a terminal, the live display."""

    def __init__(self, *, quiet: bool, dry_run: bool = False, clock: Clock = time.monotonic) -> None:
        self.quiet = quiet
        self.dry_run = dry_run  # the plan on stdout has each agent's line: not repeated on stderr
        self._clock = clock
        self._lock = threading.Lock()
        self.display: ProgressDisplay | None = None
        self._live: Live | None = None
        self._print: Callable[[str], None] = _plain_line
        self._order: list[str] = []  # agent ids in config order (unique: selection drops repeats)
        self._held: dict[str, list[str]] = {}  # per agent: lines not yet printed
        self._done: set[str] = set()
        self._next = 0  # position in _order of the first agent whose lines are not printed yet

    @contextmanager
    def live(self, console: Console | None = None, *, refresh: bool = True) -> Iterator[None]:
        """The live display while the run lasts, when stderr is a terminal (or on `console`, a test's)."""
        if console is None:
            if self.quiet or not is_terminal(current().stderr):
                yield
                return
            console = make_console(stderr=True)
        from rich.live import Live  # the display only (module docstring)

        display = ProgressDisplay(self._clock)
        live = Live(display, console=console, transient=True, auto_refresh=refresh, refresh_per_second=4)

        def printer(line: str) -> None:
            # Wrapped at word boundaries to the terminal's width (a terminal wraps mid-word).
            console.print(line, markup=False, highlight=False, emoji=False, overflow="fold")

        self.display, self._print, self._live = display, printer, live
        try:
            yield  # the display starts with the run (RunStartEvent), once the run's walks are done
        finally:
            live.stop()  # as leaving `with live:` does; nothing when it never started
            self.display, self._print, self._live = None, _plain_line, None

    def handle(self, event: Event) -> None:
        display = self.display
        with self._lock:
            if isinstance(event, RunStartEvent):
                self._order = list(event.agent_ids)
                self._held = {agent: [] for agent in self._order}
                if display is not None:
                    display.run_started(event.agent_ids)
                if self._live is not None:
                    # Rich redraws from a thread of its own: started only now, after the run walked its
                    # agents' files in forked workers, which is safe only while this process has one
                    # thread (backends/freshness/forked_map.py).
                    self._live.start()
            elif isinstance(event, LogEvent):
                if self.quiet:
                    return
                if event.agent_id is None:
                    self._emit(event.message)
                else:
                    self._hold(event.agent_id, f"[{event.agent_id}] {event.message}")
            elif isinstance(event, AgentStartEvent):
                if display is not None:
                    display.agent_started(event.agent_id)
            elif isinstance(event, StepEvent):
                if display is not None:
                    display.step_started(event.agent_id, event.step, event.timeout_ms)
            elif isinstance(event, AgentDoneEvent):
                outcome = event.outcome
                if display is not None:
                    display.agent_done(outcome.agent_id)
                if not self.dry_run and (not self.quiet or outcome.status == "failed"):
                    self._hold(outcome.agent_id, final_log_line(outcome))
                self._done.add(outcome.agent_id)
                self._release()

    def _hold(self, agent_id: str, line: str) -> None:
        held = self._held.get(agent_id)
        if held is None:  # an agent this run did not announce, or whose lines are out already
            self._emit(line)
        else:
            held.append(line)

    def _release(self, *, everything: bool = False) -> None:
        """Print the held lines of every finished agent that no earlier unfinished agent holds back."""
        while self._next < len(self._order) and (everything or self._order[self._next] in self._done):
            for line in self._held.pop(self._order[self._next], []):
                self._emit(line)
            self._next += 1

    def _emit(self, line: str) -> None:
        # Lines are OpenClaw's sentences with raw outside text in them (agent ids, paths, qmd's output).
        self._print(escape_text(line))

    def finish(self, report: InitReport) -> None:
        with self._lock:
            self._release(everything=True)
        if not self.quiet:
            self._emit(summary_line(report))


def _plain_line(line: str) -> None:
    write_stderr(line)
