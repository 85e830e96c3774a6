"""The building blocks of `config check`'s schema: Zod-like checkers that report issues with positions.

An `Obj` is strict (an unknown key is an error, as upstream's `.strict()` objects reject it) or loose
(an unknown key is only reported as a likely typo, a warning with "did you mean"). `schema.py` puts the
parts of OpenClaw's schema that memwarm reads together from these.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from memwarm_cli.config.positions import PNode, join_path
from memwarm_cli.durations import parse_duration_ms
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_string, js_typeof


@record
class Issue:
    severity: Literal["error", "warning"]
    path: str  # dotted path, `[i]` for array items
    message: str
    node: PNode | None  # where it stands (None: use the parent's position)


class Schema:
    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


def js_type(value: Any) -> str:
    """The JSON type name of a value, as messages show it (`typeof`, but null and array named)."""
    if value is None:
        return "null"
    if isinstance(value, list):
        return "array"
    kind = js_typeof(value)
    return type(value).__name__ if kind == "undefined" else kind


def _show(value: Any) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if value is None or isinstance(value, bool | float):
        return js_string(value)
    return repr(value)


def wrong_type(expected: str, value: Any, path: str, node: PNode | None) -> Issue:
    return Issue("error", path, f"expected {expected}, got {js_type(value)}", node)


class Any_(Schema):
    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        return

    def describe(self) -> str:
        return "any value"


class Str(Schema):
    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if not isinstance(value, str):
            out.append(wrong_type("a string", value, path, node))

    def describe(self) -> str:
        return "a string"


class Bool(Schema):
    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if not isinstance(value, bool):
            out.append(wrong_type("a boolean (true or false)", value, path, node))

    def describe(self) -> str:
        return "a boolean"


@dataclass
class Duration(Schema):
    """A qmd duration string: upstream's schema wants a string, its resolver falls back when unparsable."""

    default: str

    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if not isinstance(value, str):
            out.append(wrong_type("a string", value, path, node))
            return
        try:
            parse_duration_ms(value, "m")
        except ValueError:
            example = '"5m", "90s" or "1h"'
            message = (
                f"{_show(value)} is not a duration such as {example}; the default {self.default} is used"
            )
            out.append(Issue("warning", path, message, node))

    def describe(self) -> str:
        return "a duration"


@dataclass
class Num(Schema):
    minimum: float | None = None
    maximum: float | None = None
    integer: bool = False
    exclusive_minimum: bool = False

    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        kind = "an integer" if self.integer else "a number"
        if not isinstance(value, int | float) or isinstance(value, bool):
            out.append(wrong_type(kind, value, path, node))
            return
        if not math.isfinite(value):
            out.append(Issue("error", path, f"expected {kind}, got {_show(value)}", node))
            return
        if self.integer and not float(value).is_integer():
            out.append(Issue("error", path, f"expected an integer, got {_show(value)}", node))
            return
        low, high = self.minimum, self.maximum
        too_low = low is not None and (value <= low if self.exclusive_minimum else value < low)
        too_high = high is not None and value > high
        if too_low or too_high:
            out.append(Issue("error", path, f"{_show(value)} is out of range: {self.range_text()}", node))

    def range_text(self) -> str:
        low, high = self.minimum, self.maximum
        parts = []
        if low is not None:
            parts.append(f"> {_show(low)}" if self.exclusive_minimum else f">= {_show(low)}")
        if high is not None:
            parts.append(f"<= {_show(high)}")
        if low is not None and high is not None and not self.exclusive_minimum:
            return f"must be between {_show(low)} and {_show(high)}"
        return "must be " + " and ".join(parts)

    def describe(self) -> str:
        return "an integer" if self.integer else "a number"


@dataclass
class Enum(Schema):
    values: tuple[str, ...]

    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if value in self.values and isinstance(value, str):
            return
        allowed = ", ".join(f'"{v}"' for v in self.values)
        hint = ""
        if isinstance(value, str):
            close = difflib.get_close_matches(value, self.values, n=1, cutoff=0.6)
            if not close:
                close = [v for v in self.values if v.lower() == value.strip().lower()]
            if close:
                hint = f' (did you mean "{close[0]}"?)'
        out.append(Issue("error", path, f"{_show(value)} is not one of {allowed}{hint}", node))

    def describe(self) -> str:
        return "one of " + ", ".join(self.values)


@dataclass
class Arr(Schema):
    item: Schema

    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if not isinstance(value, list):
            out.append(wrong_type(f"an array of {self.item.describe()}s", value, path, node))
            return
        for i, item in enumerate(value):
            self.item.check(item, node.child(i) if node else None, join_path(path, i), out)

    def describe(self) -> str:
        return "an array"


@dataclass
class Record(Schema):
    item: Schema

    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if not isinstance(value, dict):
            out.append(wrong_type("an object", value, path, node))
            return
        for key, item in value.items():
            self.item.check(item, node.child(key) if node else None, join_path(path, key), out)

    def describe(self) -> str:
        return "an object"


# An extra check on an object's value, run after the field checks: (value, node, path, out).
Extra = Callable[[dict[str, Any], PNode | None, str, list[Issue]], None]


@dataclass
class Obj(Schema):
    fields: dict[str, Schema]
    strict: bool = True  # an unknown key is an error (upstream rejects the config)
    required: tuple[str, ...] = ()
    notes: dict[str, str] = field(default_factory=dict)  # messages for keys known to be wrong here
    extra: Extra | None = None
    description: str = "an object"

    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if not isinstance(value, dict):
            out.append(wrong_type("an object", value, path, node))
            return
        for key, item in value.items():
            child = node.child(key) if node else None
            child_path = join_path(path, key)
            schema = self.fields.get(key)
            if schema is not None:
                schema.check(item, child, child_path, out)
                continue
            if key in self.notes:
                out.append(Issue("error", child_path, self.notes[key], child))
                continue
            close = difflib.get_close_matches(key, list(self.fields), n=1, cutoff=0.75)
            if not close:
                close = [k for k in self.fields if k.lower() == key.lower()]
            hint = f' (did you mean "{close[0]}"?)' if close else ""
            if self.strict:
                out.append(Issue("error", child_path, f"unknown key{hint}", child))
            elif close:
                out.append(Issue("warning", child_path, f"unknown key{hint}", child))
        for key in self.required:
            if key not in value:
                out.append(Issue("error", path, f'required key "{key}" is missing', node))
        if self.extra is not None:
            self.extra(value, node, path, out)

    def describe(self) -> str:
        return self.description
