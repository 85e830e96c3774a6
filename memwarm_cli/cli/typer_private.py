"""Every touch of a private Typer/click name, in one module: typer vendors click as `typer._click` (pinned
<0.29 in pyproject.toml), and its shell-completion internals and a parameter's custom completer have no
public spelling. An upgrade of typer has this one module to check (tests/test_layers.py holds it so).

Imported lazily, by the functions that need it: importing typer._click's modules costs start-up time
that a plain `memwarm prelude` never pays.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from typer import _click
from typer._click.core import Command, Context, Parameter
from typer._click.shell_completion import CompletionItem, split_arg_string
from typer._click.shell_completion import _resolve_context as resolve_context
from typer._click.shell_completion import _resolve_incomplete as resolve_incomplete

__all__ = [
    "ClickException",
    "Command",
    "CompletionItem",
    "Context",
    "NoArgsIsHelpError",
    "Parameter",
    "UsageError",
    "custom_completer",
    "resolve_context",
    "resolve_incomplete",
    "set_custom_completer",
    "split_arg_string",
]

ClickException = _click.exceptions.ClickException
NoArgsIsHelpError = _click.exceptions.NoArgsIsHelpError
UsageError = _click.exceptions.UsageError


def custom_completer(param: Parameter) -> Callable[..., Any] | None:
    """The completer a parameter was given (typer keeps it in a private attribute), if any."""
    return getattr(param, "_custom_shell_complete", None)


def set_custom_completer(param: Parameter, completer: Callable[..., Any]) -> None:
    param._custom_shell_complete = completer
