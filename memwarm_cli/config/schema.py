"""The parts of OpenClaw's config schema that memwarm reads (config.md §7, memory-backends.md §4).

Upstream validates with Zod `.strict()` objects: an unknown key, a wrong type or a value out of range
makes OpenClaw refuse the whole config. `config check` judges only the sections memwarm reads:
`agents.defaults.{workspace,userTimezone,startupContext,memorySearch}`, `agents.list[]` with its `id`,
`default`, `workspace` and `memorySearch`, and `memory.{backend,citations,qmd}`. In objects whose full
key set the reference does not give (`agents.defaults`, list entries, `memorySearch.sync`, ...), an
unknown key is reported only as a likely typo (a warning with "did you mean"), never as an error.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from memwarm_cli.config.positions import PNode, join_path
from memwarm_cli.durations import parse_duration_ms
from memwarm_cli.jsstring import js_string, js_typeof


@dataclass(frozen=True)
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


def _wrong_type(expected: str, value: Any, path: str, node: PNode | None) -> Issue:
    return Issue("error", path, f"expected {expected}, got {js_type(value)}", node)


class Any_(Schema):
    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        return

    def describe(self) -> str:
        return "any value"


class Str(Schema):
    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if not isinstance(value, str):
            out.append(_wrong_type("a string", value, path, node))

    def describe(self) -> str:
        return "a string"


class Bool(Schema):
    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if not isinstance(value, bool):
            out.append(_wrong_type("a boolean (true or false)", value, path, node))

    def describe(self) -> str:
        return "a boolean"


@dataclass
class Duration(Schema):
    """A qmd duration string: upstream's schema wants a string, its resolver falls back when unparsable."""

    default: str

    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if not isinstance(value, str):
            out.append(_wrong_type("a string", value, path, node))
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
            out.append(_wrong_type(kind, value, path, node))
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
            out.append(_wrong_type(f"an array of {self.item.describe()}s", value, path, node))
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
            out.append(_wrong_type("an object", value, path, node))
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
            out.append(_wrong_type("an object", value, path, node))
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


# -- the schema ------------------------------------------------------------------------------------------

PROVIDERS = ("openai", "local", "gemini", "voyage", "mistral")
NON_NEGATIVE_INT = Num(0, None, integer=True)
POSITIVE_INT = Num(0, None, integer=True, exclusive_minimum=True)
UNIT = Num(0, 1)


def _qmd_schema() -> Obj:
    return Obj(
        {
            "command": Str(),
            "searchMode": Enum(("query", "search", "vsearch")),
            "includeDefaultMemory": Bool(),
            "paths": Arr(Obj({"path": Str(), "name": Str(), "pattern": Str()}, required=("path",))),
            "sessions": Obj({"enabled": Bool(), "exportDir": Str(), "retentionDays": NON_NEGATIVE_INT}),
            "update": Obj(
                {
                    "interval": Duration("5m"),
                    "debounceMs": NON_NEGATIVE_INT,
                    "onBoot": Bool(),
                    "waitForBootSync": Bool(),
                    "embedInterval": Duration("60m"),
                    "commandTimeoutMs": NON_NEGATIVE_INT,
                    "updateTimeoutMs": NON_NEGATIVE_INT,
                    "embedTimeoutMs": NON_NEGATIVE_INT,
                    "startup": Enum(("off", "idle", "immediate")),
                    "startupDelayMs": NON_NEGATIVE_INT,
                }
            ),
            "limits": Obj(
                {
                    "maxResults": POSITIVE_INT,
                    "maxSnippetChars": POSITIVE_INT,
                    "maxInjectedChars": POSITIVE_INT,
                    "timeoutMs": NON_NEGATIVE_INT,
                }
            ),
            "scope": Obj({}, strict=False),
            "mcporter": Obj({"enabled": Bool(), "serverName": Str(), "startDaemon": Bool()}),
        }
    )


QMD = _qmd_schema()


