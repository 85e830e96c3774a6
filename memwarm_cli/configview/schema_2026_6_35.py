"""OpenClaw 2026.6.35's config schema, as far as `config check` judges it (config.md §7, memory-backends.md
§4, and the release itself: research config-validate.md §2.1).

Upstream validates with Zod `.strict()` objects: an unknown key, a wrong type or a value out of range
makes OpenClaw refuse the whole config. These objects are strict here too, with the release's full key
sets: the top level (45 keys), `agents`, `agents.defaults` (58), every `agents.list[]` entry (34) and
its `tools`, `memory` with all of `memory.qmd`, every `memorySearch` object, `session`, `meta`; `env`
takes any other key whose value is a string. The values memwarm reads, and those whose check decides
validity in the sections above, are judged exactly; the values of the other keys (`gateway`, `channels`,
an entry's `identity`, ...) are not judged (any value).

Keys that memwarm once read but that the release rejects are errors with a note saying what the release
reads instead: `memorySearch.backend` and a qmd block in `memorySearch.qmd` (which holds only
`extraCollections` in 6.35), `memorySearch.store.path`, a top-level `memorySearch`, and the later
releases' `agents.entries`, `memory.search` and `agents.list[].memory`.
"""

from __future__ import annotations

from memwarm_cli.config.positions import PNode, join_path
from memwarm_cli.configview.schema_memory import (
    MEMORY_SEARCH,
    NON_NEGATIVE_INT,
    POSITIVE_INT,
    QMD,
)
from memwarm_cli.configview.schema_types import (
    Arr,
    Bool,
    Enum,
    Issue,
    Literal_,
    Num,
    Obj,
    OneOf,
    Record,
    Schema,
    Str,
    any_keys,
    js_type,
    wrong_type,
)
from memwarm_cli.startup.prelude_settings import ACTIONS, LIMIT_SPECS

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MEMORY_SEARCH", "QMD", "check_schema"]


# The startup limits' bounds are the runtime's clamp bounds: one definition (prelude_settings.LIMIT_SPECS).
STARTUP_CONTEXT = Obj(
    {
        "enabled": Bool(),
        "applyOn": Arr(Enum(ACTIONS)),
        **{spec.name: Num(spec.minimum, spec.maximum, integer=True) for spec in LIMIT_SPECS},
    }
)

CONTEXT_INJECTION = Enum(("always", "continuation-skip", "never"))
EXPERIMENTAL = Obj({"localModelLean": Bool()})
_LATER_MEMORY = (
    "memory.search is the 2026.9 spelling, which OpenClaw 2026.6.35 refuses; use memorySearch here"
)

AGENT_DEFAULTS = Obj(
    {
        **any_keys(
            "params model imageModel imageGenerationModel videoGenerationModel musicGenerationModel "
            "voiceModel mediaGenerationAutoProviderFallback pdfModel pdfMaxBytesMb pdfMaxPages models"
        ),
        "workspace": Str(),
        "skills": Arr(Str()),
        **any_keys("silentReply", "promptOverlays"),
        "repoRoot": Str(),
        "skipBootstrap": Bool(),
        "skipOptionalBootstrapFiles": Arr(Enum(("SOUL.md", "USER.md", "HEARTBEAT.md", "IDENTITY.md"))),
        "contextInjection": CONTEXT_INJECTION,
        "bootstrapMaxChars": POSITIVE_INT,
        "bootstrapTotalMaxChars": POSITIVE_INT,
        "experimental": EXPERIMENTAL,
        "bootstrapPromptTruncationWarning": Enum(("off", "once", "always")),
        "userTimezone": Str(),
        "startupContext": STARTUP_CONTEXT,
        **any_keys(
            "contextLimits timeFormat envelopeTimezone envelopeTimestamp envelopeElapsed contextTokens "
            "cliBackends"
        ),
        "memorySearch": MEMORY_SEARCH,
        **any_keys(
            "contextPruning compaction runRetries embeddedAgent thinkingDefault verboseDefault "
            "toolProgressDetail reasoningDefault elevatedDefault blockStreamingDefault blockStreamingBreak "
            "blockStreamingChunk blockStreamingCoalesce humanDelay timeoutSeconds mediaMaxMb "
            "imageMaxDimensionPx imageQuality typingIntervalSeconds typingMode heartbeat maxConcurrent "
            "subagents sandbox"
        ),
    },
    notes={"memory": _LATER_MEMORY},
)

