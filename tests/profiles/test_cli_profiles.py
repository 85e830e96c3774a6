"""The run's OpenClaw release through the CLI: how it is chosen, where it is shown, and what a
2026.9.6-shaped config gives (the 2026.9.6 prelude and context without any flag)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import RunCli, write_memory_note
from tests.profiles.support import npm_global

AT = "2026-04-11T18:00:00Z"
INTRO_96 = "Loaded project context:"
INTRO_635 = "The following project context files have been loaded:"


def _workspace(root: Path) -> Path:
    """A workspace whose memory/ is a link (2026.8.1+ read nothing through it) with an AGENTS.md."""
    ws = root / "ws"
    real = ws / "real-memory"
    real.mkdir(parents=True)
    (real / "2026-04-11.md").write_text("today's note", encoding="utf-8")
    (ws / "memory").symlink_to("real-memory")
    (ws / "AGENTS.md").write_text("rules", encoding="utf-8")
    (ws / "USER.md").write_text("prefers tea", encoding="utf-8")
    return ws


def _config(root: Path, cfg: dict[str, Any]) -> Path:
    path = root / "openclaw.json"
    path.write_text(json.dumps(cfg), encoding="utf-8")
    return path


def test_a_2026_9_shaped_config_gives_the_2026_9_prelude_and_context(run_cli: RunCli, tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    cfg = {
        "agents": {
            "ownership": "explicit",
            "defaults": {"systemAgent": {"agentId": "work"}, "userTimezone": "America/Chicago"},
            "entries": {"main": {"workspace": str(tmp_path / "other")}, "work": {"workspace": str(ws)}},
        },
        "memory": {"search": {"enabled": True, "sources": ["memory"]}},
    }
    config = str(_config(tmp_path, cfg))
    prelude = run_cli(["--config", config, "prelude", "--at", AT, "--json"])
    assert prelude.returncode == 0, prelude.stderr
    record = json.loads(prelude.stdout)
    assert record["openclaw"]["profile"] == "P3" and record["openclaw"]["source"] == "config-shape"
    # The default agent is the system agent of the keyed roster; its symlinked memory/ is not read.
    assert record["workspace"] == str(ws)
    assert record["prelude"] is None
    context = run_cli(["--config", config, "context", "--at", AT, "--json"])
    assert context.returncode == 0, context.stderr
    boot = json.loads(context.stdout)["bootstrap"]
    assert boot["projectContext"].split("\n")[1] == INTRO_96
    assert [f["name"] for f in boot["resolvedFiles"]] == [
        "AGENTS.md",
        "SOUL.md",
        "IDENTITY.md",
        "USER.md",
        "BOOTSTRAP.md",
    ]
    # 2026.6.35 knows no agents.entries (its default agent is main) and reads the note through the link.
    old = run_cli(["--openclaw", "2026.6.35", "--config", config, "prelude", "--agent", "work", "--at", AT])
    assert old.returncode == 2 and 'unknown agent "work"' in old.stderr
    old = run_cli(
        ["--openclaw", "2026.6.35", "--config", config, "prelude", "--workspace", str(ws), "--at", AT]
    )
    assert old.returncode == 0 and "today's note" in old.stdout


@pytest.mark.parametrize(
    "where",
    [
        ["--openclaw", "2026.9.6", "prelude"],
        ["prelude", "--openclaw", "2026.9.6"],
        ["prelude", "--openclaw=2026.9.6"],
    ],
)
def test_the_flag_before_or_after_the_subcommand(run_cli: RunCli, tmp_path: Path, where: list[str]) -> None:
    ws = _workspace(tmp_path)
    result = run_cli([*where, "--workspace", str(ws), "--at", AT, "--json"])
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["openclaw"] == {
        "version": "2026.9.6",
        "profile": "P3",
        "releases": "2026.9.4-2026.9.6",
        "source": "flag",
        "path": None,
        "measured": True,
    }
    # The Typer route (an attached short option, which the fast path leaves to it) gives the same.
    typer = run_cli([*where, f"-w{ws}", "--at", AT, "--json"])
    assert typer.returncode == 0, typer.stderr
    assert json.loads(typer.stdout)["openclaw"]["source"] == "flag"


def test_the_environment_and_the_installed_package(run_cli: RunCli, tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    bin_dir = npm_global(tmp_path / "prefix", "2026.8.2", build_version="2026.8.2")
    path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    args = ["prelude", "--workspace", str(ws), "--at", AT, "--json"]
    installed = json.loads(run_cli(args, {"PATH": path}).stdout)["openclaw"]
    assert (installed["profile"], installed["source"], installed["version"]) == (
        "P2",
        "installed",
        "2026.8.2",
    )
    assert installed["path"] == os.path.realpath(tmp_path / "prefix/lib/node_modules/openclaw")
    from_env = json.loads(run_cli(args, {"PATH": path, "MEMWARM_OPENCLAW": "2026.7.35"}).stdout)["openclaw"]
    assert (from_env["profile"], from_env["source"]) == ("P1", "env")
    flag = json.loads(run_cli(["--openclaw", "2026.6.35", *args], {"PATH": path}).stdout)["openclaw"]
    assert flag["source"] == "flag"


def test_an_unmeasured_release_says_so_once(run_cli: RunCli, tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    result = run_cli(["--openclaw", "2026.10.2", "prelude", "--workspace", str(ws), "--at", AT, "--json"])
    assert result.returncode == 0
    assert json.loads(result.stdout)["openclaw"]["profile"] == "P3"
    assert result.stderr.count("2026.10.2") == 1 and "newest profile" in result.stderr
    quiet = run_cli(["--openclaw", "2026.10.2", "prelude", "-w", str(ws), "--at", AT, "--json", "-q"])
    assert quiet.stderr == ""


def test_a_name_that_is_no_version_is_a_usage_error(run_cli: RunCli, tmp_path: Path) -> None:
    for args, env in ((["--openclaw", "latest", "prelude"], {}), (["prelude"], {"MEMWARM_OPENCLAW": "9.6"})):
        result = run_cli(args, env)
        assert result.returncode == 2, result
        assert result.stderr.count("\n") == 1 and "is not an OpenClaw version" in result.stderr


def test_every_json_output_carries_the_release(run_cli: RunCli, tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    write_memory_note(tmp_path / "plain", "2026-04-11.md", "note")
    config = str(_config(tmp_path, {"agents": {"list": [{"id": "main", "workspace": str(ws)}]}}))
    base = ["--openclaw", "2026.9.6", "--config", config]
    for command in (
        ["prelude", "--at", AT, "--json"],
        ["scan", "--at", AT, "--json"],
        ["context", "--at", AT, "--json"],
        ["config", "show", "--json"],
        ["config", "check", "--json"],
        ["status", "--json"],
    ):
        result = run_cli([*base, *command])
        record = json.loads(result.stdout)
        assert record["openclaw"]["version"] == "2026.9.6", (command, result.stderr)
        assert list(record)[:2] == ["schema", "openclaw"], command


def test_status_and_config_show_say_which_release_in_text(run_cli: RunCli, tmp_path: Path) -> None:
    config = str(_config(tmp_path, {"agents": {"list": [{"id": "main", "workspace": str(tmp_path)}]}}))
    shown = run_cli(["--config", config, "config", "show", "--format", "yaml"])
    assert shown.returncode == 0, shown.stderr
    assert "\nopenclaw:\n" in shown.stdout and "profile: P0" in shown.stdout
    assert "source: config-shape" in shown.stdout
    status = run_cli(["--openclaw", "2026.9.6", "--config", config, "status", "--format", "plain"])
    assert "OpenClaw 2026.9.6, profile P3 (2026.9.4-2026.9.6), from --openclaw" in status.stderr


def test_legacy_setup_state_fails_context_from_2026_8(run_cli: RunCli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / ".openclaw").mkdir(parents=True)
    (ws / ".openclaw" / "workspace-state.json").write_text('{"setupCompletedAt": "2026-01-01T00:00:00.000Z"}')
    message = f"Legacy workspace setup state requires migration for {ws}; run openclaw doctor --fix."
    text = run_cli(["--openclaw", "2026.9.6", "context", "--workspace", str(ws), "--at", AT])
    assert (text.returncode, text.stdout) == (1, "")
    assert text.stderr.count("\n") == 1 and message in text.stderr
    as_json = run_cli(["--openclaw", "2026.8.2", "context", "--workspace", str(ws), "--at", AT, "--json"])
    assert as_json.returncode == 1
    error = json.loads(as_json.stdout)["error"]
    assert (error["type"], error["message"], error["code"]) == ("Error", message, None)
    # 2026.6.35 reads the file: setup completed hides BOOTSTRAP.md, no error.
    assert run_cli(["--openclaw", "2026.6.35", "context", "--workspace", str(ws), "--at", AT]).returncode == 0


# ---- issue 31, class 10: outside text in a message is cut with an ellipsis -------------------------------

ELLIPSIS = "\u2026"


def _longest_word(text: str) -> int:
    return max((len(word) for word in text.split()), default=0)


@pytest.mark.parametrize("value", ["x" * 5000, "2026.9.6-" + "a" * 5000, "2026.10.2+" + "b" * 5000])
def test_a_long_openclaw_value_is_cut_in_every_message(run_cli: RunCli, tmp_path: Path, value: str) -> None:
    ws = _workspace(tmp_path)
    for args, env in (
        (["--openclaw", value, "prelude", "-w", str(ws), "--at", AT], {}),
        (["prelude", "-w", str(ws), "--at", AT], {"MEMWARM_OPENCLAW": value}),
    ):
        result = run_cli(args, env)
        assert ELLIPSIS in result.stderr and _longest_word(result.stderr) <= 210, result.stderr[:400]


def test_a_900_kb_installed_version_is_cut_in_every_message_and_kept_whole_in_json(
    run_cli: RunCli, tmp_path: Path
) -> None:
    ws = _workspace(tmp_path)
    config = str(_config(tmp_path, {"agents": {"list": [{"id": "main", "workspace": str(ws)}]}}))
    for version in ("2026.9.6-" + "c" * 900_000, "z" * 900_000):
        prefix = tmp_path / f"prefix-{version[0]}"
        bin_dir = npm_global(prefix, version)
        path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
        for args in (["prelude", "--at", AT], ["status"], ["config", "show", "--format", "json"]):
            result = run_cli(["--config", config, *args], {"PATH": path})
            assert len(result.stderr) < 2000, (args, result.stderr[:300])
            assert ELLIPSIS in result.stderr, (args, result.stderr[:300])
        human = run_cli(["--config", config, "status"], {"PATH": path})
        assert _longest_word(human.stdout + human.stderr) <= 210
        data = run_cli(["--config", config, "prelude", "--at", AT, "--json", "-q"], {"PATH": path})
        assert json.loads(data.stdout)["openclaw"]["version"] == version  # data, not a message


@pytest.mark.parametrize("command", [["init-backends"], ["status"], ["search", "tea"]])
def test_a_refusal_by_the_installed_release_says_where_it_came_from(
    run_cli: RunCli, tmp_path: Path, command: list[str]
) -> None:
    """An openclaw 2026.6.35 on PATH and a 2026.9-shaped config: the refusal names that openclaw (the
    release was nobody's choice on the command line) and how to name another."""
    ws = _workspace(tmp_path)
    bin_dir = npm_global(tmp_path / "prefix", "2026.6.35", build_version="2026.6.35")
    config = _config(tmp_path, {"agents": {"entries": {"main": {"workspace": str(ws)}}}})
    path = f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"
    result = run_cli(["--config", str(config), *command], {"PATH": path})
    assert result.returncode == 3 and result.stdout == "", result.stderr
    package = os.path.realpath(tmp_path / "prefix/lib/node_modules/openclaw")
    (line,) = result.stderr.splitlines()
    assert (
        f"(OpenClaw 2026.6.35 refuses this config; the openclaw on PATH ({bin_dir / 'openclaw'}, package "
        f"{package}) is that release; --openclaw VERSION or MEMWARM_OPENCLAW names another; `memwarm config "
        "check` lists every error)"
    ) in line, line
    # The way out it names: the release the config was written for, on the command line.
    named = run_cli(["--openclaw", "2026.9.6", "--config", str(config), *command], {"PATH": path})
    assert named.returncode != 3 and "refuses this config" not in named.stderr, named.stderr
