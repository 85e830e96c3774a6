"""Which memory backend the agents use and which config key decided it: `memory.backend` and the qmd
block `memory.qmd`, global, as OpenClaw 2026.6.35's `resolveMemoryBackendConfig` reads them (research
backend-635.md §0).

There is no per-agent backend and no per-agent qmd block. memwarm once also read
`agents.*.memorySearch.backend` and a qmd block in `agents.*.memorySearch.qmd`; the release refuses a
config holding either (`config check` reports them as errors, and the commands that act on a config
stop), and in 6.35 `memorySearch.qmd` holds only `extraCollections` (qmd_collections.py), so neither is
read here any more.
"""

from __future__ import annotations

from collections.abc import Mapping

from memwarm_cli.config.lookup import as_object, lookup
from memwarm_cli.frozen_records import record

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    Backend = Literal["builtin", "qmd"]


@record
class BackendChoice:
    """Which backend the agents use and which config keys decided it.

    `backend_source` is `memory.backend`, or "default" when it is not set; `qmd_source` is `memory.qmd`
    (or "default"). The same for every agent.
    """

    backend: Backend
    configured: Any  # the raw configured value (None when defaulted), e.g. "qmd", "builtin", "lancedb"
    backend_source: str
    qmd_block: Mapping[str, Any]  # memory.qmd ({} when none is configured)
    qmd_source: str
    citations: str
    warnings: tuple[str, ...] = ()  # none since memorySearch.* is no longer read; kept for the reports

    @property
    def uses_upstream_spelling(self) -> bool:
        """Always true: memory.* is the only spelling read (kept for `config show`'s field)."""
        return True


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


def resolve_backend_choice(cfg: Mapping[str, Any]) -> BackendChoice:
    """`memory.backend` ("qmd" gives qmd, anything else builtin), `memory.qmd`, `memory.citations`."""
    memory = as_object(lookup(cfg, "memory"))
    configured = memory.get("backend")
    qmd_raw = memory.get("qmd")
    citations_raw = memory.get("citations")
    return BackendChoice(
        backend="qmd" if configured == "qmd" else "builtin",
        configured=configured,
        backend_source="default" if configured is None else "memory.backend",
        qmd_block=as_object(qmd_raw),
        qmd_source="default" if qmd_raw is None else "memory.qmd",
        citations=citations_raw if citations_raw in ("auto", "on", "off") else "auto",
    )
