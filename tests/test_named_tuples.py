"""memwarm_cli.named_tuples.NamedTuple builds the class typing.NamedTuple builds: the same tuple, fields,
defaults, repr, equality, methods, properties and docstring, and the same refusals."""

from __future__ import annotations

import typing

import pytest

from memwarm_cli import named_tuples


def _make(base: typing.Any) -> typing.Any:
    class Point(base):  # type: ignore[misc]
        """A point."""

        x: int
        y: int = 0
        label: str = "origin"

        @property
        def norm(self) -> int:
            return abs(self.x) + abs(self.y)

        def moved(self, by: int) -> Point:
            return self._replace(x=self.x + by)  # type: ignore[no-any-return]

    return Point


OURS = _make(named_tuples.NamedTuple)
THEIRS = _make(typing.NamedTuple)


def test_the_same_class() -> None:
    for cls in (OURS, THEIRS):
        point: typing.Any = cls(3, label="p")
        assert tuple(point) == (3, 0, "p")
        assert point == (3, 0, "p")
        assert repr(point) == "Point(x=3, y=0, label='p')"
        assert point.norm == 3 and point.moved(2) == cls(5, 0, "p")
        assert point._asdict() == {"x": 3, "y": 0, "label": "p"}
        assert cls._fields == ("x", "y", "label")
        assert cls._field_defaults == {"y": 0, "label": "origin"}
        assert cls.__doc__ == "A point."
        assert cls.__name__ == "Point" and cls.__module__ == __name__
        assert cls.__mro__[1:] == (tuple, object)
        assert list(cls.__annotations__) == ["x", "y", "label"]
        x, y, label = point
        assert (x, y, label) == (3, 0, "p")
        with pytest.raises(AttributeError):
            point.x = 4
        with pytest.raises(TypeError):
            cls()
        assert isinstance(point, tuple)


def test_the_same_refusals() -> None:
    for base in (named_tuples.NamedTuple, typing.NamedTuple):
        with pytest.raises(TypeError):

            class Bad(base):  # type: ignore[misc, valid-type]
                x: int = 0
                y: int

        with pytest.raises(AttributeError):

            class Clash(base):  # type: ignore[misc, valid-type]
                x: int

                def _replace(self) -> None: ...
