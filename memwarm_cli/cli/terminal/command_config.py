"""The config a command works on and the OpenClaw release it is read for, loaded from the invocation's
environment (the `.env` files as well, since a memwarm process is the real-process.env case).

The config's warnings go to stderr unless `-q`, and so does the note about an unmeasured release: a run
loads its config once, so the note is said once. The `ConfigRun` returned (memwarm_cli/config/run.py) is
what the command passes on: the release travels with the config, never through a global.
"""

from __future__ import annotations

from memwarm_cli.cli.terminal.invocation import current
from memwarm_cli.cli.terminal.output import warn
from memwarm_cli.config.run import load_run
from memwarm_cli.profiles.choice import resolve_openclaw

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from memwarm_cli.config.run import ConfigRun
    from memwarm_cli.profiles.choice import OpenClawChoice

JSON_KEY = "openclaw"


def load_for_command(config_path: str | None, *, openclaw: str | None, quiet: bool) -> ConfigRun:
    """Load the config `--config` (or the environment) names and choose the release `--openclaw` (or
    the environment, the installed package, the config's shape) names."""
    run = load_run(config_path, current().env, openclaw_flag=openclaw, dotenv=True)
    if not quiet:
        for warning in run.loaded.warnings:
            warn(warning.message)
    say_release_note(run.openclaw, quiet=quiet)
    return run


def choose_release(openclaw: str | None, cfg: Mapping[str, Any] | None, *, quiet: bool) -> OpenClawChoice:
    """The release for a command that loads its config itself (`config check`), its note said here."""
    choice = resolve_openclaw(openclaw, current().env, cfg)
    say_release_note(choice, quiet=quiet)
    return choice


def say_release_note(choice: OpenClawChoice, *, quiet: bool) -> None:
    if choice.note is not None and not quiet:
        warn(choice.note)


def with_openclaw(record: dict[str, Any], openclaw: OpenClawChoice) -> dict[str, Any]:
    """`record` with the run's `"openclaw"` object, right after its `"schema"` (or first)."""
    value = openclaw.to_json()
    if "schema" not in record:
        return {JSON_KEY: value, **record}
    out: dict[str, Any] = {}
    for key, item in record.items():
        out[key] = item
        if key == "schema":
            out[JSON_KEY] = value
    return out
