"""The memory parts of OpenClaw 2026.6.35's config schema (schema.py puts the whole together): `memory.qmd`
and the `memorySearch` object of `agents.defaults` and of every `agents.list[]` entry, with the secret
references its `remote.apiKey` takes (research config-validate.md §2.1, backend-635.md §5).
"""

from __future__ import annotations

import re

from memwarm_cli.config.positions import PNode, join_path
from memwarm_cli.configview.schema_types import (
    Any_,
    Arr,
    Bool,
    Duration,
    Enum,
    Issue,
    LazyObj,
    Literal_,
    Num,
    Obj,
    OneOf,
    Record,
    Schema,
    Str,
    show_kind,
    show_value,
    wrong_type,
)

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar

NON_NEGATIVE_INT = Num(0, None, integer=True)
POSITIVE_INT = Num(0, None, integer=True, exclusive_minimum=True)
UNIT = Num(0, 1)
NON_EMPTY = Str(min_length=1)


# Sources, compiled (by re's cache) when a secret reference is first judged: ~0.25 ms CPU of every status
# to compile at import, for configs that mostly hold none.
_SECRET_PROVIDER = r"[a-z][a-z0-9_-]{0,63}"
_ENV_SECRET_ID = r"[A-Z][A-Z0-9_]{0,127}"
_FILE_SECRET_SEGMENT = r"(?s:[^~]|~0|~1)*"
_EXEC_SECRET_ID = r"[A-Za-z0-9][A-Za-z0-9._:/#-]{0,255}"


def _file_secret_id(value: str) -> bool:
    """`isValidFileSecretRefId`: "value", or an absolute JSON pointer."""
    if value == "value":
        return True
    return value.startswith("/") and all(
        re.fullmatch(_FILE_SECRET_SEGMENT, segment) for segment in value[1:].split("/")
    )


def _exec_secret_id(value: str) -> bool:
    """`isValidExecSecretRefId`: the pattern, and no `.` or `..` segment."""
    if re.fullmatch(_EXEC_SECRET_ID, value) is None:
        return False
    return all(segment not in (".", "..") for segment in value.split("/"))


class SecretRef(Schema):
    """A secret reference (`{source: "env"|"file"|"exec", provider, id}`, strict), judged by the branch
    its `source` names, as upstream's discriminated union does."""

    judges_objects = True
    PROVIDER = Str(pattern=_SECRET_PROVIDER, what="a provider alias matching /^[a-z][a-z0-9_-]{0,63}$/")
    BRANCHES: ClassVar[dict[str, Schema]] = {
        "env": Str(pattern=_ENV_SECRET_ID, what="an env variable name matching /^[A-Z][A-Z0-9_]{0,127}$/"),
        "file": Str(),
        "exec": Str(),
    }

    def check(self, value: Any, node: PNode | None, path: str, out: list[Issue]) -> None:
        if not isinstance(value, dict):
            out.append(wrong_type("a secret reference object", value, path, node))
            return
        source = value.get("source")
        if source not in self.BRANCHES or not isinstance(source, str):
            # Upstream's discriminated union names the reference itself when no branch is chosen.
            message = f'a secret reference\'s source must be "env", "file" or "exec", got {show_kind(source)}'
            out.append(Issue("error", path, message, node))
            return
        fields = {"source": Any_(), "provider": self.PROVIDER, "id": self.BRANCHES[source]}
        before = len(out)
        Obj(fields, required=("source", "provider", "id")).check(value, node, path, out)
        ident = value.get("id")
        if len(out) == before and isinstance(ident, str) and source != "env":
            valid = _file_secret_id(ident) if source == "file" else _exec_secret_id(ident)
            if not valid:
                form = (
                    'an absolute JSON pointer (such as "/providers/openai/apiKey") or "value"'
                    if source == "file"
                    else 'an id matching /^[A-Za-z0-9][A-Za-z0-9._:/#-]{0,255}$/ with no "." or ".." segment'
                )
                child = node.child("id") if node else None
                out.append(
                    Issue(
                        "error",
                        join_path(path, "id"),
                        f"{show_value(ident)} is not {form}",
                        child,
                        continues=True,
                    )
                )

    def describe(self) -> str:
        return "a secret reference"


def _collection_entry() -> Obj:
    return Obj({"path": Str(), "name": Str(), "pattern": Str()}, required=("path",))


