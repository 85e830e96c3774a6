"""`@record` and `@mutable_record` (memwarm_cli/frozen_records.py) behave as `@dataclass(frozen=True)` and
`@dataclass` do: the same constructor (positional or by name, defaults, factories, fields left out of
`__init__`) and its errors, equality and hash over the compared fields, between instances of one class
only; the repr over the shown fields; no assignment after construction; no ordering; a method the class
defines itself kept; `replace` as `dataclasses.replace`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memwarm_cli.frozen_records import FrozenInstanceError, mutable_record, record, replace
from memwarm_cli.frozen_records import field as record_field


@record
class Point:
    x: int
    y: int
    label: str = record_field(default="", compare=False)  # not compared, not hashed
    secret: str = record_field(default="", repr=False)


@dataclass(frozen=True)
class PointDataclass:
    """The same fields under the stdlib's generated methods: what `@record` must agree with."""

    x: int
    y: int
    label: str = field(default="", compare=False)
    secret: str = field(default="", repr=False)


@record
class Other:
    x: int
    y: int


@record
class OwnMethods:
    value: int

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OwnMethods) and other.value % 10 == self.value % 10

    def __hash__(self) -> int:
        return self.value % 10

    def __repr__(self) -> str:
        return f"<{self.value}>"


@record
class Nested:
    point: Point
    items: tuple[int, ...] = ()


def test_equal_when_the_compared_fields_are_equal() -> None:
    assert Point(1, 2) == Point(1, 2)
    assert Point(1, 2) != Point(2, 1)
    assert Point(1, 2) != Point(1, 3)
    assert Point(1, 2, label="a") == Point(1, 2, label="b")  # compare=False
    assert Point(1, 2, secret="a") != Point(1, 2, secret="b")  # repr=False is still compared


def test_only_instances_of_the_same_class_are_equal() -> None:
    assert Point(1, 2) != Other(1, 2)  # type: ignore[comparison-overlap]  # across types, on purpose
    assert Point(1, 2) != (1, 2)  # type: ignore[comparison-overlap]
    assert Point(1, 2).__eq__((1, 2)) is NotImplemented
    assert Point(1, 2).__eq__(Other(1, 2)) is NotImplemented


def test_equal_records_hash_alike_and_work_as_keys() -> None:
    assert hash(Point(1, 2, label="a")) == hash(Point(1, 2, label="b"))
    assert len({Point(1, 2), Point(1, 2), Point(2, 1)}) == 2
    assert {Point(1, 2): "here"}[Point(1, 2, label="other")] == "here"
    assert Nested(Point(1, 2), (3,)) == Nested(Point(1, 2), (3,))
    assert hash(Nested(Point(1, 2), (3,))) == hash(Nested(Point(1, 2), (3,)))


def test_repr_names_the_class_and_the_shown_fields() -> None:
    assert repr(Point(1, 2, label="a", secret="s")) == "Point(x=1, y=2, label='a')"
    assert repr(Nested(Point(1, 2))) == "Nested(point=Point(x=1, y=2, label=''), items=())"


def test_fields_cannot_be_assigned_or_deleted() -> None:
    point = Point(1, 2)
    with pytest.raises(FrozenInstanceError):
        point.x = 3  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del point.y
    assert point == Point(1, 2)


def test_records_have_no_order() -> None:
    with pytest.raises(TypeError):
        _ = Point(1, 2) < Point(2, 1)  # type: ignore[operator]


def test_a_method_the_class_defines_is_kept() -> None:
    assert OwnMethods(3) == OwnMethods(13)
    assert hash(OwnMethods(13)) == 3
    assert repr(OwnMethods(7)) == "<7>"


def test_replace_and_the_constructor_as_a_dataclass_has_them() -> None:
    assert replace(Point(1, 2), y=5) == Point(1, 5)
    assert replace(Point(1, 2, "l", "s"), x=0).secret == "s"
    assert Point(y=2, x=1, secret="s") == Point(1, 2, "", "s")


