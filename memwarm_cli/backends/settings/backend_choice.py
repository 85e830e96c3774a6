"""Which memory backend an agent uses and which config key decided it: `memory.backend` / `memory.qmd`,
or memwarm's `memorySearch.backend` / `memorySearch.qmd` spelling (memory-backends.md intro, §4).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from memwarm_cli.config.lookup import as_object, lookup
from memwarm_cli.frozen_records import record

Backend = Literal["builtin", "qmd"]

UPSTREAM_SPELLING_WARNING = (
    "{path} is accepted here, but upstream OpenClaw's strict config schema rejects it; "
    "upstream reads {upstream}"
)


@record
class BackendChoice:
    """Which backend an agent uses and which config keys decided it.

    `backend_source` / `qmd_source` are dotted config paths such as `memory.backend`,
    `agents.defaults.memorySearch.backend` or `agents.list[1].memorySearch.qmd` (a list entry is named
    by its index in `agents.list`), or "default" when nothing was configured. Precedence: the agent's
    `memorySearch.*`, then `agents.defaults.memorySearch.*`, then `memory.*` (each found independently
    for `backend` and for the `qmd` block).
    """

    backend: Backend
    configured: Any  # the raw configured value (None when defaulted), e.g. "qmd", "builtin", "lancedb"
    backend_source: str
    qmd_block: Mapping[str, Any]  # the qmd settings object that applies ({} when none is configured)
    qmd_source: str
    citations: str
    warnings: tuple[str, ...]  # e.g. the upstream-schema warning for the memorySearch.* spelling

    @property
    def uses_upstream_spelling(self) -> bool:
        """True when both settings come from `memory.*` (or defaults), as upstream OpenClaw reads them."""
        return not any("memorySearch" in s for s in (self.backend_source, self.qmd_source))


def agent_label(cfg: Mapping[str, Any], entry: Mapping[str, Any] | None) -> str:
    """`agents.list[<index>]`, the position of `entry` (that very object) in `cfg`'s `agents.list`.

    The index, not the id: an id may contain `]` or `.`, which would break the dotted path.
    """
    raw_list = lookup(cfg, "agents", "list")
    if entry is not None and isinstance(raw_list, list):
        index = _list_positions(raw_list).get(id(entry))
        if index is not None:
            return f"agents.list[{index}]"
    return "agents.list[]"


# The last `agents.list` seen and where each of its entries stands: the label is asked for every agent,
# and a scan of the list each time made 10,000 agents quadratic. The list is held, so its id stays valid.
_positions_memo: list[tuple[list[Any], int, dict[int, int]]] = []


def _list_positions(raw_list: list[Any]) -> dict[int, int]:
    """id(entry) -> first index of that very object in `raw_list`."""
    if _positions_memo:
        cached, length, positions = _positions_memo[0]
        if cached is raw_list and length == len(raw_list):
            return positions
    positions = {}
    for index, item in enumerate(raw_list):
        positions.setdefault(id(item), index)
    _positions_memo[:] = [(raw_list, len(raw_list), positions)]
    return positions


def resolve_backend_choice(cfg: Mapping[str, Any], entry: Mapping[str, Any] | None) -> BackendChoice:
    """The backend for one agent (`entry` is its agents.list object, or None) and where it came from."""
    agent_ms = as_object(lookup(entry, "memorySearch")) if entry is not None else {}
    defaults_ms = as_object(lookup(cfg, "agents", "defaults", "memorySearch"))
    memory = as_object(lookup(cfg, "memory"))
    label = agent_label(cfg, entry)

    candidates = (
        (agent_ms, f"{label}.memorySearch"),
        (defaults_ms, "agents.defaults.memorySearch"),
        (memory, "memory"),
    )
    configured: Any = None
    backend_source = "default"
    for block, prefix in candidates:
        if block.get("backend") is not None:
            configured = block.get("backend")
            backend_source = f"{prefix}.backend"
            break
    qmd_block: Mapping[str, Any] = {}
    qmd_source = "default"
    for block, prefix in candidates:
        if block.get("qmd") is not None:
            qmd_block = as_object(block.get("qmd"))
            qmd_source = f"{prefix}.qmd"
            break

    warnings: list[str] = []
    for source, upstream in ((backend_source, "memory.backend"), (qmd_source, "memory.qmd")):
        if "memorySearch" in source:
            warnings.append(UPSTREAM_SPELLING_WARNING.format(path=source, upstream=upstream))

    citations_raw = memory.get("citations")
    citations = citations_raw if citations_raw in ("auto", "on", "off") else "auto"
    backend: Backend = "qmd" if configured == "qmd" else "builtin"
    return BackendChoice(
        backend=backend,
        configured=configured,
        backend_source=backend_source,
        qmd_block=qmd_block,
        qmd_source=qmd_source,
        citations=citations,
        warnings=tuple(warnings),
    )
