"""The building blocks of `config check`'s schema: Zod-like checkers that report issues with positions.

An `Obj` is strict (an unknown key is an error, as upstream's `.strict()` objects reject it), takes any
other key that a `catchall` schema accepts, or is loose (an unknown key is only reported as a likely typo,
a warning with "did you mean"). `schema.py` puts OpenClaw 2026.6.35's schema together from these.

Paths are memwarm's (`a.list[0].b`). Where upstream names a different place, memwarm keeps the more
precise one: an unknown key is reported at the key (upstream: at the object holding it), and a missing
required key at the key too (as upstream does), positioned at the object. Each issue says whether Zod
would carry on to the object's refinements after it (`continues`: a number out of range or a string too
short does; a wrong type, a bad enum value or an unknown key does not), which decides whether the
post-schema checks upstream runs in its refinements are reported beside it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from memwarm_cli.config.positions import PNode, join_path
from memwarm_cli.durations import parse_duration_ms
from memwarm_cli.frozen_records import field, mutable_record, record
from memwarm_cli.jsstring import js_string, js_trim, js_typeof

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal


@record
class Issue:
    severity: Literal["error", "warning"]
    path: str  # dotted path, `[i]` for array items
    message: str
    node: PNode | None  # where it stands (None: use the parent's position)
    continues: bool = False  # Zod goes on to the refinements after it (a check, not a type error)


# Number.MAX_SAFE_INTEGER: Zod's int() accepts safe integers only.
MAX_SAFE_INTEGER = 2**53 - 1
UNKNOWN_KEY = "unknown key"


class Schema:
    judges_objects = False  # an object-shaped schema: OneOf hands it an object to report on

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


def show_value(value: Any) -> str:
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


def any_keys(*names: str) -> dict[str, Schema]:
    """Keys the release accepts whose values `config check` does not judge (each argument holds one or
    more key names, separated by spaces)."""
    return {key: Any_() for words in names for key in words.split()}


@mutable_record
class Str(Schema):
    """A string; with `min_length`, at least that many UTF-16 units (after JS `trim()` when `trim`); with
    `pattern`, matching it in full (`what` names the pattern in the message)."""

    min_length: int = 0
    trim: bool = False
    # A regular expression's source, compiled (by re's cache) when a value is first judged by it: every
    # status builds the schema, few configs hold a value it applies to.
    pattern: str | None = None
    what: str = ""

    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if not isinstance(value, str):
            out.append(wrong_type("a string", value, path, node))
            return
        if self.min_length:
            text = js_trim(value) if self.trim else value
            if len(text.encode("utf-16-le")) // 2 < self.min_length:
                blank = " (blank once trimmed)" if self.trim and value else ""
                message = f"{show_value(value)} is too short: at least {self.min_length} character{blank}"
                out.append(Issue("error", path, message, node, continues=True))
                return
        if self.pattern is not None and re.fullmatch(self.pattern, value) is None:
            message = f"{show_value(value)} is not {self.what or 'in the expected form'}"
            out.append(Issue("error", path, message, node, continues=True))

    def describe(self) -> str:
        return "a string"


class Bool(Schema):
    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if not isinstance(value, bool):
            out.append(wrong_type("a boolean (true or false)", value, path, node))

    def describe(self) -> str:
        return "a boolean"


@mutable_record
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
                f"{show_value(value)} is not a duration such as {example}; the default {self.default} is used"
            )
            out.append(Issue("warning", path, message, node))

    def describe(self) -> str:
        return "a duration"


@mutable_record
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
            out.append(Issue("error", path, f"expected {kind}, got {show_value(value)}", node))
            return
        if self.integer and not float(value).is_integer():
            out.append(Issue("error", path, f"expected an integer, got {show_value(value)}", node))
            return
        if self.integer and abs(value) > MAX_SAFE_INTEGER:
            message = f"expected a safe integer (at most 2^53 - 1 either side of 0), got {show_value(value)}"
            out.append(Issue("error", path, message, node))
            return
        low, high = self.minimum, self.maximum
        too_low = low is not None and (value <= low if self.exclusive_minimum else value < low)
        too_high = high is not None and value > high
        if too_low or too_high:
            message = f"{show_value(value)} is out of range: {self.range_text()}"
            out.append(Issue("error", path, message, node, continues=True))

    def range_text(self) -> str:
        low, high = self.minimum, self.maximum
        parts = []
        if low is not None:
            parts.append(f"> {show_value(low)}" if self.exclusive_minimum else f">= {show_value(low)}")
        if high is not None:
            parts.append(f"<= {show_value(high)}")
        if low is not None and high is not None and not self.exclusive_minimum:
            return f"must be between {show_value(low)} and {show_value(high)}"
        return "must be " + " and ".join(parts)

    def describe(self) -> str:
        return "an integer" if self.integer else "a number"


@mutable_record
class Enum(Schema):
    values: tuple[str, ...]

    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if value in self.values and isinstance(value, str):
            return
        allowed = ", ".join(f'"{v}"' for v in self.values)
        hint = ""
        if isinstance(value, str):
            from difflib import get_close_matches  # here: ~1.5 ms CPU of every status run, errors only

            close = get_close_matches(value, self.values, n=1, cutoff=0.6)
            if not close:
                close = [v for v in self.values if v.lower() == value.strip().lower()]
            if close:
                hint = f' (did you mean "{close[0]}"?)'
        out.append(Issue("error", path, f"{show_value(value)} is not one of {allowed}{hint}", node))

    def describe(self) -> str:
        return "one of " + ", ".join(self.values)


@mutable_record
class Literal_(Schema):
    """Exactly one value (a string, a boolean or a number)."""

    value: str | bool | int

    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if type(value) is type(self.value) and value == self.value:
            return
        out.append(Issue("error", path, f"{show_value(value)} is not {show_value(self.value)}", node))

    def describe(self) -> str:
        return show_value(self.value)


@mutable_record
class OneOf(Schema):
    """The first option the value satisfies (Zod's union). An object is judged by the object option, so
    its own findings are reported; anything else that no option takes is one error at the value."""

    options: tuple[Schema, ...]

    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        objects = [o for o in self.options if o.judges_objects]
        if isinstance(value, dict) and len(objects) == 1:
            objects[0].check(value, node, path, out)
            return
        for option in self.options:
            found: list[Issue] = []
            option.check(value, node, path, found)
            if not any(issue.severity == "error" for issue in found):
                out.extend(found)
                return
        expected = " or ".join(option.describe() for option in self.options)
        out.append(Issue("error", path, f"expected {expected}, got {show_kind(value)}", node))

    def describe(self) -> str:
        return " or ".join(option.describe() for option in self.options)


def show_kind(value: Any) -> str:
    """A scalar as written, any other value by its type."""
    if isinstance(value, str | bool | int | float) or value is None:
        return show_value(value)
    return js_type(value)


@mutable_record
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


@mutable_record
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


if TYPE_CHECKING:
    # An extra check on an object's value, run after the field checks: (value, node, path, out).
    Extra = Callable[[dict[str, Any], PNode | None, str, list[Issue]], None]


@mutable_record
class Obj(Schema):
    judges_objects = True
    fields: dict[str, Schema]
    strict: bool = True  # an unknown key is an error (upstream rejects the config)
    required: tuple[str, ...] = ()
    # Messages for keys known to be wrong here (still unknown keys: the message says why).
    notes: dict[str, str] = field(default_factory=dict)
    extra: Extra | None = None
    description: str = "an object"
    catchall: Schema | None = None  # any other key is judged by this schema instead of being unknown

    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if not isinstance(value, dict):
            out.append(wrong_type("an object", value, path, node))
            return
        fields = self.fields
        for key, item in value.items():
            child = node.child(key) if node else None
            child_path = join_path(path, key)
            schema = fields.get(key)
            if schema is not None:
                schema.check(item, child, child_path, out)
                continue
            if key == "__proto__":  # JSON.parse/JSON5 keep it off the object's own keys: Zod never sees it
                continue
            if key in self.notes:
                out.append(Issue("error", child_path, f"{UNKNOWN_KEY}: {self.notes[key]}", child))
                continue
            if self.catchall is not None:
                self.catchall.check(item, child, child_path, out)
                continue
            self._unknown(key, child, child_path, out)
        for key in self.required:
            if key not in value:
                out.append(Issue("error", join_path(path, key), f'required key "{key}" is missing', node))
        if self.extra is not None:
            self.extra(value, node, path, out)

    def _unknown(self, key: str, child: PNode | None, child_path: str, out: list[Issue]) -> None:
        from difflib import get_close_matches  # here: ~1.5 ms CPU of every status run, errors only

        close = get_close_matches(key, list(self.fields), n=1, cutoff=0.75)
        if not close:
            close = [k for k in self.fields if k.lower() == key.lower()]
        hint = f' (did you mean "{close[0]}"?)' if close else ""
        if self.strict:
            out.append(Issue("error", child_path, f"{UNKNOWN_KEY}{hint}", child))
        elif close:
            out.append(Issue("warning", child_path, f"{UNKNOWN_KEY}{hint}", child))

    def describe(self) -> str:
        return self.description


class LazyObj(Schema):
    """An Obj built the first time a config has a value for it (then kept). status judges the config on
    every run, and most configs hold no `memorySearch` or `memory.qmd` block: building those two at import
    (~90 schema objects) was part of every run's start."""

    judges_objects = True

    def __init__(self, build: Callable[[], Obj]) -> None:
        self._build = build
        self._schema: Obj | None = None

    @property
    def schema(self) -> Obj:
        if self._schema is None:
            self._schema = self._build()
        return self._schema

    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        self.schema.check(value, node, path, out)

    def describe(self) -> str:
        return self.schema.describe()
