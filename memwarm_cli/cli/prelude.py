"""`memwarm prelude` (placeholder until the startup pipeline lands)."""

from __future__ import annotations


def prelude_command() -> None:
    """Print the startup prelude a new or reset session would see."""
    raise NotImplementedError
