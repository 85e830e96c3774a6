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
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from typing import Any, Literal

from memwarm_cli.config.lookup import as_object, lookup
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_number_text

Use = Literal["memwarm", "gateway", "search", "builtin"]

USE_LABELS: dict[Use, str] = {
    "memwarm": "used by memwarm",
    "gateway": "used by the gateway only",
    "search": "used at search time only",
    "builtin": "used by the builtin backend only",
}


@record
class SettingUse:
    use: Use
    note: str = ""


_ONE_SHOT = "memwarm runs once per call (run it from cron for a similar effect)"
_BUILTIN = "the builtin backend's setting; memwarm prepares the qmd index only"
_SESSIONS_WITH_QMD = "with qmd, transcripts come from memory.qmd.sessions"

QMD_SETTINGS: dict[str, SettingUse] = {
    "command": SettingUse("memwarm", "its first token is run, as upstream does"),
    "searchMode": SettingUse("memwarm", "decides qmd embed and the --probe search"),
    "includeDefaultMemory": SettingUse("memwarm"),
    "paths": SettingUse("memwarm"),
    "sessions.enabled": SettingUse("memwarm", "transcripts are exported before qmd update"),
    "sessions.exportDir": SettingUse("memwarm"),
    "sessions.retentionDays": SettingUse("memwarm", "measured from --at (default now)"),
    "update.interval": SettingUse("gateway", f"the gateway updates the index every interval; {_ONE_SHOT}"),
    "update.debounceMs": SettingUse("gateway", "the gateway skips updates closer together than this"),
    "update.onBoot": SettingUse(
        "memwarm",
        "when false the gateway does not update the index at boot, so memwarm is the only boot-time "
        "warmer; it still updates (gatewayUpdatesOnBoot: false)",
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
    "update.startup": SettingUse(
        "gateway", "later gateways defer their boot update; memwarm runs when called"
    ),
    "update.startupDelayMs": SettingUse("gateway", "later gateways delay their boot update by this much"),
    "limits.maxResults": SettingUse("search", "the --probe search asks for this many results"),
    "limits.maxSnippetChars": SettingUse("search"),
    "limits.maxInjectedChars": SettingUse("search"),
    "limits.timeoutMs": SettingUse("search", "a search's timeout; the --probe search has its own"),
    "scope": SettingUse("search", "which chats may search memory"),
    "mcporter.enabled": SettingUse(
        "gateway", "the gateway searches through an MCP daemon; memwarm runs qmd directly, starts no daemon"
    ),
    "mcporter.serverName": SettingUse("gateway", "the MCP server the gateway's searches go to"),
    "mcporter.startDaemon": SettingUse("gateway", "the gateway starts the MCP daemon; memwarm does not"),
}

MEMORY_SEARCH_SETTINGS: dict[str, SettingUse] = {
    "enabled": SettingUse("memwarm", "false: the agent is skipped"),
    "backend": SettingUse("memwarm", "memwarm's spelling of memory.backend"),
    "qmd": SettingUse("memwarm", "memwarm's spelling of memory.qmd: the same keys, the same uses"),
    "extraPaths": SettingUse("memwarm", "each path is one more qmd collection"),
    "sources": SettingUse("builtin", "with qmd, transcripts come from memory.qmd.sessions"),
    "experimental.sessionMemory": SettingUse(
        "builtin", "with qmd, transcripts come from memory.qmd.sessions"
    ),
    "provider": SettingUse("builtin", _BUILTIN),
    "fallback": SettingUse("builtin", _BUILTIN),
    "model": SettingUse("builtin", _BUILTIN),
    **{
        key: SettingUse("builtin", _BUILTIN)
        for key in (
            "remote.baseUrl",
            "remote.apiKey",
            "remote.headers",
            "remote.batch.enabled",
            "remote.batch.wait",
            "remote.batch.concurrency",
            "remote.batch.pollIntervalMs",
            "remote.batch.timeoutMinutes",
            "local.modelPath",
            "local.modelCacheDir",
            "store.driver",
            "store.path",
            "store.vector.enabled",
            "store.vector.extensionPath",
            "chunking.tokens",
            "chunking.overlap",
            "sync.onSessionStart",
            "sync.onSearch",
            "sync.watch",
            "sync.watchDebounceMs",
            "sync.intervalMinutes",
            "sync.sessions.deltaBytes",
            "sync.sessions.deltaMessages",
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
    "query.maxResults": SettingUse("search"),
    "query.minScore": SettingUse("search"),
}


def setting_use_table() -> dict[str, str]:
    """Every key, dotted from the config's root, with its use in words (for `config show`)."""
    table = {f"memory.qmd.{key}": USE_LABELS[use.use] for key, use in QMD_SETTINGS.items()}
    for key, use in MEMORY_SEARCH_SETTINGS.items():
        table[f"agents.*.memorySearch.{key}"] = USE_LABELS[use.use]
    return table


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
    """The agent's configured keys: its qmd block (from `qmd_source`, e.g. `memory.qmd`), then each
    `memorySearch` block given as (block, dotted path), the agent's own first. A `memorySearch.qmd`
    block is reported through `qmd_source` when it is the one that applies, never twice."""
    found: list[ConfiguredSetting] = []
    if qmd_source != "default":
        found.extend(_settings_in(as_object(qmd_block), qmd_source, QMD_SETTINGS))
    search_keys = {k: v for k, v in MEMORY_SEARCH_SETTINGS.items() if k != "qmd"}
    for block, prefix in memory_search_blocks:
        found.extend(_settings_in(as_object(block), prefix, search_keys))
    return tuple(found)
