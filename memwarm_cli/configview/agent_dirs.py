"""The duplicate-agentDir refusal every release shares (`findDuplicateAgentDirs`): the agents bindings
name and the message; each release's checks (release_checks_2026_6_35.py, release_checks_2026_9_6.py)
resolve the dirs.
"""

from __future__ import annotations

from collections.abc import Mapping

from memwarm_cli.jsstring import js_trim

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def bound_agent_ids(data: Mapping[str, Any]) -> list[str]:
    """Each `bindings[].agentId` that is a string with more than whitespace, as written."""
    bindings = data.get("bindings")
    if not isinstance(bindings, list):
        return []
    found = (binding.get("agentId") if isinstance(binding, dict) else None for binding in bindings)
    return [agent_id for agent_id in found if isinstance(agent_id, str) and js_trim(agent_id)]


def duplicate_agent_dir_message(
    by_dir: Mapping[str, tuple[str, list[str]]], fix: tuple[str, ...]
) -> str | None:
    """`findDuplicateAgentDirs`' message for the agentDirs two or more agents share (each resolved dir:
    the dir as shown and its agents), with the release's fix lines; None when no dir is shared."""
    conflicts = [(shown, users) for shown, users in by_dir.values() if len(users) > 1]
    if not conflicts:
        return None
    lines = [
        "Duplicate agentDir detected (multi-agent config).",
        "Each agent must have a unique agentDir; sharing it causes auth/session state collisions and "
        "token invalidation.",
        "",
        "Conflicts:",
        *(f"- {shown}: {', '.join(chr(34) + u + chr(34) for u in users)}" for shown, users in conflicts),
        "",
        *fix,
    ]
    return "\n".join(lines)
