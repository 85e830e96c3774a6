"""`status`'s table at 60, 80 and 120 columns: no line wider than the terminal, agent ids broken only
after `-`, and every reason whole (wrapped at spaces, below the table as a footnote when it does not fit
its column in a few lines), never cut mid-word."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.conftest import RunCli, isolated_env, run_in_terminal, strip_ansi

LONG_ID = "research-and-development-agent"


@pytest.fixture
def state(tmp_path: Path) -> Path:
    """Three qmd agents that all fail (no qmd on PATH, no index; one without its workspace): their
    reasons run to 200 characters and more."""
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    state = tmp_path / "state"
    state.mkdir()
    agents = [
        {"id": "main", "workspace": str(ws)},
        {"id": LONG_ID, "workspace": str(ws)},
        {"id": "ops", "workspace": str(tmp_path / "gone")},
    ]
    config = {"memory": {"backend": "qmd"}, "agents": {"list": agents}}
    (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    return state


def _env(state: Path, width: int) -> dict[str, str]:
    return {"OPENCLAW_STATE_DIR": str(state), "PATH": "/usr/bin:/bin", "COLUMNS": str(width)}


def _joined(parts: list[str]) -> str:
    text = ""
    for part in parts:
        text += part if not text or text.endswith(("-", "/")) else " " + part
    return text


def _table(screen: str) -> tuple[dict[str, str], dict[str, str]]:
    """agent id -> its `why` (a footnote's text in place of its marker), and the footnotes."""
    lines = screen.splitlines()
    header = [c.strip() for c in next(ln for ln in lines if ln.startswith("┃")).split("┃")[1:-1]]
    rows: list[list[list[str]]] = []
    for line in lines:
        if line.startswith("│"):
            cells = [cell.strip() for cell in line.strip("│").split("│")]
            if cells[header.index("status")]:
                rows.append([[cell] if cell else [] for cell in cells])
            else:
                for parts, cell in zip(rows[-1], cells, strict=True):
                    if cell:
                        parts.append(cell)
    notes: dict[str, list[str]] = {}
    for line in screen.split("└", 1)[1].splitlines()[1:]:
        found = re.match(r"(\[\d+\]) +(.*)", line)
        if found:
            notes[found.group(1)] = [found.group(2)]
        elif line.startswith(" ") and notes:
            notes[list(notes)[-1]].append(line.strip())
    footnotes = {marker: _joined(parts) for marker, parts in notes.items()}
    why_at = header.index("why")
    whys = {}
    for row in rows:
        why = _joined(row[why_at])
        whys[_joined(row[0])] = footnotes.get(why, why)
    return whys, footnotes


@pytest.mark.parametrize("width", [60, 80, 120])
def test_reasons_are_whole_and_ids_unbroken_at_every_width(run_cli: RunCli, state: Path, width: int) -> None:
    result = run_cli(["status", "--format", "table"], env=_env(state, width))
    assert result.returncode == 1, result.stderr
    screen = result.stdout
    assert all(cell_len(line) <= width for line in screen.splitlines()), screen
    assert "…" not in screen, screen
    whys, footnotes = _table(screen)
    expected = json.loads(run_cli(["status", "--json"], env=_env(state, width)).stdout)
    reasons = {agent["agentId"]: "; ".join(agent["why"]) for agent in expected["agents"]}
    assert set(whys) == {"main", LONG_ID, "ops"}  # each id whole (broken only after a `-`)
    for agent, why in whys.items():
        # Whole: every word of the reason, in order, each on one line (joined at spaces only).
        assert why.split() == reasons[agent].split(), (agent, why)
    assert footnotes  # reasons this long do not fit a column of these terminals in a few lines


def test_on_a_real_terminal_too(home_dir: Path, state: Path) -> None:
    env = isolated_env(home_dir, _env(state, 80))
    screen = strip_ansi(run_in_terminal(["status"], env, columns=80)).replace("\r\n", "\n")
    assert "┃ agent" in screen and "[1] " in screen
    assert all(cell_len(line) <= 80 for line in screen.splitlines())
    whys, _ = _table(screen)
    assert "qmd binary unavailable (qmd)" in whys["main"]


def test_the_last_run_column_says_its_times_are_utc(home_dir: Path, state: Path) -> None:
    """The last run's time is UTC (as the record and --json keep it): the header says so, at 80 columns
    on a real terminal too."""
    env = isolated_env(home_dir, _env(state, 80))
    screen = strip_ansi(run_in_terminal(["status"], env, columns=80)).replace("\r\n", "\n")
    header = [line.split("┃") for line in screen.splitlines() if line.startswith("┃")]
    cells = [" ".join(row[column].strip() for row in header).split() for column in range(len(header[0]))]
    assert ["last", "run", "(UTC)"] in cells, screen
