"""What memwarm does with every key under `memory.qmd` and `agents.*.memorySearch`: one table.

`config show` marks each configured setting with it, and `init-backends` reports (in `--json`, and once
per run on stderr) every configured setting that changes what the gateway does but that memwarm does not
reproduce, so no setting is accepted without a word. tests/backends/settings/test_setting_use.py checks that
the table names exactly the keys `config check`'s schema knows, so a new key cannot be added silently.

Uses:
- `memwarm`: init-backends acts on it as the gateway's boot would.
- `gateway`: the running gateway acts on it (timers, daemons, how boot waits); a one-shot memwarm run
  does not, so a configured value is reported.
- `search`: read only when an agent searches; it does not change the boot-time work.
- `builtin`: read only by the builtin backend (and by the gateway's fallback to it when qmd fails);
  memwarm prepares qmd indexes only.

The notes say what OpenClaw 2026.6.35 does (research backend-635.md §4): its gateway runs no qmd at boot
unless `memory.qmd.update.startup` is idle or immediate (the default is off); the first memory use opens
a qmd manager that lists the collections and, with `update.onBoot`, updates the index in the background.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping

from memwarm_cli.config.lookup import as_object, lookup
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_number_text

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    Use = Literal["memwarm", "gateway", "search", "builtin"]


@record
class SettingUse:
    use: Use
    note: str = ""


_ONE_SHOT = "memwarm runs once per call (run it from cron for a similar effect)"
_BUILTIN = "the builtin backend's setting; memwarm prepares the qmd index only"
_SESSIONS_WITH_QMD = "with qmd, transcripts come from memory.qmd.sessions"
_NO_BOOT = (
    'with update.startup "off" (the default) OpenClaw 2026.6.35 runs no qmd at boot, so memwarm is the only '
    "boot-time warmer"
)

QMD_SETTINGS: dict[str, SettingUse] = {
    "command": SettingUse("memwarm", "its first token is run, as upstream does"),
    "searchMode": SettingUse("memwarm", "decides qmd embed and the --probe search"),
    "rerank": SettingUse("search", "with searchMode query, false adds --no-rerank to each search"),
    "searchTool": SettingUse(
        "gateway", "the MCP tool the gateway's mcporter searches call; memwarm runs qmd itself"
    ),
    "includeDefaultMemory": SettingUse("memwarm"),
    "paths": SettingUse("memwarm"),
    "sessions.enabled": SettingUse("memwarm", "transcripts are exported before qmd update"),
    "sessions.exportDir": SettingUse("memwarm"),
    "sessions.retentionDays": SettingUse("memwarm", "measured from --at (default now)"),
    "update.interval": SettingUse("gateway", f"the gateway updates the index every interval; {_ONE_SHOT}"),
    "update.debounceMs": SettingUse("gateway", "the gateway skips updates closer together than this"),
    "update.onBoot": SettingUse(
        "memwarm",
        "when false the gateway's qmd manager does not update the index when it opens (at first memory "
        "use, or at boot with update.startup set), so memwarm is the only warmer; it still updates "
        "(config show: gatewayUpdatesAtFirstUse false)",
    ),
    "update.startup": SettingUse(
        "gateway",
        "idle or immediate: the gateway runs ensureCollections and qmd update per eligible agent at boot "
        f"(idle after startupDelayMs); {_NO_BOOT}; memwarm runs when called",
    ),
    "update.startupDelayMs": SettingUse(
        "gateway", 'how long the gateway waits at boot with update.startup "idle"'
    ),
    "update.waitForBootSync": SettingUse(
        "gateway", "the gateway's start-up waits for its boot update; memwarm always waits for its own"
    ),
    "update.embedInterval": SettingUse(
        "gateway", f"the gateway re-embeds every interval; memwarm embeds when it indexes; {_ONE_SHOT}"
    ),
    "update.commandTimeoutMs": SettingUse("memwarm", "qmd collection commands (--timeout overrides)"),
    "update.updateTimeoutMs": SettingUse("memwarm", "qmd update (--timeout overrides)"),
    "update.embedTimeoutMs": SettingUse("memwarm", "qmd embed (--timeout overrides)"),
    "limits.maxResults": SettingUse("search", "the --probe search asks for this many results"),
    "limits.maxSnippetChars": SettingUse("search"),
    "limits.maxInjectedChars": SettingUse("search"),
    "limits.timeoutMs": SettingUse("search", "a search's timeout; the --probe search has its own"),
    "scope.default": SettingUse("search", "which chats may search memory (memwarm search is the CLI's)"),
    "scope.rules": SettingUse("search", "which chats may search memory (memwarm search is the CLI's)"),
    "mcporter.enabled": SettingUse(
        "gateway", "the gateway searches through an MCP daemon; memwarm runs qmd directly, starts no daemon"
    ),
    "mcporter.serverName": SettingUse("gateway", "the MCP server the gateway's searches go to"),
    "mcporter.startDaemon": SettingUse("gateway", "the gateway starts the MCP daemon; memwarm does not"),
}

MEMORY_SEARCH_SETTINGS: dict[str, SettingUse] = {
    "enabled": SettingUse("memwarm", "false: the agent is skipped"),
    "extraPaths": SettingUse("memwarm", "each path is one more qmd collection"),
    "qmd.extraCollections": SettingUse(
        "memwarm", "each entry is one more qmd collection, after memory.qmd.paths and the extraPaths"
    ),
    "sources": SettingUse("builtin", _SESSIONS_WITH_QMD),
    "experimental.sessionMemory": SettingUse("builtin", _SESSIONS_WITH_QMD),
    "sync.onSessionStart": SettingUse(
        "gateway", "the gateway updates the qmd index at each new session's first search"
    ),
    "sync.onSearch": SettingUse("gateway", "the gateway updates a qmd index its watcher marked changed"),
    "sync.watch": SettingUse("gateway", "the gateway watches the collections' files for changes"),
    "sync.watchDebounceMs": SettingUse("gateway", "the gateway's file watcher waits this long"),
    **{
        key: SettingUse("builtin", _BUILTIN)
        for key in (
            "provider",
            "fallback",
            "model",
            "inputType",
            "queryInputType",
            "documentInputType",
            "outputDimensionality",
            "multimodal.enabled",
            "multimodal.modalities",
            "multimodal.maxFileBytes",
            "remote.baseUrl",
            "remote.apiKey",
            "remote.headers",
            "remote.nonBatchConcurrency",
            "remote.batch.enabled",
            "remote.batch.wait",
            "remote.batch.concurrency",
            "remote.batch.pollIntervalMs",
            "remote.batch.timeoutMinutes",
            "local.modelPath",
            "local.modelCacheDir",
            "local.contextSize",
            "store.driver",
            "store.fts.tokenizer",
            "store.vector.enabled",
            "store.vector.extensionPath",
            "chunking.tokens",
            "chunking.overlap",
            "sync.intervalMinutes",
            "sync.embeddingBatchTimeoutSeconds",
            "sync.sessions.deltaBytes",
            "sync.sessions.deltaMessages",
            "sync.sessions.postCompactionForce",
            "query.maxResults",
            "query.minScore",
            "query.hybrid.enabled",
            "query.hybrid.vectorWeight",
            "query.hybrid.textWeight",
            "query.hybrid.candidateMultiplier",
            "query.hybrid.mmr.enabled",
            "query.hybrid.mmr.lambda",
            "query.hybrid.temporalDecay.enabled",
            "query.hybrid.temporalDecay.halfLifeDays",
            "cache.enabled",
            "cache.maxEntries",
        )
    },
}


@record
class ConfiguredSetting:
    """A key the config sets (not null) for an agent, where, and what memwarm does with it."""

    path: str  # the dotted path where it is set, e.g. `memory.qmd.update.interval`
    key: str  # the table's key, e.g. `update.interval`
    value: Any
    use: Use
    note: str

    @property
    def differs_from_gateway(self) -> bool:
        """The gateway acts on this value and memwarm's run does not do the same: reported."""
        if self.key == "update.onBoot":
            return self.value is False
        return self.use == "gateway"

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "value": json_value(self.value),
            "use": self.use,
            "note": self.note or None,
            "differsFromGateway": self.differs_from_gateway,
        }

    def describe(self) -> str:
        """One line for the log: `not reproduced by memwarm: memory.qmd.update.interval ("10m"): ...`."""
        shown = json.dumps(json_value(self.value), ensure_ascii=False)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        return f"not reproduced by memwarm: {self.path} ({shown}): {self.note}"


