"""Global options, accepted before the subcommand and after it (`memwarm -c X prelude`, `memwarm prelude
-c X`, `memwarm config -c X check`), as users type them.

Every command and group of the tree gets its own `--config`/`-c` (cli/app.py `build_command`); each
records its value in the context's `meta`, which a context shares with its parents, so the one given last
on the command line wins. cli/fastpath.py accepts the same spellings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memwarm_cli.records import record

if TYPE_CHECKING:
    import typer

CONFIG_META_KEY = "memwarm.config_path"
CONFIG_HELP = "Config file to use (default: OPENCLAW_CONFIG_PATH, then the state dir's openclaw.json)."


@record
class GlobalOptions:
    config_path: str | None = None


def remember_config(ctx: Any, _param: Any, value: str | None) -> None:
    """The `--config` callback of every command: the latest value given wins."""
    if value is not None:
        ctx.meta[CONFIG_META_KEY] = value


def global_options(ctx: typer.Context) -> GlobalOptions:
    return GlobalOptions(config_path=ctx.meta.get(CONFIG_META_KEY))
