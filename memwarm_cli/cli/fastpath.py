"""A Typer-free route for `memwarm prelude`, the command scripts and benchmarks run most.

Importing Typer costs ~45 ms, a quarter of a `prelude` run on 100k notes (bench/bench_prelude.py). This
module recognises only the plain spellings of `[--config PATH] prelude [options]` and returns the
parameters, which `run_prelude` turns into output exactly as the Typer command does. Anything else
(help, unknown or attached short options, a missing value) returns None and goes through the Typer app,
which owns every usage message. tests/cli/test_fastpath.py checks this parse against Typer's own parse
of the same arguments, and that both know the same options.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

COMMAND = "prelude"
GLOBAL_VALUE_OPTIONS = {"--config": "config_path", "-c": "config_path"}
VALUE_OPTIONS = {
    "--agent": "agent",
    "-a": "agent",
    "--workspace": "workspace",
    "-w": "workspace",
    "--at": "at",
    "--action": "action",
}
FLAG_OPTIONS = {"--json": "json_output", "--quiet": "quiet", "-q": "quiet"}
DEFAULTS: dict[str, Any] = {
    "config_path": None,
    "agent": None,
    "workspace": None,
    "at": None,
    "action": "new",
    "json_output": False,
    "quiet": False,
}


def _take_value(argv: Sequence[str], index: int, options: dict[str, str]) -> tuple[str, str, int] | None:
    """`--opt value` or `--opt=value` at argv[index]: (parameter, value, next index), else None."""
    arg = argv[index]
    if arg in options and index + 1 < len(argv):
        return options[arg], argv[index + 1], index + 2
    name, equals, value = arg.partition("=")
    if equals and name.startswith("--") and name in options:
        return options[name], value, index + 1
    return None


def parse_prelude_argv(argv: Sequence[str]) -> dict[str, Any] | None:
    """The `run_prelude` keyword arguments for a plain `prelude` invocation, or None."""
    params = dict(DEFAULTS)
    index = 0
    while index < len(argv) and argv[index] != COMMAND:
        taken = _take_value(argv, index, GLOBAL_VALUE_OPTIONS)
        if taken is None:
            return None
        params[taken[0]], index = taken[1], taken[2]
    if index >= len(argv):
        return None
    index += 1
    while index < len(argv):
        arg = argv[index]
        if arg in FLAG_OPTIONS:
            params[FLAG_OPTIONS[arg]] = True
            index += 1
            continue
        taken = _take_value(argv, index, VALUE_OPTIONS)
        if taken is None:
            return None
        params[taken[0]], index = taken[1], taken[2]
    if params["workspace"] is not None:
        params["workspace"] = Path(params["workspace"])
    return params
