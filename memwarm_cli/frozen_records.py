"""`@record`: a frozen dataclass whose `__eq__`, `__hash__` and `__repr__` are shared, not generated.

`dataclasses` writes each method it adds as source and compiles it, per class, when the module is
imported: six compilations for a frozen dataclass. `status` and `init-backends` import about fifty such
records at every start, and half of those compilations were some 20 ms of a run whose budget is 1.5x a bare
walk of the notes (bench/bench_status.py). The three methods here behave as the generated ones do:
equality and hash over the fields with `compare=True`, between instances of the same class only; the repr
`Name(field=value, ...)` over the fields with `repr=True`. `__init__` and the frozen `__setattr__` are still
dataclasses' own. A method the class defines itself is kept.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, TypeVar, dataclass_transform

_T = TypeVar("_T")


def _compared(record: Any) -> tuple[Any, ...]:
    return tuple([getattr(record, name) for name in record.__record_compare__])


def _eq(self: Any, other: object) -> Any:  # bool, or NotImplemented
    if other.__class__ is not self.__class__:
        return NotImplemented
    same: bool = _compared(self) == _compared(other)
    return same


def _hash(self: Any) -> int:
    return hash(_compared(self))


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_repr__)
    return f"{self.__class__.__qualname__}({shown})"


@dataclass_transform(frozen_default=True)
def record(cls: type[_T]) -> type[_T]:
    """`@dataclass(frozen=True)`, with the shared `__eq__`, `__hash__` and `__repr__`."""
    own = set(vars(cls))
    made: Any = dataclass(frozen=True, eq=False, repr=False)(cls)
    made.__record_compare__ = tuple(f.name for f in fields(made) if f.compare)
    made.__record_repr__ = tuple(f.name for f in fields(made) if f.repr)
    for name, method in (("__eq__", _eq), ("__hash__", _hash), ("__repr__", _repr)):
        if name not in own:
            setattr(made, name, method)
    return cls