def _qmd_schema() -> Obj:
    return Obj(
        {
            "command": Str(),
            "mcporter": Obj({"enabled": Bool(), "serverName": Str(), "startDaemon": Bool()}),
            "searchMode": Enum(("query", "search", "vsearch")),
            "rerank": Bool(),
            "searchTool": Str(min_length=1, trim=True),
            "includeDefaultMemory": Bool(),
            "paths": Arr(_collection_entry()),
            "sessions": Obj({"enabled": Bool(), "exportDir": Str(), "retentionDays": NON_NEGATIVE_INT}),
            "update": Obj(
                {
                    "interval": Duration("5m"),
                    "debounceMs": NON_NEGATIVE_INT,
                    "onBoot": Bool(),
                    "startup": Enum(("off", "idle", "immediate")),
                    "startupDelayMs": NON_NEGATIVE_INT,
                    "waitForBootSync": Bool(),
                    "embedInterval": Duration("60m"),
                    "commandTimeoutMs": NON_NEGATIVE_INT,
                    "updateTimeoutMs": NON_NEGATIVE_INT,
                    "embedTimeoutMs": NON_NEGATIVE_INT,
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
            "scope": Obj(
                {
                    "default": Enum(("allow", "deny")),
                    "rules": Arr(
                        Obj(
                            {
                                "action": Enum(("allow", "deny")),
                                "match": Obj(
                                    {
                                        "channel": Str(),
                                        "chatType": Enum(("direct", "group", "channel", "dm")),
                                        "keyPrefix": Str(),
                                        "rawKeyPrefix": Str(),
                                    }
                                ),
                            },
                            required=("action",),
                        )
                    ),
                }
            ),
        }
    )


QMD = LazyObj(_qmd_schema)


def _search_qmd_notes() -> dict[str, str]:
    """`memorySearch.qmd` holds only extraCollections in 6.35; memwarm once read a whole qmd block there."""
    return {
        key: f"memorySearch.qmd holds only extraCollections in OpenClaw 2026.6.35, which refuses the config "
        f"with {key} in it; the qmd settings are memory.qmd.{key}"
        for key in QMD.schema.fields
    }


# What 2026.6.35's memorySearch block and 2026.9.6's memory.search (schema_2026_9_6.py) have in common,
# written once: each release's block is these and its own keys.
MEMORY_SEARCH_SHARED: dict[str, Schema] = {
    "enabled": Bool(),
    "sources": Arr(Enum(("memory", "sessions"))),
    "multimodal": Obj(
        {
            "enabled": Bool(),
            "modalities": Arr(Enum(("image", "audio", "all"))),
            "maxFileBytes": POSITIVE_INT,
        }
    ),
    "experimental": Obj({"sessionMemory": Bool()}),
    "provider": Str(),
    "fallback": Str(),
    "model": Str(),
    "inputType": NON_EMPTY,
    "queryInputType": NON_EMPTY,
    "documentInputType": NON_EMPTY,
    "outputDimensionality": POSITIVE_INT,
}
REMOTE_SHARED: dict[str, Schema] = {
    "baseUrl": Str(),
    "apiKey": OneOf((Str(), SecretRef())),
    "headers": Record(Str()),
}
STORE_SHARED: dict[str, Schema] = {
    "fts": Obj({"tokenizer": Enum(("unicode61", "trigram"))}),
    "vector": Obj({"enabled": Bool(), "extensionPath": Str()}),
}
QUERY_SHARED: dict[str, Schema] = {"maxResults": POSITIVE_INT, "minScore": UNIT}


def _memory_search_schema() -> Obj:
    return Obj(
        {
            **MEMORY_SEARCH_SHARED,
            "extraPaths": Arr(Str()),
            "qmd": Obj({"extraCollections": Arr(_collection_entry())}, notes=_search_qmd_notes()),
            "remote": Obj(
                {
                    **REMOTE_SHARED,
                    "nonBatchConcurrency": POSITIVE_INT,
                    "batch": Obj(
                        {
                            "enabled": Bool(),
                            "wait": Bool(),
                            "concurrency": POSITIVE_INT,
                            "pollIntervalMs": NON_NEGATIVE_INT,
                            "timeoutMinutes": POSITIVE_INT,
                        }
                    ),
                }
            ),
            "local": Obj(
                {
                    "modelPath": Str(),
                    "modelCacheDir": Str(),
                    "contextSize": OneOf((POSITIVE_INT, Literal_("auto"))),
                }
            ),
            "store": Obj(
                {"driver": Enum(("sqlite",)), **STORE_SHARED},
                notes={
                    "path": "OpenClaw 2026.6.35 refuses the config with memorySearch.store.path; the "
                    "builtin index is <stateDir>/agents/<agentId>/agent/openclaw-agent.sqlite"
                },
            ),
            "chunking": Obj({"tokens": POSITIVE_INT, "overlap": NON_NEGATIVE_INT}),
            "sync": Obj(
                {
                    "onSessionStart": Bool(),
                    "onSearch": Bool(),
                    "watch": Bool(),
                    "watchDebounceMs": NON_NEGATIVE_INT,
                    "intervalMinutes": NON_NEGATIVE_INT,
                    "embeddingBatchTimeoutSeconds": POSITIVE_INT,
                    "sessions": Obj(
                        {
                            "deltaBytes": NON_NEGATIVE_INT,
                            "deltaMessages": NON_NEGATIVE_INT,
                            "postCompactionForce": Bool(),
                        }
                    ),
                }
            ),
            "query": Obj(
                {
                    **QUERY_SHARED,
                    "hybrid": Obj(
                        {
                            "enabled": Bool(),
                            "vectorWeight": UNIT,
                            "textWeight": UNIT,
                            "candidateMultiplier": POSITIVE_INT,
                            "mmr": Obj({"enabled": Bool(), "lambda": UNIT}),
                            "temporalDecay": Obj({"enabled": Bool(), "halfLifeDays": POSITIVE_INT}),
                        }
                    ),
                }
            ),
            "cache": Obj({"enabled": Bool(), "maxEntries": POSITIVE_INT}),
        },
        notes={
            "backend": "OpenClaw 2026.6.35 refuses the config with memorySearch.backend (memwarm used to "
            "read it as memory.backend); the backend is memory.backend, for every agent"
        },
    )


MEMORY_SEARCH = LazyObj(_memory_search_schema)
