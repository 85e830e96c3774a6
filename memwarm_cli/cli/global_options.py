"""Global options carried from the top-level callback to each command."""

from __future__ import annotations

from dataclasses import dataclass

import typer


@dataclass(frozen=True)
class GlobalOptions:
    config_path: str | None = None


def global_options(ctx: typer.Context) -> GlobalOptions:
    root = ctx.find_root()
    obj = root.obj
    return obj if isinstance(obj, GlobalOptions) else GlobalOptions()
