"""The Typer-free routes (`prelude`, `context`, `scan`, `status`, `init-backends`) agree with the Typer
commands they shortcut."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.cli.app import build_command
from memwarm_cli.cli.fastpath import (
    FAST_COMMANDS,
    GLOBAL_VALUE_OPTIONS,
    FastCommand,
    parse_fast_argv,
)
from memwarm_cli.cli.options import CONFIG_META_KEY, OPENCLAW_META_KEY
from tests.conftest import RunCli

GROUP = build_command()


def typer_parse(argv: list[str]) -> dict[str, Any]:
    """What the Typer app would pass to the command for `argv`."""
    root = GROUP.make_context("memwarm", list(argv))
    rest = [*root._protected_args, *root.args]
    command = GROUP.commands[rest[0]]  # type: ignore[attr-defined]
    sub = command.make_context(rest[0], rest[1:], parent=root)
    # `--config` before or after the subcommand: its callbacks leave the last one in the shared meta.
    params = {
        "config_path": sub.meta.get(CONFIG_META_KEY),
        "openclaw": sub.meta.get(OPENCLAW_META_KEY),
        **sub.params,
    }
    if params.get("workspace") is not None:  # Typer makes a Path, which the command reads as its str
        params["workspace"] = str(Path(params["workspace"]))
    for param in command.params:  # and a list of a repeated option's values, None for none
        if getattr(param, "multiple", False) and param.name in params:
            params[param.name] = list(params[param.name]) or None
    return params


def option_names(params: list[Any]) -> dict[str, bool]:
    return {name: bool(getattr(p, "is_flag", False)) for p in params for name in (*p.opts, *p.secondary_opts)}


@pytest.mark.parametrize("fast", FAST_COMMANDS.values(), ids=list(FAST_COMMANDS))
def test_fast_path_knows_exactly_the_typer_options(fast: FastCommand) -> None:
    command = GROUP.commands[fast.name]  # type: ignore[attr-defined]
    typer_options = option_names(command.params)
    typer_options.pop("--help", None)
    fast_options = {
        **{n: False for n in fast.value_options},
        **{n: True for n in fast.flag_options},
        **{n: True for n in fast.off_flags},
    }
    assert fast_options == typer_options
    global_options = {n for n in option_names(GROUP.params) if n not in ("--help", "-h", "--version", "-V")}
    assert set(GLOBAL_VALUE_OPTIONS) == global_options
    assert set(fast.defaults) == {
        *fast.value_options.values(),
        *fast.flag_options.values(),
        *fast.off_flags.values(),
    }
    assert fast.repeated == {p.name for p in command.params if getattr(p, "multiple", False)}
    ranges = {p.name: p.type for p in command.params if type(p.type).__name__ in ("IntRange", "FloatRange")}
    assert {name: minimum for name, (_, minimum) in fast.numbers.items()} == {
        name: kind.min for name, kind in ranges.items()
    }
    assert {name: kind for name, (kind, _) in fast.numbers.items()} == {
        name: int if type(kind).__name__ == "IntRange" else float for name, kind in ranges.items()
    }
    assert {p.name: p.default for p in command.params if p.expose_value} == {
        k: v for k, v in fast.defaults.items() if k not in ("config_path", "openclaw")
    }


@pytest.mark.parametrize(
    "argv",
    [
        ["prelude"],
        ["--config", "c.json5", "prelude", "--at", "2026-04-11T18:00:00Z"],
        [
            "-c",
            "c.json",
            "prelude",
            "-a",
            "Ops",
            "-w",
            "ws",
            "--at=-5000",
            "--action",
            "reset",
            "--json",
            "-q",
        ],
        ["--config=c.yaml", "prelude", "--agent=x", "--workspace=w s", "--quiet", "--json"],
        ["prelude", "--at", "-5", "--agent", "a", "--agent", "b"],
        ["prelude", "--workspace", "./ws//a/./b/"],
        ["prelude", "--action="],
        ["context"],
        [
            "-c",
            "c.json",
            "context",
            "-k",
            "agent:main:cron:x",
            "-f",
            "plain",
            "--only",
            "prelude",
            "-w",
            "ws",
            "--at=0",
            "-q",
        ],
        ["context", "--session-key=agent:ops:main", "--json", "--format", "bogus", "--action", "reset"],
        ["--config=c.yaml", "context", "--agent=x", "--only=bootstrap", "--format=table", "--quiet"],
        # The global option after the subcommand, as users type it; the last one given wins.
        ["prelude", "--config", "x.json5"],
        ["prelude", "-a", "ops", "-c", "x.yaml", "--json"],
        ["-c", "first.json", "context", "--config=second.json", "-q"],
        # --openclaw the same way, before or after the subcommand, the last one winning
        ["--openclaw", "2026.9.6", "prelude", "--json"],
        ["prelude", "--openclaw=2026.7.35", "-c", "c.json"],
        ["--openclaw", "2026.6.35", "scan", "--openclaw", "2026.8.2", "--all"],
        ["status", "--openclaw", "2026.9.6", "--json"],
        ["--openclaw=9", "init-backends", "--dry-run"],
        ["scan"],
        ["scan", "--all", "--json", "-w", "ws", "--at", "0", "-c", "c.json"],
        ["-c", "c.json", "scan", "--all-agents", "--format=plain", "-q", "--agent", "a", "--agent=b"],
        ["scan", "-f", "table", "--workspace=w s", "--all", "--at=-5", "--json"],
        ["status"],
        ["status", "-a", "one", "--agent", "two", "--agent=three", "--format", "prometheus"],
        ["status", "--all-agents", "--json", "--textfile", "/tmp/x.prom", "--max-age=2h", "-q"],
        ["--config", "c.json", "status", "-f", "bogus", "--max-age", "", "-c", "d.json"],
        ["init-backends"],
        ["init-backends", "-q", "--agent", "a", "-a", "b", "--concurrency", "2", "--timeout", "1.5"],
        ["init-backends", "--dry-run", "--force", "--embed", "--no-embed", "--probe", "--json"],
        ["init-backends", "--no-embed", "--embed", "--probe-query", "-x", "--probe-timeout=0.001"],
        ["init-backends", "--concurrency", " 3 ", "--timeout", "inf", "--probe-timeout", "nan"],
        ["init-backends", "--concurrency=\u0663", "--timeout=1_0", "--at", "2026-04-11T18:00:00Z"],
        ["init-backends", "--probe-query", "", "--agent", "--json"],
    ],
)
def test_fast_parse_equals_typer_parse(argv: list[str]) -> None:
    fast = parse_fast_argv(argv)
    assert fast is not None
    assert _comparable(fast[1]) == _comparable(typer_parse(argv))


def _comparable(params: dict[str, Any]) -> dict[str, Any]:
    """NaN as text: `--timeout nan` is a value both parse (nan != nan), and the command refuses."""
    return {k: repr(v) if isinstance(v, float) and v != v else v for k, v in params.items()}


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["--help"],
        ["--version"],
        ["prelude", "--help"],
        ["prelude", "-amain"],
        ["prelude", "-qa", "x"],
        ["prelude", "--bogus"],
        ["prelude", "--at"],
        ["prelude", "--json=yes"],
        ["prelude", "extra"],
        ["prelude", "-cx"],
        ["search", "query"],
        ["config", "check"],
        ["--config", "x", "scan", "prelude"],
        ["context", "--help"],
        ["context", "-fjson"],
        ["context", "--session-key"],
        ["context", "--all"],
        ["scan", "-h"],
        ["scan", "--all=1"],
        ["scan", "-qa", "x"],
        ["scan", "--agent"],
        ["status", "--help"],
        ["status", "extra"],
        ["status", "-a=three"],
        ["status", "--", "-q"],
        ["status", "-V"],
        ["init-backends", "--concurrency", "0"],
        ["init-backends", "--concurrency", "-1"],
        ["init-backends", "--concurrency", "1.5"],
        ["init-backends", "--concurrency", "0x10"],
        ["init-backends", "--concurrency="],
        ["init-backends", "--timeout", "0.0009"],
        ["init-backends", "--timeout", "-inf"],
        ["init-backends", "--probe-timeout", "soon"],
        ["init-backends", "--no-embed=yes"],
        ["init-backends", "--embed", "x"],
        ["init-backends", "-a"],
    ],
)
def test_everything_else_goes_through_typer(argv: list[str]) -> None:
    assert parse_fast_argv(argv) is None


def test_both_routes_print_the_same(run_cli: RunCli, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "memory" / "2026-04-11.md").write_text("same either way", encoding="utf-8")
    config = tmp_path / "c.json"
    config.write_text(
        json.dumps({"agents": {"list": [{"id": "main", "workspace": str(ws)}]}}), encoding="utf-8"
    )
    base = ["--config", str(config), "prelude", "--at", "2026-04-11T18:00:00Z"]
    fast = run_cli([*base, "-a", "main"])
    via_typer = run_cli([*base, "-amain"])  # an attached short option: only Typer parses it
    assert fast.returncode == via_typer.returncode == 0
    assert fast.stdout_bytes == via_typer.stdout_bytes and "same either way" in fast.stdout
    unknown_fast, unknown_typer = run_cli([*base, "-a", "nobody"]), run_cli([*base, "-anobody"])
    assert unknown_fast.returncode == unknown_typer.returncode == 2
    assert unknown_fast.stderr == unknown_typer.stderr


@pytest.mark.parametrize("command", ["prelude", "context"])
def test_fast_route_does_not_import_typer_or_rich(tmp_path: Path, command: str) -> None:
    config = tmp_path / "c.json"
    config.write_text("{}", encoding="utf-8")
    code = (
        f"import sys; sys.argv = ['memwarm', '--config', sys.argv[1], '{command}', '-w', sys.argv[2],"
        " '--at', '0', '-q']\n"
        "from memwarm_cli.cli.console import main\n"
        "try:\n    main()\n"
        "finally:\n    print('typer' in sys.modules, 'rich' in sys.modules,"
        " 'memwarm_cli.cli.completion' in sys.modules, file=sys.stderr)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(config), str(tmp_path)], capture_output=True, text=True
    )
    # Shell completion costs the normal start one dictionary lookup, not an import.
    assert proc.returncode == 0 and proc.stderr.strip() == "False False False", proc.stderr


def test_both_routes_report_a_bad_context_option_alike(run_cli: RunCli, tmp_path: Path) -> None:
    base = ["context", "-w", str(tmp_path), "--at", "0"]
    fast, via_typer = run_cli([*base, "--format", "yaml"]), run_cli([*base, "-fyaml"])
    assert fast.returncode == via_typer.returncode == 2
    assert (
        fast.stderr
        == via_typer.stderr
        == 'memwarm: error: --format must be one of text, table, plain, json, not "yaml"\n'
    )
