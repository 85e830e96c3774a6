"""init-backends' progress display: elapsed time per agent and for the run, the step each agent is in with
its own elapsed time and timeout. Driven by events and a fake clock on a forced-terminal Rich console,
and once for real on a pseudo-terminal."""

from __future__ import annotations

import io
import threading
from pathlib import Path

import pytest
from rich.console import Console

from memwarm_cli.backends.init.init_report import (
    AgentDoneEvent,
    AgentOutcome,
    AgentStartEvent,
    LogEvent,
    RunStartEvent,
    StepEvent,
)
from memwarm_cli.cli.commands.init_backends_progress import (
    InitRenderer,
    ProgressDisplay,
    clock_text,
    duration_text,
)
from tests.backends.support import MODELS_UNRESOLVABLE, install_fake_qmd, make_scenario
from tests.conftest import run_in_terminal, strip_ansi


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def terminal() -> Console:
    return Console(file=io.StringIO(), force_terminal=True, color_system="standard", width=80)


def drawn(display: ProgressDisplay, console: Console | None = None) -> list[str]:
    """The display as Rich draws it on a terminal (another console than the live one, which would add the
    live region to the capture)."""
    console = console or terminal()
    with console.capture() as capture:
        console.print(display)
    return strip_ansi(capture.get()).splitlines()


def outcome(agent_id: str, status: str = "armed") -> AgentOutcome:
    return AgentOutcome(
        agent_id=agent_id,
        status=status,  # type: ignore[arg-type]
        reason="qmd update failed" if status == "failed" else None,
        workspace=Path("/ws"),
        index_path=Path("/state/index.sqlite"),
        backend="qmd",
        backend_source="memory.backend",
        qmd_source="memory.qmd",
        search_mode="search",
    )


@pytest.mark.parametrize(
    ("seconds", "short", "clock"),
    [(0.04, "0.0s", "0:00"), (41.83, "41.8s", "0:41"), (125, "2m05s", "2:05"), (3725, "1h02m", "1:02:05")],
)
def test_duration_texts(seconds: float, short: str, clock: str) -> None:
    assert (duration_text(seconds), clock_text(seconds)) == (short, clock)


def test_each_agent_shows_its_time_its_step_the_steps_time_and_its_timeout() -> None:
    clock, console = FakeClock(), terminal()
    renderer = InitRenderer(quiet=False, clock=clock)
    with renderer.live(console, refresh=False):
        display = renderer.display
        assert display is not None
        renderer.handle(
            RunStartEvent(agents=3, agent_ids=("main", "ops-team", "dev"), runnable=3, concurrency=2)
        )
        renderer.handle(AgentStartEvent("ops-team"))  # started first, shown second: config order
        clock.now += 0.5
        renderer.handle(AgentStartEvent("main"))
        renderer.handle(StepEvent("main", "collections", 30_000))
        clock.now += 1.5
        renderer.handle(StepEvent("main", "qmd embed", 120_000))
        renderer.handle(StepEvent("ops-team", "waiting for the embed lock"))
        clock.now += 43.0
        assert drawn(display) == [
            "init-backends  0/3 agents done  0:45",
            "⠋ main       44.5s  qmd embed 43.0s (timeout 2m00s)",
            "⠋ ops-team   45.0s  waiting for the embed lock 43.0s",
        ]
        clock.now += 80.25
        renderer.handle(AgentDoneEvent(outcome("main")))
        renderer.handle(StepEvent("ops-team", "qmd embed", 120_000))
        clock.now += 12.0
        assert drawn(display) == [
            "init-backends  1/3 agents done  2:17",
            "⠹ ops-team   2m17s  qmd embed 12.0s (timeout 2m00s)",
        ]
    assert renderer.display is None  # over with the run


def test_log_lines_come_out_above_the_display_in_config_order() -> None:
    clock, console = FakeClock(), terminal()
    renderer = InitRenderer(quiet=False, clock=clock)
    with renderer.live(console, refresh=False):
        renderer.handle(RunStartEvent(agents=2, agent_ids=("a", "b"), runnable=2, concurrency=2))
        renderer.handle(AgentStartEvent("a"))
        renderer.handle(AgentStartEvent("b"))
        renderer.handle(LogEvent("a warning of b's", "b"))
        renderer.handle(AgentDoneEvent(outcome("b")))  # b is done first, but a comes first in the config
        renderer.handle(AgentDoneEvent(outcome("a", "failed")))
    text = strip_ansi(console.file.getvalue())  # type: ignore[attr-defined]
    lines = [line for line in text.splitlines() if line.startswith(("qmd memory", "["))]
    assert lines == [
        'qmd memory startup initialization failed for agent "a": qmd update failed',
        "[b] a warning of b's",
        'qmd memory startup initialization armed for agent "b"',
    ]