def _memory_search_schema() -> Obj:
    loose = False  # objects whose full key set the reference elides: typos only, as warnings
    return Obj(
        {
            "enabled": Bool(),
            "sources": Arr(Enum(("memory", "sessions"))),
            "extraPaths": Arr(Str()),
            "experimental": Obj({"sessionMemory": Bool()}),
            "provider": Enum(PROVIDERS),
            "remote": Obj(
                {
                    "baseUrl": Str(),
                    "apiKey": Str(),
                    "headers": Record(Str()),
                    "batch": Obj(
                        {
                            "enabled": Bool(),
                            "wait": Bool(),
                            "concurrency": POSITIVE_INT,
                            "pollIntervalMs": NON_NEGATIVE_INT,
                            "timeoutMinutes": POSITIVE_INT,
                        },
                        strict=loose,
                    ),
                },
                strict=loose,
            ),
            "fallback": Enum((*PROVIDERS, "none")),
            "model": Str(),
            "local": Obj({"modelPath": Str(), "modelCacheDir": Str()}),
            "store": Obj(
                {
                    "driver": Enum(("sqlite",)),
                    "path": Str(),
                    "vector": Obj({"enabled": Bool(), "extensionPath": Str()}),
                }
            ),
            "chunking": Obj({"tokens": POSITIVE_INT, "overlap": NON_NEGATIVE_INT}),
            "sync": Obj(
                {
                    "onSessionStart": Bool(),
                    "onSearch": Bool(),
                    "watch": Bool(),
                    "watchDebounceMs": NON_NEGATIVE_INT,
                    "intervalMinutes": NON_NEGATIVE_INT,
                    "sessions": Obj(
                        {"deltaBytes": NON_NEGATIVE_INT, "deltaMessages": NON_NEGATIVE_INT}, strict=loose
                    ),
                },
                strict=loose,
            ),
            "query": Obj(
                {
                    "maxResults": POSITIVE_INT,
                    "minScore": UNIT,
                    "hybrid": Obj(
                        {
                            "enabled": Bool(),
                            "vectorWeight": UNIT,
                            "textWeight": UNIT,
                            "candidateMultiplier": POSITIVE_INT,
                            "mmr": Obj({"enabled": Bool(), "lambda": UNIT}, strict=loose),
                            "temporalDecay": Obj(
                                {"enabled": Bool(), "halfLifeDays": POSITIVE_INT}, strict=loose
                            ),
                        },
                        strict=loose,
                    ),
                },
                strict=loose,
            ),
            "cache": Obj({"enabled": Bool(), "maxEntries": POSITIVE_INT}),
            # memwarm's accepted spelling (memory-backends.md intro); upstream's schema rejects it, and
            # `config check` warns about that separately.
            "backend": Enum(("builtin", "qmd")),
            "qmd": QMD,
        }
    )


MEMORY_SEARCH = _memory_search_schema()

STARTUP_CONTEXT = Obj(
    {
        "enabled": Bool(),
        "applyOn": Arr(Enum(("new", "reset"))),
        "dailyMemoryDays": Num(1, 14, integer=True),
        "maxFileBytes": Num(1, 64 * 1024, integer=True),
        "maxFileChars": Num(1, 10_000, integer=True),
        "maxTotalChars": Num(1, 50_000, integer=True),
    }
)

AGENT_DEFAULTS = Obj(
    {
        "workspace": Str(),
        "userTimezone": Str(),
        "startupContext": STARTUP_CONTEXT,
        "memorySearch": MEMORY_SEARCH,
    },
    strict=False,
)

_ENTRY_OTHER_KEYS = (
    "name",
    "agentDir",
    "model",
    "skills",
    "humanDelay",
    "heartbeat",
    "identity",
    "groupChat",
    "subagents",
    "sandbox",
    "tools",
)


def _entry_schema() -> Obj:
    fields: dict[str, Schema] = {
        "id": Str(),
        "default": Bool(),
        "workspace": Str(),
        "memorySearch": MEMORY_SEARCH,
    }
    fields.update({key: Any_() for key in _ENTRY_OTHER_KEYS})
    return Obj(fields, strict=False, required=("id",))


AGENT_ENTRY = _entry_schema()


class _EntryList(Schema):
    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if not isinstance(value, list):
            out.append(_wrong_type("an array of agent entries", value, path, node))
            return
        for i, item in enumerate(value):
            child = node.child(i) if node else None
            child_path = join_path(path, i)
            if not isinstance(item, dict):
                out.append(
                    Issue("error", child_path, f"a list entry must be an object, got {js_type(item)}", child)
                )
                continue
            AGENT_ENTRY.check(item, child, child_path, out)

    def describe(self) -> str:
        return "an array"


AGENTS = Obj(
    {"defaults": AGENT_DEFAULTS, "list": _EntryList()},
    notes={
        "entries": "agents.entries (the keyed map of later OpenClaw versions) is not read by this "
        "config shape (2026.2-2026.6); use agents.list"
    },
)

MEMORY = Obj(
    {"backend": Enum(("builtin", "qmd")), "citations": Enum(("auto", "on", "off")), "qmd": QMD},
    notes={
        "search": "memory.search (later OpenClaw versions) is not read by this config shape "
        "(2026.2-2026.6); use agents.defaults.memorySearch"
    },
)

ROOT = Obj({"agents": AGENTS, "memory": MEMORY}, strict=False)


def check_schema(data: dict[str, Any], positions: PNode | None) -> list[Issue]:
    """Every schema finding in the sections memwarm reads (other keys are not judged)."""
    out: list[Issue] = []
    ROOT.check(data, positions, "", out)
    return out