@pytest.mark.parametrize("cls", [Point, PointDataclass])
@pytest.mark.parametrize(
    ("args", "kwargs"),
    [((1,), {}), ((1, 2, "a", "b", "c"), {}), ((1,), {"x": 1}), ((1, 2), {"z": 3})],
    ids=["missing", "too-many", "twice", "unknown"],
)
def test_the_constructor_refuses_what_a_dataclass_refuses(
    cls: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    with pytest.raises(TypeError):
        cls(*args, **kwargs)


@mutable_record
class Tally:
    name: str
    seen: list[int] = record_field(default_factory=list)
    cached: int | None = record_field(default=None, init=False, repr=False, compare=False)


@dataclass
class TallyDataclass:
    name: str
    seen: list[int] = field(default_factory=list)
    cached: int | None = field(default=None, init=False, repr=False, compare=False)


def test_a_mutable_record_is_a_dataclass_without_frozen() -> None:
    first, second = Tally("a"), Tally("a")
    assert first.seen is not second.seen  # one list each
    first.seen.append(1)
    first.cached = 3
    assert first != second
    second.seen.append(1)
    assert first == second  # `cached` not compared
    assert repr(first) == repr(TallyDataclass("a", [1])).replace("TallyDataclass", "Tally")
    with pytest.raises(TypeError):
        hash(first)
    with pytest.raises(TypeError):
        Tally("a", [], 3)  # type: ignore[call-arg]


values = st.one_of(st.integers(-3, 3), st.text(max_size=2), st.none(), st.tuples(st.integers(0, 2)))


@given(values, values, values, values, values, values, st.text(max_size=2), st.text(max_size=2))
def test_the_shared_methods_agree_with_the_generated_ones(
    x1: Any, y1: Any, x2: Any, y2: Any, s1: Any, s2: Any, label1: str, label2: str
) -> None:
    ours = Point(x1, y1, label1, s1), Point(x2, y2, label2, s2)
    theirs = PointDataclass(x1, y1, label1, s1), PointDataclass(x2, y2, label2, s2)
    assert (ours[0] == ours[1]) == (theirs[0] == theirs[1])
    assert (ours[0] != ours[1]) == (theirs[0] != theirs[1])
    assert hash(ours[0]) == hash(theirs[0])
    assert repr(ours[0]).removeprefix("Point") == repr(theirs[0]).removeprefix("PointDataclass")


@mutable_record
class Often:
    name: str
    seen: list[int] = record_field(default_factory=list)
    cached: int | None = record_field(default=None, init=False, repr=False, compare=False)


@record
class OftenFrozen:
    x: int
    y: int = 2
    items: tuple[int, ...] = record_field(default_factory=tuple)


def test_a_class_made_often_gets_a_compiled_init_that_behaves_the_same() -> None:
    from memwarm_cli import frozen_records

    made = [Often(str(n)) for n in range(frozen_records._HOT)] + [
        OftenFrozen(n) for n in range(frozen_records._HOT)
    ]
    assert Often.__init__ is not frozen_records._init
    assert OftenFrozen.__init__ is not frozen_records._init
    assert made[0] == Often("0") and made[-1] == OftenFrozen(frozen_records._HOT - 1)
    assert Often("a").seen is not Often("a").seen
    assert Often("a", [1]).cached is None
    assert OftenFrozen(1) == OftenFrozen(x=1, y=2, items=())
    assert OftenFrozen(1, 3, (4,)).items == (4,)
    with pytest.raises(FrozenInstanceError):
        OftenFrozen(1).x = 2  # type: ignore[misc]
    loose: Any = OftenFrozen  # called wrongly on purpose
    wrong_calls: tuple[Callable[[], object], ...] = (
        lambda: loose(),
        lambda: loose(1, 2, (), 4),
        lambda: loose(1, x=1),
    )
    for bad in wrong_calls:
        with pytest.raises(TypeError):
            bad()


def test_a_dataclasses_field_is_refused_not_taken_for_a_default() -> None:
    with pytest.raises(TypeError, match=r"frozen_records\.field"):

        @record
        class Wrong:
            items: tuple[int, ...] = field(default=())
