"""`memwarm scan`: the status vocabulary (a workspace per status), views, --all, --all-agents, terminals."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.cli.commands.scan_views import PLAIN_COLUMNS
from memwarm_cli.profiles.releases import P0
from memwarm_cli.startup.file_rows import STATUS_DESCRIPTIONS, Status
from memwarm_cli.startup.plan import build_plan
from tests.conftest import RunCli, isolated_env, run_in_terminal, strip_ansi, write_memory_note

AT = "2026-04-11T18:00:00Z"
AT_MS = 1775930400000
CHICAGO = {"agents": {"defaults": {"userTimezone": "America/Chicago"}}}


def make_config(tmp_path: Path, cfg: dict[str, Any]) -> Path:
    path = tmp_path / "openclaw.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    return path


def scan_json(run_cli: RunCli, config: Path, *args: str) -> Any:
    result = run_cli(["--config", str(config), "scan", "--at", AT, "--json", *args])
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {f["path"]: f["status"] for f in report["files"]}


Builder = Callable[[Path, Path], dict[str, Any]]


def _included(ws: Path, out: Path) -> dict[str, Any]:
    write_memory_note(ws, "2026-04-11.md", "hello")
    return {}


def _truncated(ws: Path, out: Path) -> dict[str, Any]:
    write_memory_note(ws, "2026-04-11.md", "y" * 50)
    return {"maxFileChars": 10}


def _shrunk(ws: Path, out: Path) -> dict[str, Any]:
    write_memory_note(ws, "2026-04-11.md", "x" * 500)
    return {"maxFileChars": 500, "maxTotalChars": 180}


def _budget(ws: Path, out: Path) -> dict[str, Any]:
    write_memory_note(ws, "2026-04-11.md", "a" * 100)
    write_memory_note(ws, "2026-04-10.md", "b" * 100)
    return {"maxTotalChars": 250}


def _empty(ws: Path, out: Path) -> dict[str, Any]:
    write_memory_note(ws, "2026-04-11.md", " \n\t\ufeff ")
    return {}


def _missing(ws: Path, out: Path) -> dict[str, Any]:
    (ws / "memory").mkdir()
    return {}


def _oversize(ws: Path, out: Path) -> dict[str, Any]:
    write_memory_note(ws, "2026-04-11.md", "z" * 65)
    return {"maxFileBytes": 64}


def _symlink_escape(ws: Path, out: Path) -> dict[str, Any]:
    (ws / "memory").mkdir()
    target = out / "secret.md"
    target.write_text("outside", encoding="utf-8")
    (ws / "memory" / "2026-04-11.md").symlink_to(target)
    return {}


def _hardlink(ws: Path, out: Path) -> dict[str, Any]:
    source = write_memory_note(ws, "2026-04-11.md", "linked")
    os.link(source, ws / "copy.md")
    return {}


def _not_regular(ws: Path, out: Path) -> dict[str, Any]:
    (ws / "memory" / "2026-04-11.md").mkdir(parents=True)
    return {}


def _slug_cap(ws: Path, out: Path) -> dict[str, Any]:
    for index in range(5):
        write_memory_note(ws, f"2026-04-11-s{index}.md", f"slug {index}", mtime=1775900000 + index)
    return {}


def _slug_symlink(ws: Path, out: Path) -> dict[str, Any]:
    real = write_memory_note(ws, "2026-04-11.md", "real")
    (ws / "memory" / "2026-04-11-alias.md").symlink_to(real)
    return {}


def _outside_window(ws: Path, out: Path) -> dict[str, Any]:
    write_memory_note(ws, "2026-04-01.md", "old")
    return {}


def _name_mismatch(ws: Path, out: Path) -> dict[str, Any]:
    write_memory_note(ws, "2026-4-11.md", "misnamed")
    return {}


STATUS_CASES: dict[Status, tuple[Builder, str]] = {
    Status.INCLUDED: (_included, "memory/2026-04-11.md"),
    Status.TRUNCATED: (_truncated, "memory/2026-04-11.md"),
    Status.SHRUNK: (_shrunk, "memory/2026-04-11.md"),
    Status.BUDGET_EXHAUSTED: (_budget, "memory/2026-04-10.md"),
    Status.EMPTY: (_empty, "memory/2026-04-11.md"),
    Status.MISSING: (_missing, "memory/2026-04-11.md"),
    Status.OVERSIZE: (_oversize, "memory/2026-04-11.md"),
    Status.SYMLINK_ESCAPE: (_symlink_escape, "memory/2026-04-11.md"),
    Status.HARDLINK: (_hardlink, "memory/2026-04-11.md"),
    Status.NOT_REGULAR: (_not_regular, "memory/2026-04-11.md"),
    Status.SLUG_CAP: (_slug_cap, "memory/2026-04-11-s0.md"),
    Status.SLUG_SYMLINK: (_slug_symlink, "memory/2026-04-11-alias.md"),
    Status.OUTSIDE_WINDOW: (_outside_window, "memory/2026-04-01.md"),
    Status.NAME_MISMATCH: (_name_mismatch, "memory/2026-4-11.md"),
}


@pytest.mark.parametrize("status", list(STATUS_CASES), ids=[s.value for s in STATUS_CASES])
def test_each_status_through_the_cli(run_cli: RunCli, tmp_path: Path, status: Status) -> None:
    build, path = STATUS_CASES[status]
    ws, out = tmp_path / "ws", tmp_path / "outside"
    ws.mkdir()
    out.mkdir()
    limits = build(ws, out)
    config = make_config(
        tmp_path, {"agents": {"defaults": {"userTimezone": "America/Chicago", "startupContext": limits}}}
    )
    report = scan_json(run_cli, config, "--workspace", str(ws), "--all")
    assert statuses(report)[path] == status.value
    row = next(f for f in report["files"] if f["path"] == path)
    assert row["statusText"] == STATUS_DESCRIPTIONS[status]


def test_status_vocabulary_is_covered() -> None:
    """Every status has a CLI case above, or (vanished, unreadable) an in-process fault test below."""
    # symlink-refused is 2026.8.1+ only: tests/startup/test_prelude_profiles.py
    assert set(Status) == set(STATUS_CASES) | {Status.VANISHED, Status.UNREADABLE, Status.SYMLINK_REFUSED}


def test_vanished_between_listing_and_stat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A real deletion race: the file is listed, then removed just before its stat.
    write_memory_note(tmp_path, "2026-04-11-gone.md", "soon gone")
    real_stat = os.lstat

    def deleting_stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        if str(path).endswith("2026-04-11-gone.md"):
            os.unlink(path)
        return real_stat(path, *args, **kwargs)

    monkeypatch.setattr(os, "lstat", deleting_stat)  # the os plan.py calls
    plan = build_plan(tmp_path, CHICAGO, AT_MS, profile=P0)
    assert {r.name: r.status for r in plan.rows}["2026-04-11-gone.md"] is Status.VANISHED


def test_slugged_name_with_invalid_utf8_is_dropped_as_node_does(tmp_path: Path) -> None:
    (tmp_path / "memory").mkdir()
    raw = os.path.join(os.fsencode(tmp_path / "memory"), b"2026-04-11-caf\xe9.md")
    with open(raw, "wb") as handle:
        handle.write(b"latin-1 name")
    plan = build_plan(tmp_path, CHICAGO, AT_MS, profile=P0)
    row = next(r for r in plan.rows if r.name.startswith("2026-04-11-caf"))
    assert row.status is Status.VANISHED and plan.prelude is None


def test_unreadable_reports_the_os_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Permission errors cannot be produced as root (CI), so the open is made to fail as it would for a user.

    write_memory_note(tmp_path, "2026-04-11.md", "private")
    real_open = os.open

    def denied(path: Any, *args: Any, **kwargs: Any) -> int:
        if str(path).endswith("2026-04-11.md"):
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)  # the os boundary_read calls
    row = build_plan(tmp_path, CHICAGO, AT_MS, profile=P0).rows[0]
    assert (row.status, row.detail) == (Status.UNREADABLE, "Permission denied")


def test_json_summary_fields(run_cli: RunCli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write_memory_note(ws, "2026-04-11.md", "hello world")
    config = make_config(
        tmp_path,
        {"agents": {"defaults": {"userTimezone": "Mars/Olympus", "startupContext": {"dailyMemoryDays": 99}}}},
    )
    report = scan_json(run_cli, config, "-w", str(ws))
    assert report["schema"] == 2
    assert report["timezone"] == {
        "configured": "Mars/Olympus",
        "used": "UTC",
        "fellBack": True,
        "reason": 'unknown time zone "Mars/Olympus"; using the host zone UTC',
    }
    assert report["limits"]["dailyMemoryDays"] == {
        "value": 14,
        "source": "clamped",
        "configured": 99,
        "note": "clamped from 99",
    }
    assert report["limits"]["maxTotalChars"]["source"] == "default"
    assert len(report["window"]["days"]) == 14
    included = [f for f in report["files"] if f["status"] == "included"]
    assert report["budget"]["used"] == included[0]["chars"]["block"] == 95 + len("hello world")
    assert report["counts"] == {"included": 1, "missing": 13}
    assert report["prelude"] == {
        "loaded": True,
        "length": 410 + report["budget"]["used"],
        "markerEmitted": False,
    }
    assert report["gate"]["new"] == {"applied": True, "reason": None}


def test_plain_output_is_tsv_with_summary_on_stderr(run_cli: RunCli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write_memory_note(ws, "2026-04-11.md", "hello", mtime=AT_MS / 1000 - 3600)
    config = make_config(tmp_path, CHICAGO)
    result = run_cli(["--config", str(config), "scan", "--at", AT, "-w", str(ws)])
    lines = result.stdout.splitlines()
    assert lines[0].split("\t") == list(PLAIN_COLUMNS)
    assert all(len(line.split("\t")) == len(PLAIN_COLUMNS) for line in lines)
    first = dict(zip(PLAIN_COLUMNS, lines[1].split("\t"), strict=True))
    assert (first["stamp"], first["clock"], first["path"], first["status"]) == (
        "2026-04-11",
        "both",
        "memory/2026-04-11.md",
        "included",
    )
    assert first["mtime"] == "2026-04-11T12:00:00-05:00"  # in the resolved zone (CDT)
    assert "\x1b" not in result.stdout
    assert all(line.startswith("# ") for line in result.stderr.splitlines())
    assert "budget:" in result.stderr
    quiet = run_cli(["--config", str(config), "scan", "--at", AT, "-w", str(ws), "-q"])
    assert quiet.stderr == "" and quiet.stdout == result.stdout


def test_hostile_names_are_escaped(run_cli: RunCli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    write_memory_note(ws, "2026-04-11-a\tb\nc\x1b[31mred\u202e.md", "hostile")
    config = make_config(tmp_path, CHICAGO)
    plain = run_cli(["--config", str(config), "scan", "--at", AT, "-w", str(ws)])
    assert "\x1b" not in plain.stdout and "\u202e" not in plain.stdout
    assert "memory/2026-04-11-a\\tb\\nc\\x1b[31mred\\u202e.md" in plain.stdout
    assert len(plain.stdout.splitlines()) == 4  # header, 04-11, its slugged file, 04-10
    report = scan_json(run_cli, config, "-w", str(ws))
    labels = [f["label"] for f in report["files"]]
    assert "memory/2026-04-11-a b c__31mred_.md" in labels  # ESC -> _, then [ -> _


def test_all_agents_gives_one_object_with_every_agent(run_cli: RunCli, tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    write_memory_note(one, "2026-04-11.md", "first")
    write_memory_note(two, "2026-04-10.md", "second")
    cfg = {
        "agents": {
            "defaults": {"userTimezone": "America/Chicago"},
            "list": [{"id": "one", "workspace": str(one)}, {"id": "two", "workspace": str(two)}],
        }
    }
    everyone = scan_json(run_cli, make_config(tmp_path, cfg), "--all-agents")
    assert list(everyone) == ["schema", "openclaw", "agents"] and everyone["schema"] == 2
    reports = everyone["agents"]
    assert [r["agentId"] for r in reports] == ["one", "two"]
    assert statuses(reports[0])["memory/2026-04-11.md"] == "included"
    assert statuses(reports[1])["memory/2026-04-10.md"] == "included"
    both = run_cli(["--config", str(make_config(tmp_path, cfg)), "scan", "--all-agents", "--agent", "one"])
    assert both.returncode == 2


@pytest.fixture
def terminal_case(tmp_path: Path, home_dir: Path) -> tuple[list[str], dict[str, str]]:
    ws = tmp_path / "ws"
    write_memory_note(ws, "2026-04-11.md", "hello")
    long_name = "2026-04-11-a-rather-long-slug-name-that-needs-wrapping-in-narrow-terminals.md"
    write_memory_note(ws, long_name, "slug")
    config = make_config(tmp_path, {"agents": {"defaults": {"userTimezone": "America/Chicago"}}})
    return ["--config", str(config), "scan", "--at", AT, "-w", str(ws)], isolated_env(home_dir)


def test_terminal_gets_a_table_with_colour(terminal_case: tuple[list[str], dict[str, str]]) -> None:
    args, env = terminal_case
    screen = run_in_terminal(args, env)
    assert "┃" in screen or "│" in screen, screen
    assert "\x1b[" in screen  # styled
    assert "included" in screen and "budget:" in screen
    assert all(len(line.rstrip("\r")) <= 80 for line in strip_ansi(screen).splitlines())


def test_no_color_on_a_terminal(terminal_case: tuple[list[str], dict[str, str]]) -> None:
    args, env = terminal_case
    screen = run_in_terminal(args, {**env, "NO_COLOR": "1"})
    assert "│" in screen or "┃" in screen
    colour_codes = [code for code in ("\x1b[32m", "\x1b[31m", "\x1b[33m", "\x1b[2m") if code in screen]
    assert colour_codes == []


def test_symlink_target_with_escapes_is_shown_escaped(run_cli: RunCli, tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "out"
    (ws / "memory").mkdir(parents=True)
    outside.mkdir()
    target = outside / "evil\x1b[31mRED\rX"
    target.write_text("outside", encoding="utf-8")
    (ws / "memory" / "2026-04-11.md").symlink_to(target)
    config = make_config(tmp_path, CHICAGO)
    plain = run_cli(["--config", str(config), "scan", "--at", AT, "-w", str(ws)])
    assert "\x1b" not in plain.stdout and "\r" not in plain.stdout
    assert "symlink-escape\tpoints to " in plain.stdout and "evil\\x1b[31mRED\\rX" in plain.stdout
    assert json.loads(run_cli(["--config", str(config), "scan", "--at", AT, "-w", str(ws), "--json"]).stdout)[
        "files"
    ][0]["detail"].endswith("evil\\x1b[31mRED\\rX")
