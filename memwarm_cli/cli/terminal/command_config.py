"""The config a command works on: loaded from this invocation's environment (the `.env` files too, as a
memwarm process is the real-process.env case), its warnings on stderr unless `-q`."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memwarm_cli.config import LoadedConfig


def load_for_command(config_path: str | None, *, quiet: bool) -> LoadedConfig:
    from memwarm_cli.cli.terminal.invocation import current
    from memwarm_cli.cli.terminal.output import warn
    from memwarm_cli.config import load_config

    loaded = load_config(config_path, current().env, dotenv=True)
    if not quiet:
        for warning in loaded.warnings:
            warn(warning.message)
    return loaded
