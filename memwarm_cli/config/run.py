"""The config one command runs on, together with the OpenClaw release it is read for.

A run chooses its release once (memwarm_cli/profiles/choice.py: `--openclaw`, MEMWARM_OPENCLAW, the
installed package, the config's shape) and hands the result on explicitly: every function whose answer
depends on the release takes `profile=` (or the whole choice) as a required keyword argument, so that
no caller can forget it without mypy saying so.
"""

from __future__ import annotations

from collections.abc import Mapping

from memwarm_cli.config.loader import LoadedConfig, load_config
from memwarm_cli.frozen_records import record
from memwarm_cli.profiles.choice import OpenClawChoice, resolve_openclaw

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from memwarm_cli.profiles.releases import Profile


@record
class ConfigRun:
    """A loaded config and the release chosen for it (`openclaw.note`: an unmeasured release, said once)."""

    loaded: LoadedConfig
    openclaw: OpenClawChoice

    @property
    def profile(self) -> Profile:
        return self.openclaw.profile


def load_run(
    config_flag: str | None, env: Mapping[str, str], *, openclaw_flag: str | None, dotenv: bool
) -> ConfigRun:
    """Load the config (load_config's errors) and choose the release for it: from `openclaw_flag` or
    `env` when they name one, else the installed package, else the config's shape (a config file that
    does not exist has none). UsageError for a flag or variable that is no version."""
    loaded = load_config(config_flag, env, dotenv=dotenv)
    choice = resolve_openclaw(openclaw_flag, env, loaded.data if loaded.source.exists else None)
    return ConfigRun(loaded, choice)
