"""`class X(NamedTuple): ...` without importing typing at run time.

`typing` costs ~2.5 ms of every start that imports it (bench/bench_startup.py), and `typing.NamedTuple`
is the only thing `context`'s records need from it at run time. A module writes

    TYPE_CHECKING = False
    if TYPE_CHECKING:
        from typing import NamedTuple
    else:
        from memwarm_cli.named_tuples import NamedTuple

and the type checker sees typing's, while at run time this one builds the same class as typing's
NamedTupleMeta does (CPython 3.11): a `collections.namedtuple` of the annotated fields, in order, with
the class's defaults, methods, properties and docstring. tests/test_named_tuples.py holds the two alike.
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# Called through a name the type checker does not read as namedtuple's (it wants literal field lists).
_make_tuple: Callable[..., type] = namedtuple

_SPECIAL = frozenset({"__module__", "__name__", "__annotations__"})
_PROHIBITED = frozenset(
    {
        "__new__",
        "__init__",
        "__slots__",
        "__getnewargs__",
        "_fields",
        "_field_defaults",
        "_make",
        "_replace",
        "_asdict",
        "_source",
    }
)


class _NamedTupleMeta(type):
    def __new__(mcs, typename: str, bases: tuple[type, ...], ns: dict[str, object]) -> type:
        if not bases:  # _NamedTupleBase itself
            return super().__new__(mcs, typename, bases, ns)
        if bases != (_NamedTupleBase,):
            raise TypeError("a NamedTuple here has no other base")
        annotations = ns.get("__annotations__", {})
        assert isinstance(annotations, dict)
        fields = list(annotations)
        default_names = [name for name in fields if name in ns]
        if default_names != fields[len(fields) - len(default_names) :]:
            raise TypeError(f"{typename}: a field without a default follows one with a default")
        made: type[tuple[object, ...]] = _make_tuple(
            typename, fields, defaults=[ns[name] for name in default_names], module=str(ns["__module__"])
        )
        for key, value in ns.items():
            if key in _PROHIBITED:
                raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
            if key not in _SPECIAL and key not in made._fields:  # type: ignore[attr-defined]
                setattr(made, key, value)
        made.__annotations__ = dict(annotations)
        return made


class _NamedTupleBase(metaclass=_NamedTupleMeta):
    pass


def NamedTuple(typename: str, fields: object = None, /) -> type:
    """Only as a base class (`class X(NamedTuple)`), as memwarm uses typing's."""
    raise TypeError("memwarm_cli.named_tuples.NamedTuple is a base class only")


NamedTuple.__mro_entries__ = lambda bases: (_NamedTupleBase,)  # type: ignore[attr-defined]
