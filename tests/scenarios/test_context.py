"""`memwarm context`: the views over both plans, their agreement with `prelude`/`scan`, options and errors."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.cli.commands.context_views import PLAIN_COLUMNS, TERMINAL_SEPARATOR
from tests.conftest import RunCli, isolated_env, run_in_terminal, strip_ansi

AT = "2026-04-11T18:00:00Z"


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "AGENTS.md").write_text("# Rules\n\n" + "- you must test before you push\n" * 40, encoding="utf-8")
    (ws / "SOUL.md").write_text("Calm and direct.\n", encoding="utf-8")
    (ws / "USER.md").write_text("   \n", encoding="utf-8")
    (ws / "HEARTBEAT.md").write_text("- check the queue\n", encoding="utf-8")
    (ws / "openclaw-workspace-state.json").write_text('{"setupCompletedAt": "2026-01-01"}', encoding="utf-8")
    (ws / "BOOTSTRAP.md").write_text("hello new agent\n", encoding="utf-8")
    (ws / "memory" / "2026-04-11.md").write_text("today's note", encoding="utf-8")
    (ws / "memory" / "2026-04-10.md").write_text("x" * 3000, encoding="utf-8")
    return ws


@pytest.fixture
def config(tmp_path: Path, workspace: Path) -> Path:
    cfg = {
        "agents": {
            "defaults": {"userTimezone": "America/Chicago", "bootstrapMaxChars": 400},
            "list": [
                {"id": "main", "workspace": str(workspace)},
                {"id": "ops", "bootstrapTotalMaxChars": 500},
            ],
        }
    }
    path = tmp_path / "openclaw.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    return path


def cli(run_cli: RunCli, config: Path, *args: str) -> Any:
    return run_cli(["--config", str(config), "context", "--at", AT, *args])


def test_piped_text_is_the_blocks_then_the_prelude_exactly(run_cli: RunCli, config: Path) -> None:
    report = json.loads(cli(run_cli, config, "--json").stdout)
    text = cli(run_cli, config)
    assert text.returncode == 0
    boot = report["bootstrap"]
    prelude = run_cli(["--config", str(config), "prelude", "--at", AT]).stdout
    expected = f"{boot['projectContext']}\n\n{boot['dynamicProjectContext']}\n\n{prelude}"
    assert text.stdout == expected  # no separator, no trailing newline in a pipe
    assert cli(run_cli, config, "--only", "prelude").stdout == prelude
    only_boot = cli(run_cli, config, "--only", "bootstrap").stdout
    assert only_boot == f"{boot['projectContext']}\n\n{boot['dynamicProjectContext']}"
    assert "some bootstrap files were truncated" in text.stderr


def test_json_carries_prelude_json_and_scan_json(run_cli: RunCli, config: Path) -> None:
    report = json.loads(cli(run_cli, config, "--json").stdout)
    prelude_json = json.loads(run_cli(["--config", str(config), "prelude", "--at", AT, "--json"]).stdout)
    scan_json = json.loads(run_cli(["--config", str(config), "scan", "--at", AT, "--json"]).stdout)
    assert report["schema"] == 2
    # The top-level objects name the OpenClaw release (tests/profiles/); context's copies sit inside its own.
    assert report["openclaw"] == prelude_json.pop("openclaw") == scan_json.pop("openclaw")
    assert report["prelude"] == prelude_json
    assert report["scan"] == scan_json
    assert list(report["bootstrap"]["files"][0]) == [
        "name",
        "path",
        "missing",
        "rawChars",
        "injectedChars",
        "truncated",
    ]
    rows = {row["name"]: row for row in report["bootstrap"]["rows"]}
    assert rows["AGENTS.md"]["status"] == "truncated"
    assert rows["AGENTS.md"]["cut"]["style"] == "digest"
    assert rows["USER.md"]["status"] == "empty"
    assert rows["BOOTSTRAP.md"]["status"] == "setup-completed"
    total = report["total"]
    assert total["chars"] == total["bootstrapChars"] + total["preludeChars"]
    assert total["tokensEstimate"] == total["chars"] // 4
    assert total["preludeChars"] == len(prelude_json["prelude"])


def test_session_key_picks_the_agent_and_the_filter(run_cli: RunCli, config: Path, workspace: Path) -> None:
    base = ["-w", str(workspace), "--json"]
    cron = json.loads(cli(run_cli, config, *base, "--session-key", "agent:ops:cron:nightly").stdout)
    assert cron["agentId"] == "ops" and cron["session"]["class"] == "cron"
    assert cron["bootstrap"]["limits"] == {"maxChars": 400, "totalMaxChars": 500}
    assert cron["bootstrap"]["limitSources"]["totalMaxChars"]["origin"] == "per-agent"
    names = [f["name"] for f in cron["bootstrap"]["files"]]
    assert names == ["AGENTS.md", "SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md"]
    sub = json.loads(cli(run_cli, config, *base, "-k", "agent:main:subagent:1").stdout)
    assert [row["status"] for row in sub["bootstrap"]["rows"]].count("session-filter") == 5
    default = json.loads(cli(run_cli, config, "--json").stdout)
    assert default["session"] == {"key": "agent:main:main", "agentId": "main", "class": "main"}


def test_session_key_of_an_unlisted_agent_warns_and_runs(
    run_cli: RunCli, config: Path, workspace: Path
) -> None:
    result = cli(run_cli, config, "-w", str(workspace), "-k", "agent:ghost:main", "--json")
    assert result.returncode == 0
    assert 'agent "ghost" of the session key is not in agents.list' in result.stderr
    assert json.loads(result.stdout)["bootstrap"]["sessionAgentId"] == "ghost"
    quiet = cli(run_cli, config, "-w", str(workspace), "-k", "agent:ghost:main", "--json", "-q")
    assert quiet.returncode == 0 and quiet.stderr == "" and quiet.stdout == result.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "yaml"], '--format must be one of text, table, plain, json, not "yaml"'),
        (["--json", "--format", "table"], "--json and --format exclude each other"),
        (["--only", "both"], '--only must be bootstrap or prelude, not "both"'),
        (["--action", "restart"], '--action must be new or reset, not "restart"'),
        (
            ["--agent", "ops", "-k", "agent:main:main"],
            "--session-key 'agent:main:main' belongs to agent 'main'",
        ),
        (["--agent", "nobody"], 'unknown agent "nobody" (known agents: main, ops)'),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(
    run_cli: RunCli, config: Path, args: list[str], message: str
) -> None:
    result = cli(run_cli, config, *args)
    assert result.returncode == 2 and result.stdout == ""
    assert result.stderr.startswith("memwarm: error: " + message) and result.stderr.count("\n") == 1


def test_plain_rows_cover_both_parts(run_cli: RunCli, config: Path) -> None:
    result = cli(run_cli, config, "--format", "plain")
    lines = result.stdout.splitlines()
    assert lines[0].split("\t") == list(PLAIN_COLUMNS)
    rows = [dict(zip(PLAIN_COLUMNS, line.split("\t"), strict=True)) for line in lines[1:]]
    parts = {(row["part"], row["file"]): row for row in rows}
    agents = parts[("bootstrap", "AGENTS.md")]
    assert (
        agents["status"] == "truncated" and agents["limit"] == "400" and agents["limit_source"] == "defaults"
    )
    assert agents["detail"].startswith("kept head ")
    assert parts[("prelude", "memory/2026-04-10.md")]["status"] == "truncated"
    assert "# total: " in result.stderr and "(estimate: chars/4)" in result.stderr


def _table(run_cli: RunCli, config: Path, width: int) -> str:
    result = run_cli(
        ["--config", str(config), "context", "--at", AT, "--format", "table"], {"COLUMNS": str(width)}
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def _joined(parts: list[str]) -> str:
    """A wrapped cell's lines as one text: after `-` or `/` the line broke inside a word, else at a space."""
    text = ""
    for part in parts:
        text += part if not text or text.endswith(("-", "/")) else " " + part
    return text


