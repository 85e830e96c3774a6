"""`@record` and `@mutable_record`: dataclass-style records made without generating code per class.

`dataclasses` writes each method it adds as source and compiles it, per class, when the module is imported
(six compilations for a frozen dataclass), and `import dataclasses` itself pulls `inspect`, `ast`, `dis`
and `tokenize`: together about 13 ms of a `memwarm prelude` on 10 notes, whose whole budget is 2.5x a bare
`python -c pass` (bench/bench_startup.py). Here every method is shared by all records and reads the
class's field tables, made once by the decorator:
- `__init__` takes the fields in order, positionally or by name, as the generated one does (the same
  defaults, `field(default_factory=...)`, `field(init=False)`), and fills the instance's `__dict__` at once;
- equality and hash over the fields with `compare=True`, between instances of the same class only; the
  repr `Name(field=value, ...)` over the fields with `repr=True`;
- `@record` instances are frozen (assigning or deleting a field raises FrozenInstanceError), hashable and
  unordered, as `@dataclass(frozen=True)`'s; `@mutable_record` ones as `@dataclass`'s (not hashable).
A method the class defines itself is kept. `replace(obj, **changes)` is `dataclasses.replace`.
Type checkers see `dataclass_transform`, so they check the generated signatures as for a dataclass.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any, TypeVar, dataclass_transform

    _T = TypeVar("_T")
else:

    def dataclass_transform(**_options: object) -> object:
        return lambda decorator: decorator


class FrozenInstanceError(AttributeError):
    """A field of a `@record` assigned or deleted (dataclasses' exception of the same name)."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()


class Field:
    """What `field(...)` gives a class attribute; the decorator reads it and puts the default in its place."""

    __slots__ = ("compare", "default", "default_factory", "init", "repr")

    def __init__(
        self, default: Any, default_factory: Callable[[], Any] | None, init: bool, repr: bool, compare: bool
    ) -> None:
        self.default, self.default_factory = default, default_factory
        self.init, self.repr, self.compare = init, repr, compare


def field(
    *,
    default: Any = MISSING,
    default_factory: Callable[[], Any] | None = None,
    init: bool = True,
    repr: bool = True,  # dataclasses.field's own parameter names
    compare: bool = True,
) -> Any:
    """A field's options, as `dataclasses.field` takes them."""
    return Field(default, default_factory, init, repr, compare)


# A class whose records are made often gets an __init__ of its own, compiled once, after this many made
# by the shared one: a small run compiles nothing, `scan --all` on 100k notes compiles FileRow's (~0.1 ms)
# and makes its rows about four times faster.
_HOT = 256
_made: dict[type, int] = {}


def _init(self: Any, *args: Any, **kwargs: Any) -> None:
    cls = self.__class__
    count = _made[cls] = _made.get(cls, 0) + 1
    if count == _HOT:
        cls.__init__ = _compiled_init(cls)
    names: tuple[str, ...] = cls.__record_init__
    if len(args) > len(names):
        raise TypeError(f"{cls.__qualname__}() takes {len(names)} positional arguments, {len(args)} given")
    values = dict(cls.__record_defaults__)
    values.update(zip(names, args, strict=False))  # the rest: defaults or by name
    if kwargs:
        _check_names(cls, names[: len(args)], kwargs)
        values.update(kwargs)
    for name, factory in cls.__record_factories__:
        if name not in values:
            values[name] = factory()
    order: tuple[str, ...] = cls.__record_set__
    if len(values) != len(order):
        missing = [name for name in names if name not in values]
        raise TypeError(f"{cls.__qualname__}() missing required arguments: {', '.join(map(repr, missing))}")
    # Set one by one in the fields' order (the frozen __setattr__ bypassed): instances that share their
    # attributes' order share one key table, and the compiled __init__'s stores stay fast.
    for name in order:
        _object_setattr(self, name, values[name])


_object_setattr = object.__setattr__


def _compiled_init(cls: Any) -> Callable[..., None]:
    """The __init__ dataclasses would write for `cls` (same parameters, defaults and factories)."""
    defaults: dict[str, Any] = cls.__record_defaults__
    factories = dict(cls.__record_factories__)
    scope: dict[str, Any] = {
        "MISSING": MISSING,
        "factories": factories,
        "defaults": defaults,
        "setattr": object.__setattr__,
    }
    # `self.x = x` where the class allows it (the fastest store), the frozen __setattr__ bypassed else
    store = "setattr(self, {0!r}, {1})" if cls.__setattr__ is _frozen_setattr else "self.{0} = {1}"
    params = ["self"]
    body: list[str] = []
    for name in cls.__record_init__:
        if name in factories:
            params.append(f"{name}=MISSING")
            body.append(store.format(name, f"factories[{name!r}]() if {name} is MISSING else {name}"))
            continue
        params.append(f"{name}=defaults[{name!r}]" if name in defaults else name)
        body.append(store.format(name, name))
    for name in defaults.keys() - set(cls.__record_init__):
        body.append(store.format(name, f"defaults[{name!r}]"))
    for name in factories.keys() - set(cls.__record_init__):
        body.append(store.format(name, f"factories[{name!r}]()"))
    source = f"def __init__({', '.join(params)}):\n    " + "\n    ".join(body or ["pass"])
    exec(source, scope)  # the source is made here from field names only
    made: Callable[..., None] = scope["__init__"]
    made.__qualname__ = f"{cls.__qualname__}.__init__"
    return made


def _check_names(cls: Any, positional: tuple[str, ...], kwargs: dict[str, Any]) -> None:
    """A keyword that names no field, or one given positionally too: TypeError, as from any function."""
    if not kwargs.keys() <= cls.__record_init_set__:
        unknown = next(name for name in kwargs if name not in cls.__record_init_set__)
        raise TypeError(f"{cls.__qualname__}() got an unexpected keyword argument {unknown!r}")
    twice = kwargs.keys() & set(positional)
    if twice:
        raise TypeError(f"{cls.__qualname__}() got multiple values for argument {min(twice)!r}")


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


def _frozen_setattr(self: Any, name: str, _value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _make(cls: type[_T], frozen: bool) -> type[_T]:
    own = vars(cls)
    made: Any = cls
    init: list[str] = []
    defaults: dict[str, Any] = {}
    factories: list[tuple[str, Callable[[], Any]]] = []
    compare: list[str] = []
    shown: list[str] = []
    for name in own.get("__annotations__", {}):
        spec = own.get(name, MISSING)
        if type(spec).__module__ == "dataclasses":  # dataclasses.field(): not read here, refused
            raise TypeError(f"{cls.__qualname__}.{name}: use memwarm_cli.frozen_records.field")
        if not isinstance(spec, Field):
            spec = Field(spec, None, True, True, True)
        if spec.init:
            init.append(name)
        if spec.default is not MISSING:
            defaults[name] = spec.default
            setattr(made, name, spec.default)
        elif name in own:
            delattr(made, name)
        if spec.default_factory is not None:
            factories.append((name, spec.default_factory))
        elif not spec.init and spec.default is MISSING:
            raise TypeError(f"{cls.__qualname__}.{name}: a field left out of __init__ needs a default")
        if spec.compare:
            compare.append(name)
        if spec.repr:
            shown.append(name)
    made.__record_init__ = tuple(init)
    made.__record_init_set__ = frozenset(init)
    made.__record_defaults__ = defaults
    made.__record_factories__ = tuple(factories)
    made.__record_set__ = tuple(
        name for name in own.get("__annotations__", {}) if name in {*init, *defaults, *dict(factories)}
    )
    made.__record_compare__ = tuple(compare)
    made.__record_repr__ = tuple(shown)
    methods: list[tuple[str, Any]] = [("__init__", _init), ("__eq__", _eq), ("__repr__", _repr)]
    if frozen:
        methods += [("__hash__", _hash), ("__setattr__", _frozen_setattr), ("__delattr__", _frozen_delattr)]
    elif "__hash__" not in own:
        made.__hash__ = None  # mutable and compared by value: unhashable, as a dataclass
    for name, method in methods:
        if name not in own or (name == "__hash__" and own[name] is None):
            setattr(made, name, method)
    return cls


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def record(cls: type[_T]) -> type[_T]:
    """`@dataclass(frozen=True)`, with shared methods."""
    return _make(cls, frozen=True)


@dataclass_transform(field_specifiers=(field,))
def mutable_record(cls: type[_T]) -> type[_T]:
    """`@dataclass`, with shared methods."""
    return _make(cls, frozen=False)


def replace(obj: _T, **changes: Any) -> _T:
    """A copy of the record `obj` with `changes` to its fields (`dataclasses.replace`)."""
    cls: Any = obj.__class__
    values = {name: getattr(obj, name) for name in cls.__record_init__}
    values.update(changes)
    made: _T = cls(**values)
    return made