def json_value(value: Any) -> Any:
    """A raw config value as JSON carries it (non-finite numbers as their JS text, other types as text)."""
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else js_number_text(value)
    if isinstance(value, Mapping):
        return {str(k): json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(v) for v in value]
    return str(value)


def _settings_in(
    block: Mapping[str, Any], prefix: str, table: Mapping[str, SettingUse]
) -> Iterator[ConfiguredSetting]:
    for key, use in table.items():
        value = lookup(block, *key.split("."))
        if value is not None:
            yield ConfiguredSetting(f"{prefix}.{key}", key, value, use.use, use.note)


def configured_settings(
    qmd_block: Mapping[str, Any],
    qmd_source: str,
    memory_search_blocks: tuple[tuple[Mapping[str, Any], str], ...],
) -> tuple[ConfiguredSetting, ...]:
    """The agent's configured keys: its qmd block (from `qmd_source`, `memory.qmd`), then each
    `memorySearch` block given as (block, dotted path), the agent's own first."""
    found: list[ConfiguredSetting] = []
    if qmd_source != "default":
        found.extend(_settings_in(as_object(qmd_block), qmd_source, QMD_SETTINGS))
    for block, prefix in memory_search_blocks:
        found.extend(_settings_in(as_object(block), prefix, MEMORY_SEARCH_SETTINGS))
    return tuple(found)