def table_rows(screen: str) -> dict[str, dict[str, str]]:
    """file -> its cells by header in the drawn table (footnote markers replaced by their footnotes);
    a row continues on lines whose `share` cell is empty."""
    header = [
        c.strip() for c in next(ln for ln in screen.splitlines() if ln.startswith("┃")).split("┃")[1:-1]
    ]
    rows: list[list[list[str]]] = []
    for line in screen.splitlines():
        if not line.startswith("│"):
            continue
        cells = [cell.strip() for cell in line.strip("│").split("│")]
        if cells[header.index("share")]:
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
    joined = [[_joined(notes.get(_joined(parts), parts)) for parts in row] for row in rows]
    return {row[0]: dict(zip(header[1:], row[1:], strict=True)) for row in joined}


@pytest.mark.parametrize("width", [60, 80, 120, 140])
def test_table_rows_statuses_and_summary(run_cli: RunCli, config: Path, workspace: Path, width: int) -> None:
    screen = _table(run_cli, config, width)
    assert all(len(line) <= width for line in screen.splitlines()), screen
    assert "…" not in screen  # nothing shortened: long details went below the table
    rows = table_rows(screen)
    assert rows["AGENTS.md"]["status"].startswith("included, truncated (kept head ")
    assert rows["AGENTS.md"]["share"].endswith("%")
    assert rows["USER.md"]["status"] == "skipped as empty or blank"
    # Whole words, wrapped at spaces (and after `-`), never cut inside one.
    assert rows["BOOTSTRAP.md"]["status"] == (
        "dropped, workspace setup completed (openclaw-workspace-state.json records setup completed at "
        "2026-01-01)"
    )
    marker = f"[MISSING] Expected at: {workspace / 'TOOLS.md'}"
    assert rows["TOOLS.md"]["status"] == "missing (marker injected)"
    assert rows["TOOLS.md"]["injected"] == str(len(marker))
    assert rows["memory/2026-04-10.md"]["status"] == "included, truncated to maxFileChars"
    if width >= 120:
        assert rows["AGENTS.md"]["limit"] == "400 defaults" and rows["TOOLS.md"]["raw"] == "-"
        assert rows["memory/2026-04-10.md"]["limit"] == "1200 default"
    elif width >= 80:  # the number alone, on the row's one line: its source is in the summary
        assert rows["AGENTS.md"]["limit"] == "400" and rows["TOOLS.md"]["raw"] == "-"
        assert rows["memory/2026-04-10.md"]["limit"] == "1200"
        assert "per note 1200 (maxFileChars, default)" in " ".join(screen.split())
    else:  # narrow: the limits are in the summary only
        assert "limit" not in rows["AGENTS.md"] and "raw" not in rows["AGENTS.md"]
    if width <= 80:  # the long details are footnotes, each cell a few lines at most
        assert "[1] " in screen
    flat = " ".join(screen.split())
    summary = re.search(r"total: (\d+) chars, about (\d+) tokens \(estimate: chars/4\)", flat)
    assert summary is not None and int(summary.group(2)) == int(summary.group(1)) // 4
    assert re.search(r"bootstrap: \d+ of 60000 chars of the total budget", flat)
    assert re.search(r"prelude: \d+ of 2800 chars \(maxTotalChars, default\)", flat)
    shares = [float(cells["share"].rstrip("%")) for cells in rows.values() if cells["share"] != "-"]
    assert 50 < sum(shares) < 100  # of the whole startup context, headings and paths included