def test_the_display_starts_its_thread_with_the_run_not_before() -> None:
    """The run walks its agents' files in forked workers before its first event; a fork is safe only
    while this process has one thread, and Rich redraws from a thread of its own."""
    renderer = InitRenderer(quiet=False, clock=FakeClock())
    before = set(threading.enumerate())
    with renderer.live(terminal(), refresh=True):
        assert set(threading.enumerate()) == before
        renderer.handle(RunStartEvent(agents=1, agent_ids=("a",), runnable=1, concurrency=1))
        (refresher,) = set(threading.enumerate()) - before
        renderer.handle(AgentDoneEvent(outcome("a")))
    refresher.join(5)  # told to stop when the run ends
    assert not refresher.is_alive()


def test_a_wide_agent_id_or_step_never_wraps_the_live_region() -> None:
    clock, console = FakeClock(), Console(file=io.StringIO(), force_terminal=True, width=40)
    display = ProgressDisplay(clock)
    display.run_started(("a" * 60,))
    display.step_started("a" * 60, "qmd embed", 120_000)
    lines = drawn(display, console)
    assert len(lines) == 2 and all(len(line) <= 40 for line in lines)
    assert lines[1].endswith("…")


def test_agent_ids_are_escaped_in_the_display() -> None:
    display = ProgressDisplay(FakeClock())
    display.run_started(("x\x1b[31m",))
    display.agent_started("x\x1b[31m")
    assert "x\\x1b[31m" in drawn(display)[1]


def test_the_display_on_a_real_terminal(tmp_path: Path, home_dir: Path) -> None:
    """A real process on a pseudo-terminal: an embed that takes a moment shows its step and timeout."""
    notes = {"MEMORY.md": "# M\nnotes\n", "memory/a.md": "# A\n"}
    config = {"memory": {"backend": "qmd", "qmd": {"searchMode": "vsearch"}}}
    scenario = make_scenario(tmp_path, {"main": notes}, config)
    state = install_fake_qmd(tmp_path / "fakebin", {"embed": "sleep 1.2\n"})
    scenario.path_dirs = [tmp_path / "fakebin"]
    screen = strip_ansi(run_in_terminal(["init-backends"], {**scenario.env(), "FAKE_QMD_DIR": str(state)}))
    assert "init-backends  0/1 agents done" in screen
    assert "qmd embed" in screen and "(timeout 2m00s)" in screen
    assert 'qmd memory startup initialization armed for agent "main"' in screen


def test_long_log_lines_wrap_between_words_at_80_columns(tmp_path: Path, home_dir: Path) -> None:
    """On an 80-column terminal a degraded agent's final line (the reason, then the fix) is broken
    between words, never inside one (the terminal itself would cut `embeddinggemma` in two)."""
    config = {"memory": {"backend": "qmd", "qmd": {"searchMode": "vsearch"}}}
    scenario = make_scenario(tmp_path, {"main": {"memory/a.md": "# A\n"}}, config)
    state = install_fake_qmd(tmp_path / "fakebin")
    scenario.path_dirs = [tmp_path / "fakebin"]
    env = {**scenario.env(), "FAKE_QMD_DIR": str(state), "HF_ENDPOINT": MODELS_UNRESOLVABLE}
    screen = strip_ansi(run_in_terminal(["init-backends", "--probe"], env, columns=80))
    # A line as the screen shows it: what follows the last carriage return (the display redraws).
    lines = [line.rsplit("\r", 1)[-1].rstrip() for line in screen.split("\r\n")]
    first = next(i for i, line in enumerate(lines) if line.startswith("qmd memory startup initialization"))
    end = next(i for i, line in enumerate(lines) if line.startswith("init-backends: 1 agent"))
    wrapped = lines[first:end]
    assert len(wrapped) > 2 and all(len(line) <= 80 for line in wrapped), wrapped
    text = " ".join(wrapped)
    assert text.startswith(
        'qmd memory startup initialization degraded for agent "main": qmd embed not run: model '
        "embeddinggemma-300M-Q8_0 not downloaded, and models.invalid does not resolve ("
    ), text
    assert "fix: run `memwarm init-backends --probe` once with network access" in text


def test_a_dry_run_shows_a_failure_once_on_a_terminal(tmp_path: Path, home_dir: Path) -> None:
    """`--dry-run` on a terminal: an agent that cannot be planned is one line of the plan (stdout), not
    repeated by the log (stderr, the same screen); the summary still counts it."""
    scenario = make_scenario(tmp_path, {"main": {"memory/a.md": "# A\n"}}, {"memory": {"backend": "qmd"}})
    scenario.path_dirs = [tmp_path / "empty-bin"]  # no qmd anywhere: the agent fails
    (tmp_path / "empty-bin").mkdir()
    env = {**scenario.env(), "PATH": str(tmp_path / "empty-bin")}
    screen = strip_ansi(run_in_terminal(["init-backends", "--dry-run"], env, columns=200))
    assert screen.count("qmd binary unavailable") == 1, screen
    assert 'agent "main": failed: qmd binary unavailable' in screen
    assert "init-backends: 1 agent in" in screen and '1 failed ("main")' in screen
