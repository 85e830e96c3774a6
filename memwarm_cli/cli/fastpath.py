"""A Typer-free route for `memwarm prelude` and `memwarm context`, which scripts and benchmarks run most.

Importing Typer costs ~45 ms, a quarter of a `prelude` run on 100k notes (bench/bench_prelude.py), and
more than `context`'s 1.2x allowance over `prelude` (bench/bench_context.py). This module recognises only
the plain spellings of `[--config PATH] prelude|context [options]` (`--config` may also come among the
options, as every command accepts it: cli/global_options.py) and returns the parameters, which
`run_prelude`/`run_context` turn into output exactly as the Typer commands do (option values are
checked there, not by Typer). Anything else (help, unknown or attached short options, a missing value)
returns None and goes through the Typer app, which owns every usage message. tests/cli/test_fastpath.py
checks this parse against Typer's own parse of the same arguments, and that both know the same options.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

GLOBAL_VALUE_OPTIONS = {"--config": "config_path", "-c": "config_path"}
_SHARED_VALUE_OPTIONS = {
    **GLOBAL_VALUE_OPTIONS,
    "--agent": "agent",
    "-a": "agent",
    "--workspace": "workspace",
    "-w": "workspace",
    "--at": "at",
    "--action": "action",
}
_SHARED_DEFAULTS: dict[str, Any] = {
    "config_path": None,
    "agent": None,
    "workspace": None,
    "at": None,
    "action": "new",
    "json_output": False,
    "quiet": False,
}


class FastCommand(NamedTuple):
    name: str
    value_options: dict[str, str]  # option spelling -> parameter
    flag_options: dict[str, str]
    defaults: dict[str, Any]  # every parameter, config_path included


PRELUDE = FastCommand(
    "prelude",
    _SHARED_VALUE_OPTIONS,
    {"--json": "json_output", "--quiet": "quiet", "-q": "quiet"},
    _SHARED_DEFAULTS,
)
CONTEXT = FastCommand(
    "context",
    {
        **_SHARED_VALUE_OPTIONS,
        "--session-key": "session_key",
        "-k": "session_key",
        "--only": "only",
        "--format": "output_format",
        "-f": "output_format",
    },
    {"--json": "json_output", "--quiet": "quiet", "-q": "quiet"},
    {**_SHARED_DEFAULTS, "session_key": None, "only": None, "output_format": None},
)
FAST_COMMANDS = {command.name: command for command in (PRELUDE, CONTEXT)}


def _take_value(argv: Sequence[str], index: int, options: dict[str, str]) -> tuple[str, str, int] | None:
    """`--opt value` or `--opt=value` at argv[index]: (parameter, value, next index), else None."""
    arg = argv[index]
    if arg in options and index + 1 < len(argv):
        return options[arg], argv[index + 1], index + 2
    name, equals, value = arg.partition("=")
    if equals and name.startswith("--") and name in options:
        return options[name], value, index + 1
    return None


def parse_fast_argv(argv: Sequence[str]) -> tuple[FastCommand, dict[str, Any]] | None:
    """The command and its run function's keyword arguments for a plain invocation, or None."""
    params: dict[str, Any] = {}
    index = 0
    while index < len(argv) and argv[index] not in FAST_COMMANDS:
        taken = _take_value(argv, index, GLOBAL_VALUE_OPTIONS)
        if taken is None:
            return None
        params[taken[0]], index = taken[1], taken[2]
    if index >= len(argv):
        return None
    command = FAST_COMMANDS[argv[index]]
    params = {**command.defaults, **params}
    index += 1
    while index < len(argv):
        arg = argv[index]
        if arg in command.flag_options:
            params[command.flag_options[arg]] = True
            index += 1
            continue
        taken = _take_value(argv, index, command.value_options)
        if taken is None:
            return None
        params[taken[0]], index = taken[1], taken[2]
    if params["workspace"] is not None:
        params["workspace"] = Path(params["workspace"])
    return command, params


def parse_prelude_argv(argv: Sequence[str]) -> dict[str, Any] | None:
    """The `run_prelude` keyword arguments for a plain `prelude` invocation, or None."""
    parsed = parse_fast_argv(argv)
    return parsed[1] if parsed is not None and parsed[0] is PRELUDE else None
