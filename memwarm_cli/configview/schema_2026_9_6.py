"""The config schema of OpenClaw 2026.8.1 and later (profiles P2 and P3), as far as `config check` judges
it: 2026.9.6's own Zod objects (dist/zod-schema*.mjs; research config-validate.md §5, versions.md §C),
built from the same blocks as 2026.6.35's (schema_2026_6_35.py).

What differs from 6.35: `memory` holds only `citations` and `search` (`memory.backend` and `memory.qmd`
are retired, even "builtin" and `{}`); `memory.search` replaces `agents.defaults.memorySearch` (no
`chunking`, `sync`, `qmd`, `store.path`; `rememberAcrossConversations`; `extraPaths` items may be
`{path, pattern}`); the roster is `agents.entries`, keyed by id (release_checks_2026_9_6.py moves an
`agents.list` as the loader does and judges its entries with this entry schema); `agents.ownership`;
`agents.defaults` lost `memorySearch`, `bootstrapPromptTruncationWarning`, the envelope and generation
keys and gained `systemAgent` and others; `env` is strict; `session.idleMinutes` is gone; the top level
lost `cli crestodian tui audio media commitments web canvasHost`.

A retired key is an unknown key whose message says what became of it and what `openclaw doctor --fix`
does (the release's own legacy texts, dist/legacy-*.mjs). `agents.defaults.contextTokens` is not
rejected: the loader drops it with a warning (release_checks_2026_9_6.py).
"""

from __future__ import annotations

import re
from typing import Any

from memwarm_cli.config.positions import PNode
from memwarm_cli.configview.schema_2026_6_35 import CONTEXT_INJECTION, EXPERIMENTAL, STARTUP_CONTEXT
from memwarm_cli.configview.schema_memory import (
    MEMORY_SEARCH_SHARED,
    POSITIVE_INT,
    QUERY_SHARED,
    REMOTE_SHARED,
    STORE_SHARED,
)
from memwarm_cli.configview.schema_types import (
    Any_,
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
)

SINCE = "OpenClaw 2026.8.1 and later"
# What 2026.9.6's `openclaw doctor` printed for each retired key (verdicts-2026.9.6.json "doctor"), or
# the change text of its migration where no recorded config held the key (dist/legacy-*.mjs).
DOCTOR_CHANGES = {
    "memory.backend": "Removed retired QMD memory configuration; builtin memory is now the only memory "
    "engine.",
    "memory.qmd": "Migrated <n> external QMD paths from memory.qmd.paths and "
    "memory.search.qmd.extraCollections → memory.search.extraPaths. Removed retired QMD memory "
    "configuration; builtin memory is now the only memory engine.",
    "agents.defaults.memorySearch": "Moved legacy memorySearch defaults → memory.search.",
    "memorySearch": "Moved legacy memorySearch defaults → memory.search.",
    "agents.entries.*.memorySearch": "Moved agents.entries.<id>.memorySearch → "
    "agents.entries.<id>.memory.search.",
    "memory.search.store.path": "Removed memory.search.store.path; memory indexes now use each agent "
    "database.",
    "agents.defaults.bootstrapPromptTruncationWarning": "Removed "
    "agents.defaults.bootstrapPromptTruncationWarning; built-in behavior now applies.",
    "agents.defaults.promptOverlays": "Removed agents.defaults.promptOverlays; built-in behavior now "
    "applies.",
    "agents.defaults.cliBackends": "Removed agents.defaults.cliBackends; CLI backend adapters now register "
    "through plugins.",
    "session.idleMinutes": "Moved session.idleMinutes → session.reset.idleMinutes.",
}


def _retired(key: str, why: str, doctor: str | None = None) -> str:
    """The note of the retired `key` (after "unknown key: "): what the release says of it (`why` names
    the key), that it refuses the config, and what `openclaw doctor --fix` changes (`doctor`: the
    DOCTOR_CHANGES key)."""
    said = DOCTOR_CHANGES.get(doctor) if doctor is not None else None
    fix = (
        f'`openclaw doctor --fix` migrates it ("{said}"; 2026.9.6\'s plain `openclaw doctor` applies this '
        "too, rewriting the file)"
        if said is not None
        else "`openclaw doctor --fix` removes it"
    )
    return f"{why} {SINCE} refuse this config; {fix}"


MEMORY_SEARCH = Obj(
    {
        **MEMORY_SEARCH_SHARED,
        "rememberAcrossConversations": Bool(),
        "extraPaths": Arr(OneOf((Str(), Obj({"path": Str(), "pattern": Str()}, required=("path",))))),
        "remote": Obj({**REMOTE_SHARED, "batch": Obj({"enabled": Bool()})}),
        "local": Obj({"modelPath": Str()}),
        "store": Obj(
            {**STORE_SHARED},
            notes={
                "path": _retired(
                    "path",
                    "memorySearch.store.path is legacy; memory indexes now live in each agent database.",
                    "memory.search.store.path",
                )
            },
        ),
        "query": Obj({**QUERY_SHARED}),
        "cache": Obj({"enabled": Bool()}),
    },
    notes={
        "qmd": _retired(
            "qmd",
            "memory.search.qmd is retired because the QMD memory backend was removed; configured external "
            "collections migrate to memory.search.extraPaths.",
            "memory.qmd",
        ),
        "chunking": _retired(
            "chunking", "memory.search.chunking was removed (no chunking settings any more)."
        ),
        "sync": _retired("sync", "memory.search.sync was removed (no sync settings any more)."),
    },
)

