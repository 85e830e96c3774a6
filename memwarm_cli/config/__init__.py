"""OpenClaw config discovery and loading (config.md §6). Never imports typer or rich; never exits."""

from memwarm_cli.config.envsubst import ConfigWarning
from memwarm_cli.config.loader import LoadedConfig, load_config
from memwarm_cli.config.paths import (
    ConfigSource,
    resolve_config_source,
    resolve_home_dir,
    resolve_state_dir,
    resolve_user_path,
)

__all__ = [
    "ConfigSource",
    "ConfigWarning",
    "LoadedConfig",
    "load_config",
    "resolve_config_source",
    "resolve_home_dir",
    "resolve_state_dir",
    "resolve_user_path",
]
