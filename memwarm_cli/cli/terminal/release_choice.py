"""The OpenClaw release one run describes: the `--openclaw` value it was given, and the choice made from
it once (memwarm_cli/profiles/choice.py), kept on the invocation.

`--openclaw` may stand before or after the subcommand (cli/app.py, cli/fastpath.py); its value is
recorded here while the command line is parsed. The choice is made when the command loads its config
(`load_for_command`), since the config's shape is the last thing it can come from; a note about an
unmeasured release is printed then, once, unless `-q`. `run_openclaw()` is the one way for a command
to get it, `with_openclaw` the one way a `--json` output carries it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memwarm_cli.cli.terminal.invocation import current

if TYPE_CHECKING:
    from memwarm_cli.profiles.choice import OpenClawChoice
    from memwarm_cli.profiles.releases import Profile

JSON_KEY = "openclaw"


def remember_openclaw(value: str | None) -> None:
    """`--openclaw VALUE` on the command line: the last one given wins."""
    if value is not None:
        current().openclaw_flag = value


def choose_for_run(cfg: Mapping[str, Any] | None, *, quiet: bool) -> OpenClawChoice:
    """The run's release, decided on the first call (with this config) and kept for the run."""
    invocation = current()
    choice: OpenClawChoice | None = invocation.openclaw
    if choice is None:
        from memwarm_cli.profiles.choice import resolve_openclaw

        choice = resolve_openclaw(invocation.openclaw_flag, invocation.env, cfg)
        invocation.openclaw = choice
        if choice.note is not None and not quiet:
            from memwarm_cli.cli.terminal.output import warn

            warn(choice.note)
    return choice


def run_openclaw() -> OpenClawChoice:
    """The run's release; decided without a config when no command loaded one (yet)."""
    choice: OpenClawChoice | None = current().openclaw
    return choice if choice is not None else choose_for_run(None, quiet=True)


def run_profile() -> Profile:
    return run_openclaw().profile


def with_openclaw(record: dict[str, Any]) -> dict[str, Any]:
    """`record` with the run's `"openclaw"` object, right after its `"schema"` (or first)."""
    value = run_openclaw().to_json()
    if "schema" not in record:
        return {JSON_KEY: value, **record}
    out: dict[str, Any] = {}
    for key, item in record.items():
        out[key] = item
        if key == "schema":
            out[JSON_KEY] = value
    return out