_MOVED_ENTRY_SEARCH = _retired(
    "memorySearch",
    "agents.entries.*.memorySearch moved to agents.entries.*.memory.search.",
    "agents.entries.*.memorySearch",
)
_ENTRY_MEMORY = Obj({"search": MEMORY_SEARCH})


def _entry_schema() -> Obj:
    """`AgentEntrySchema.omit({id}).extend({default})`: an `agents.entries` value (a moved list entry
    too, its `id` then being the key)."""
    fields: dict[str, Schema] = {
        "default": Bool(),
        "name": Str(),
        "description": Str(),
        "workspace": Str(),
        "cwd": Str(),
        "agentDir": Str(),
        **any_keys("model utilityModel decisionModel models modelPolicy thinkingDefault verboseDefault"),
        **any_keys("toolProgressDetail reasoningDefault fastModeDefault"),
        "contextInjection": CONTEXT_INJECTION,
        "bootstrapMaxChars": POSITIVE_INT,
        "bootstrapTotalMaxChars": POSITIVE_INT,
        "experimental": EXPERIMENTAL,
        "skills": Arr(Str()),
        **any_keys("subagents embeddedAgent params runtime"),
        "memory": _ENTRY_MEMORY,
        # Dropped by the loader before validation, with a warning (release_checks_2026_9_6.py).
        "contextTokens": Any_(),
        **any_keys(
            "humanDelay typingMode tts skillsLimits contextLimits heartbeat identity groupChat sandbox"
        ),
        "tools": Obj(
            any_keys(
                "profile allow alsoAllow deny byProvider toolsBySender codeMode swarm elevated exec github "
                "fs loopDetection message sandbox"
            )
        ),
    }
    notes = {
        "memorySearch": _MOVED_ENTRY_SEARCH,
        "bootstrapPromptTruncationWarning": _retired(
            "bootstrapPromptTruncationWarning",
            "bootstrapPromptTruncationWarning was removed from agent entries; the truncation notice is "
            "always shown.",
        ),
    }
    return Obj(fields, notes=notes)


AGENT_ENTRY = _entry_schema()

_DEFAULTS_RETIRED = {
    "memorySearch": _retired(
        "memorySearch", "agents.defaults.memorySearch moved to memory.search.", "agents.defaults.memorySearch"
    ),
    "bootstrapPromptTruncationWarning": _retired(
        "bootstrapPromptTruncationWarning",
        "agents.defaults.bootstrapPromptTruncationWarning was removed; built-in behavior now applies (the "
        "truncation notice is always shown).",
        "agents.defaults.bootstrapPromptTruncationWarning",
    ),
    "memory": _retired(
        "memory", "agents.defaults.memory is no setting: the memory-search defaults are memory.search."
    ),
    **{
        key: _retired(key, f"agents.defaults.{key} was removed.", f"agents.defaults.{key}")
        for key in [
            "envelopeTimestamp",
            "envelopeElapsed",
            "envelopeTimezone",
            "timeFormat",
            "promptOverlays",
            "cliBackends",
            "imageGenerationModel",
            "videoGenerationModel",
            "musicGenerationModel",
            "mediaGenerationAutoProviderFallback",
            "pdfMaxBytesMb",
            "runRetries",
        ]
    },
}

AGENT_DEFAULTS = Obj(
    {
        **any_keys(
            "params model modelSelectionScope utilityModel decisionModel imageModel mediaModels voiceModel "
            "pdfModel pdfMaxMb pdfMaxPages models modelPolicy"
        ),
        "workspace": Str(),
        "cwd": Str(),
        "skills": Arr(Str()),
        **any_keys("silentReply"),
        "repoRoot": Str(),
        "skipBootstrap": Bool(),
        "skipOptionalBootstrapFiles": Arr(Enum(("SOUL.md", "USER.md", "HEARTBEAT.md", "IDENTITY.md"))),
        "contextInjection": CONTEXT_INJECTION,
        "bootstrapMaxChars": POSITIVE_INT,
        "bootstrapTotalMaxChars": POSITIVE_INT,
        "experimental": EXPERIMENTAL,
        "userTimezone": Str(),
        "startupContext": STARTUP_CONTEXT,
        # Dropped by the loader before validation, with a warning (release_checks_2026_9_6.py).
        "contextTokens": Any_(),
        **any_keys(
            "contextPruning compaction embeddedAgent thinkingDefault fastModeDefault verboseDefault "
            "toolProgressDetail reasoningDefault elevatedDefault blockStreamingDefault blockStreamingBreak "
            "timeoutSeconds mediaMaxMb imageMaxDimensionPx imageQuality typingIntervalSeconds"
        ),
        "systemAgent": Obj({"agentId": Str()}),
        **any_keys(
            "authInheritance sessionStore maxConcurrent subagents contextLimits blockStreamingChunk "
            "blockStreamingCoalesce humanDelay typingMode heartbeat sandbox"
        ),
    },
    notes=_DEFAULTS_RETIRED,
)

