"""The parts of OpenClaw's config schema that memwarm reads (config.md §7, memory-backends.md §4).

Upstream validates with Zod `.strict()` objects: an unknown key, a wrong type or a value out of range
makes OpenClaw refuse the whole config. `config check` judges only the sections memwarm reads:
`agents.defaults.{workspace,userTimezone,startupContext,memorySearch}`, `agents.list[]` with its `id`,
`default`, `workspace` and `memorySearch`, and `memory.{backend,citations,qmd}`. In objects whose full
key set the reference does not give (`agents.defaults`, list entries, `memorySearch.sync`, ...), an
unknown key is reported only as a likely typo (a warning with "did you mean"), never as an error.
"""

from __future__ import annotations

from typing import Any

from memwarm_cli.config.positions import PNode, join_path
from memwarm_cli.configview.schema_types import (
    Any_,
    Arr,
    Bool,
    Duration,
    Enum,
    Issue,
    Num,
    Obj,
    Record,
    Schema,
    Str,
    js_type,
    wrong_type,
)
from memwarm_cli.startup.prelude_settings import ACTIONS, LIMIT_SPECS

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

# The startup limits' bounds are the runtime's clamp bounds: one definition (prelude_settings.LIMIT_SPECS).
STARTUP_CONTEXT = Obj(
    {
        "enabled": Bool(),
        "applyOn": Arr(Enum(ACTIONS)),
        **{spec.name: Num(spec.minimum, spec.maximum, integer=True) for spec in LIMIT_SPECS},
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
            out.append(wrong_type("an array of agent entries", value, path, node))
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
