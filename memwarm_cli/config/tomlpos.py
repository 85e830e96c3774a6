"""Positions of keys in a TOML document (tomllib reports none)."""

from __future__ import annotations

from typing import Any

from memwarm_cli.config.positions import Loc, PNode


def uniform_tree(value: Any, loc: Loc) -> PNode:
    """A position tree that puts every value at `loc` (used when nothing better is known)."""
    if isinstance(value, dict):
        return PNode(loc, {k: uniform_tree(v, loc) for k, v in value.items()})
    if isinstance(value, list):
        return PNode(loc, [uniform_tree(v, loc) for v in value])
    return PNode(loc)


def locate_toml(text: str, file: str, value: Any) -> PNode:
    return uniform_tree(value, Loc(file, 1, 1))