_RESET = Obj(
    {"mode": Enum(("none", "daily", "idle")), "atHour": Num(0, 23, integer=True), "idleMinutes": POSITIVE_INT}
)
SESSION = Obj(
    {
        "scope": Enum(("per-sender", "global")),
        "dmScope": Enum(("main", "per-peer", "per-channel-peer", "per-account-channel-peer")),
        "groupScope": Enum(("main", "per-group")),
        "notifyOnCreate": Bool(),
        "identityLinks": Record(Arr(Str())),
        "resetTriggers": Arr(Str()),
        "reset": _RESET,
        "resetByType": Obj({kind: _RESET for kind in ("direct", "group", "thread")}),
        "resetByChannel": Record(_RESET),
        "store": Str(),
        "mainKey": Str(),
        **any_keys("sendPolicy threadBindings sharing maintenance"),
    },
    notes={
        "idleMinutes": _retired(
            "idleMinutes", "session.idleMinutes moved; use session.reset.idleMinutes.", "session.idleMinutes"
        )
    },
)

MEMORY = Obj(
    {"citations": Enum(("auto", "on", "off")), "search": MEMORY_SEARCH},
    notes={
        "backend": _retired(
            "backend",
            "memory.backend is retired; builtin memory is now the only memory engine.",
            "memory.backend",
        ),
        "qmd": _retired(
            "qmd",
            "memory.qmd is retired because the QMD memory backend was removed; configured external paths "
            "migrate to memory.search.extraPaths.",
            "memory.qmd",
        ),
    },
)

ENV = Obj(
    {"shellEnv": Obj({"enabled": Bool(), "timeoutMs": Num(0, None, integer=True)}), "vars": Record(Str())}
)


class _Roster(Schema):
    """`agents.entries`: a record whose keys match `^[a-z0-9_][a-z0-9_-]{0,63}$`i, of entry objects."""

    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if not isinstance(value, dict):
            Record(AGENT_ENTRY).check(value, node, path, out)
            return
        valid = re.compile(r"[a-z0-9_][a-z0-9_-]{0,63}", re.IGNORECASE | re.ASCII)
        for key, item in value.items():
            child = node.child(key) if node else None
            child_path = f"{path}.{key}"
            if not valid.fullmatch(key):
                out.append(Issue("error", child_path, "Invalid key in record (not an agent id)", child))
                continue
            AGENT_ENTRY.check(item, child, child_path, out)

    def describe(self) -> str:
        return "an object"


AGENTS = Obj(
    {
        "ownership": Literal_("explicit"),
        "defaults": AGENT_DEFAULTS,
        "entries": _Roster(),
    },
    # A list the loader could not move is judged by release_checks_2026_9_6.py; one beside entries stays here.
    notes={
        "list": _retired(
            "list",
            "agents.list moved to keyed agents.entries, and agents.entries is set too: the list is not read.",
        )
    },
)

ROOT = Obj(
    {
        "$schema": Str(),
        "meta": Obj({"lastTouchedVersion": Str(), "migrations": Any_(), "lastTouchedAt": Any_()}),
        "env": ENV,
        **any_keys(
            "wizard diagnostics logging update telemetry browser ui secrets auth accessGroups acp models "
            "nodeHost"
        ),
        "agents": AGENTS,
        **any_keys(
            "worktreeRoot worktreeAcceleration tools security bindings broadcast attachments messages tts"
        ),
        **any_keys("commands approvals"),
        "session": SESSION,
        **any_keys("cron transcripts hooks channels discovery talk gateway cloudWorkers desktop"),
        "memory": MEMORY,
        **any_keys("mcp skills plugins surfaces proxy"),
    },
    notes={
        "memorySearch": _retired(
            "memorySearch", "top-level memorySearch was moved; use memory.search instead.", "memorySearch"
        ),
        # Top-level keys 2026.8.1 dropped: doctor lists them as unknown keys, and `--fix` removes them.
        **{
            key: _retired(key, f"the top-level key {key} was removed.")
            for key in ("cli", "crestodian", "tui", "audio", "media", "commitments", "web", "canvasHost")
        },
    },
)


def check_schema(data: dict[str, Any], positions: PNode | None) -> list[Issue]:
    """Every schema finding of 2026.8.1+ (the roster's moves and rules aside: release_checks_2026_9_6.py)."""
    out: list[Issue] = []
    ROOT.check(data, positions, "", out)
    return out