_DEFAULTS_ONLY = (
    "OpenClaw 2026.6.35 reads {key} from agents.defaults only and refuses it on an agents.list[] entry"
)
_ENTRY_TOOLS = Obj(
    any_keys(
        "profile allow alsoAllow deny byProvider toolsBySender codeMode elevated exec fs loopDetection "
        "message sandbox"
    )
)


def _entry_schema() -> Obj:
    fields: dict[str, Schema] = {
        "id": Str(),
        "default": Bool(),
        "name": Str(),
        "description": Str(),
        "workspace": Str(),
        "agentDir": Str(),
        **any_keys("model models thinkingDefault verboseDefault toolProgressDetail reasoningDefault"),
        "fastModeDefault": OneOf((Bool(), Literal_("auto"))),
        "contextInjection": CONTEXT_INJECTION,
        "bootstrapMaxChars": POSITIVE_INT,
        "bootstrapTotalMaxChars": POSITIVE_INT,
        "experimental": EXPERIMENTAL,
        "skills": Arr(Str()),
        "memorySearch": MEMORY_SEARCH,
        **any_keys(
            "humanDelay tts skillsLimits contextLimits contextTokens heartbeat identity groupChat subagents "
            "runRetries embeddedAgent sandbox params runtime"
        ),
        "tools": _ENTRY_TOOLS,
    }
    notes = {
        key: _DEFAULTS_ONLY.format(key=key)
        for key in ("startupContext", "userTimezone", "bootstrapPromptTruncationWarning")
    }
    notes["memory"] = (
        "agents.list[].memory is the 2026.9 spelling (agents.entries.<id>.memory), which OpenClaw "
        "2026.6.35 refuses; use memorySearch here"
    )
    return Obj(fields, required=("id",), notes=notes)


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

_RESET = Obj(
    {"mode": Enum(("daily", "idle")), "atHour": Num(0, 23, integer=True), "idleMinutes": POSITIVE_INT}
)
SESSION = Obj(
    {
        "scope": Enum(("per-sender", "global")),
        "dmScope": Enum(("main", "per-peer", "per-channel-peer", "per-account-channel-peer")),
        "identityLinks": Record(Arr(Str())),
        "resetTriggers": Arr(Str()),
        "idleMinutes": POSITIVE_INT,
        "reset": _RESET,
        "resetByType": Obj({kind: _RESET for kind in ("direct", "dm", "group", "thread")}),
        "resetByChannel": Record(_RESET),
        "store": Str(),
        "typingIntervalSeconds": POSITIVE_INT,
        "typingMode": Enum(("never", "instant", "thinking", "message")),
        "mainKey": Str(),
        **any_keys("sendPolicy writeLock agentToAgent threadBindings maintenance"),
    }
)

ENV = Obj(
    {"shellEnv": Obj({"enabled": Bool(), "timeoutMs": NON_NEGATIVE_INT}), "vars": Record(Str())},
    catchall=Str(),
)

# The top level: every key of the release (45), `agents`, `memory`, `session`, `env` and a few small
# ones judged.
ROOT = Obj(
    {
        "$schema": Str(),
        "meta": Obj({"lastTouchedVersion": Str(), "lastTouchedAt": OneOf((Str(), Num()))}),
        "env": ENV,
        **any_keys(
            "wizard diagnostics logging cli crestodian update browser ui tui secrets auth accessGroups acp "
            "models nodeHost"
        ),
        "agents": AGENTS,
        **any_keys("tools security bindings"),
        "broadcast": Obj({"strategy": Enum(("parallel", "sequential"))}, catchall=Arr(Str())),
        **any_keys("audio media messages commands approvals"),
        "session": SESSION,
        **any_keys("cron transcripts commitments hooks web channels discovery talk gateway"),
        "memory": MEMORY,
        **any_keys("mcp skills plugins canvasHost surfaces proxy"),
    },
    notes={
        "memorySearch": "memorySearch belongs under agents.defaults (or an agents.list[] entry); "
        "OpenClaw 2026.6.35 refuses it at the top level"
    },
)


def check_schema(data: dict[str, Any], positions: PNode | None) -> list[Issue]:
    """Every schema finding (the values of keys the release accepts but memwarm does not judge aside)."""
    out: list[Issue] = []
    ROOT.check(data, positions, "", out)
    return out
