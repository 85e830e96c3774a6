"""A Typer-free route for the commands scripts, cron jobs and benchmarks run most: `prelude`, `context`,
`scan`, `status` and `init-backends`.

Importing Typer and building its command tree costs ~50-80 ms, a quarter of a `prelude` run on 100k notes
(bench/bench_prelude.py), more than `context`'s 1.2x allowance over `prelude` (bench/bench_context.py),
and a large share of `status`'s and `init-backends`' 1.5x allowance over a bare walk of the notes
(bench/bench_status.py). This module recognises only the plain spellings of `[--config PATH] COMMAND
[options]` (`--config` and `--openclaw` may also come among the options, as every command accepts
them: cli/options.py) and returns the parameters, which `run_fast` hands to the function the Typer
command calls (option values are checked there, not by Typer; numbers are converted as click converts
them, and one click would refuse goes to Typer). Anything else (help, unknown or attached short options,
a missing value, an argument) returns None and goes through the Typer app, which owns every usage
message. tests/cli/test_fastpath.py checks this parse against Typer's own parse of the same arguments,
and that both know the same options.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from memwarm_cli.frozen_records import record
from memwarm_cli.os_paths import pure_path

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

GLOBAL_VALUE_OPTIONS = {"--config": "config_path", "-c": "config_path", "--openclaw": "openclaw"}
# The global options' parameters, passed to the run function with the command's own.
GLOBAL_DEFAULTS: dict[str, Any] = {"config_path": None, "openclaw": None}
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
    **GLOBAL_DEFAULTS,
    "agent": None,
    "workspace": None,
    "at": None,
    "action": "new",
    "json_output": False,
    "quiet": False,
}


_NONE: Mapping[str, Any] = MappingProxyType({})


@record  # not a typing.NamedTuple: importing typing costs every start ~4 ms
class FastCommand:
    name: str
    value_options: dict[str, str]  # option spelling -> parameter
    flag_options: dict[str, str]  # spelling -> parameter set to True
    defaults: dict[str, Any]  # every parameter, the global options' included
    off_flags: Mapping[str, str] = _NONE  # spelling -> parameter set to False (`--no-embed`)
    repeated: frozenset[str] = frozenset()  # parameters whose option may be repeated: a list
    # parameter -> (int or float, minimum): converted as click converts (int() or float()), and a
    # value click would refuse (not a number, below the minimum) goes through Typer for its message
    numbers: Mapping[str, tuple[type[int] | type[float], float]] = _NONE


_FLAGS = {"--json": "json_output", "--quiet": "quiet", "-q": "quiet"}
PRELUDE = FastCommand(
    "prelude", _SHARED_VALUE_OPTIONS, {**_FLAGS, "--raw": "raw"}, {**_SHARED_DEFAULTS, "raw": False}
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
    {**_FLAGS, "--raw": "raw"},
    {**_SHARED_DEFAULTS, "session_key": None, "only": None, "output_format": None, "raw": False},
)
SCAN = FastCommand(
    "scan",
    {
        **GLOBAL_VALUE_OPTIONS,
        "--agent": "agent",
        "-a": "agent",
        "--workspace": "workspace",
        "-w": "workspace",
        "--at": "at",
        "--format": "output_format",
        "-f": "output_format",
    },
    {**_FLAGS, "--all-agents": "all_agents", "--all": "show_all"},
    {
        **GLOBAL_DEFAULTS,
        "agent": None,
        "all_agents": False,
        "workspace": None,
        "at": None,
        "show_all": False,
        "json_output": False,
        "output_format": None,
        "quiet": False,
    },
)
STATUS = FastCommand(
    "status",
    {
        **GLOBAL_VALUE_OPTIONS,
        "--agent": "agent",
        "-a": "agent",
        "--format": "output_format",
        "-f": "output_format",
        "--textfile": "textfile",
        "--max-age": "max_age",
    },
    {**_FLAGS, "--all-agents": "all_agents"},
    {
        **GLOBAL_DEFAULTS,
        "agent": None,
        "all_agents": False,
        "json_output": False,
        "output_format": None,
        "textfile": None,
        "max_age": None,
        "quiet": False,
    },
    repeated=frozenset({"agent"}),
)
INIT_BACKENDS = FastCommand(
    "init-backends",
    {
        **GLOBAL_VALUE_OPTIONS,
        "--agent": "agent",
        "-a": "agent",
        "--probe-query": "probe_query",
        "--probe-timeout": "probe_timeout",
        "--concurrency": "concurrency",
        "--timeout": "timeout",
        "--at": "at",
    },
    {
        **_FLAGS,
        "--dry-run": "dry_run",
        "--force": "force",
        "--embed": "embed",
        "--probe": "probe",
        "--include-stale": "include_stale",
    },
    {
        **GLOBAL_DEFAULTS,
        "agent": None,
        "dry_run": False,
        "force": False,
        "include_stale": False,
        "embed": None,
        "probe": False,
        "probe_query": None,
        "probe_timeout": None,
        "concurrency": None,
        "timeout": None,
        "at": None,
        "json_output": False,
        "quiet": False,
    },
    off_flags={"--no-embed": "embed"},
    repeated=frozenset({"agent"}),
    numbers={"probe_timeout": (float, 0.001), "concurrency": (int, 1), "timeout": (float, 0.001)},
)
FAST_COMMANDS = {command.name: command for command in (PRELUDE, CONTEXT, SCAN, STATUS, INIT_BACKENDS)}


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
        if arg in command.flag_options or arg in command.off_flags:
            on = arg in command.flag_options
            params[(command.flag_options if on else command.off_flags)[arg]] = on
            index += 1
            continue
        taken = _take_value(argv, index, command.value_options)
        if taken is None:
            return None
        name, value, index = taken
        params[name] = [*(params[name] or ()), value] if name in command.repeated else value
    for name, (kind, minimum) in command.numbers.items():
        if params[name] is not None:
            try:
                params[name] = kind(params[name])
            except ValueError:
                return None
            if params[name] < minimum:
                return None
    if params.get("workspace") is not None:
        params["workspace"] = pure_path(params["workspace"])  # as Typer's Path prints it
    return command, params


def run_fast(command: FastCommand, params: dict[str, Any]) -> int:
    """Run a parsed invocation through the function its Typer command calls (every parameter by name,
    `--config` and `--openclaw` too); the exit code."""
    # Every command returns its exit code, here as through Typer (cli/main.py passes it on). Each command's
    # module is imported in its branch: a run loads only its own command's modules (test_imports).
    if command is PRELUDE:
        from memwarm_cli.cli.commands.prelude import run_prelude  # lazy (above): the startup plan

        return run_prelude(**params)
    if command is CONTEXT:
        from memwarm_cli.cli.commands.context import run_context  # lazy (above): the bootstrap files

        return run_context(**params)
    if command is SCAN:
        from memwarm_cli.cli.commands.scan import run_scan  # lazy (above): scan's records and views

        return run_scan(**params)
    if command is STATUS:
        from memwarm_cli.cli.commands.status import run_status  # lazy (above): the qmd and freshness checks

        return run_status(**params)
    # lazy (above): the init runs (qmd, the builtin index, session export), init-backends' only
    from memwarm_cli.cli.commands.init_backends import run_init_backends_command

    return run_init_backends_command(**params)