def test_terminal_defaults_to_the_table_and_text_gets_a_separator(
    config: Path, home_dir: Path, run_cli: RunCli
) -> None:
    env = isolated_env(home_dir)
    base = ["--config", str(config), "context", "--at", AT]
    table = strip_ansi(run_in_terminal(base, env, columns=100))
    assert "┃" in table and "share" in table and "total:" in table
    text = strip_ansi(run_in_terminal([*base, "--format", "text", "-q"], env, columns=100))
    piped = run_cli([*base, "--format", "text"]).stdout
    assert TERMINAL_SEPARATOR in text and TERMINAL_SEPARATOR not in piped
    assert (
        text.replace("\r\n", "\n")
        == piped.replace("\n\n[Startup", f"\n{TERMINAL_SEPARATOR}\n[Startup") + "\n"
    )


def test_pending_bootstrap_shows_the_blocks_without_the_prelude(
    run_cli: RunCli, config: Path, workspace: Path
) -> None:
    # No setup-completed state: BOOTSTRAP.md is pending, and a bare /new prepends no prelude (§5.2).
    (workspace / "openclaw-workspace-state.json").unlink()
    report = json.loads(cli(run_cli, config, "--json").stdout)
    assert report["bootstrap"]["bootstrapMode"] == "full"
    assert report["preludeSuppressedWhileBootstrapPending"] is True
    assert report["prelude"]["prelude"]  # what `prelude --json` gives is still carried
    assert report["total"]["preludeChars"] == 0
    text = cli(run_cli, config)
    boot = report["bootstrap"]
    assert text.returncode == 0
    assert text.stdout == f"{boot['projectContext']}\n\n{boot['dynamicProjectContext']}"
    assert "BOOTSTRAP.md is pending" in text.stderr
    only_prelude = cli(run_cli, config, "--only", "prelude")
    assert only_prelude.returncode == 0
    assert only_prelude.stdout == ""
    assert "BOOTSTRAP.md is pending" in only_prelude.stderr
