"""Where the qmd backend no longer exists (openclaw-versions.md §4.1, §4.3): on a release whose profile has
no qmd backend (`Profile.qmd_available` False: 2026.8.1 and later), `init-backends`, `status` and
`search` have nothing to prepare, judge or search. Each agent they would have covered is `retired`, with
one line naming the release, and what its `openclaw doctor --fix` does with the agent's qmd dir.

Decided from the run's Profile alone, before anything of the qmd backend runs: nothing here starts qmd,
takes a lock, or writes or creates anything; an agent's qmd dir is only stat()ed, to say whether there
is one for doctor to delete. The agents are the release's own roster (agents.py with the profile: a
2026.9-shaped `agents.entries` lists its agents).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

from memwarm_cli.agents import Agent, resolve_agents, select_agent
from memwarm_cli.backends.settings.qmd_paths import agent_qmd_paths
from memwarm_cli.config import LoadedConfig
from memwarm_cli.errors import MemwarmError
from memwarm_cli.exitcodes import ExitCode
from memwarm_cli.frozen_records import record
from memwarm_cli.profiles.choice import OpenClawChoice
from memwarm_cli.profiles.releases import PROFILES, Profile
from memwarm_cli.textsafe import clip

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The keys of the qmd backend that `openclaw doctor --fix` removes (§4.3); a release refuses them when
# its profile's retired_keys name them.
QMD_BACKEND_KEYS = ("memory.backend", "memory.qmd")
DOCTOR_FIX = "openclaw doctor --fix"


class QmdRetired(MemwarmError):
    """`search` on a release without the qmd backend: refused with one line (exit 6)."""

    exit_code = ExitCode.RETIRED


@record
class RetiredAgent:
    agent_id: str
    workspace: str
    qmd_dir: Path  # <stateDir>/agents/<id>/qmd: what the release's doctor deletes
    index_path: Path  # where the qmd index was kept, in that dir
    qmd_dir_exists: bool
    index_exists: bool
    reason: str  # the one line: the release, since when, what doctor does here


@record
class RetiredBackends:
    """The agents of one run on a release without the qmd backend, and why."""

    release: str  # `OpenClaw 2026.9.6 (P3)`
    removed_in: str  # the first release without the backend
    session_export: bool  # the release still exports sessions (none measured does)
    refused_keys: tuple[str, ...]  # the config's qmd keys the release refuses
    agents: tuple[RetiredAgent, ...]
    config_path: str
    state_dir: str

    @property
    def exit_code(self) -> ExitCode:
        return ExitCode.RETIRED

    def why_json(self) -> dict[str, Any]:
        """What the `--json` outputs say of the whole run, under `"retired"`."""
        return {
            "release": self.release,
            "removedIn": self.removed_in,
            "qmdBackend": False,
            "sessionExport": self.session_export,
            "refusedConfigKeys": list(self.refused_keys),
        }


def release_label(choice: OpenClawChoice) -> str:
    """`OpenClaw 2026.9.6 (P3)`; the profile's span when only the config's shape chose it."""
    named = clip(choice.version) if choice.version is not None else choice.profile.span
    return f"OpenClaw {named} ({choice.profile.name})"


def removed_in() -> str:
    """The first release of the first profile without the qmd backend (2026.8.1)."""
    return next(profile.releases[0] for profile in PROFILES if not profile.qmd_available)


def _present(cfg: Mapping[str, Any], dotted: str) -> bool:
    node: Any = cfg
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return False
        node = node[part]
    return True


def refused_qmd_keys(cfg: Mapping[str, Any], profile: Profile) -> tuple[str, ...]:
    """The qmd backend's keys the config still has and the profile's release refuses."""
    return tuple(key for key in QMD_BACKEND_KEYS if key in profile.retired_keys and _present(cfg, key))


def _is(path: Path, kind: int | None) -> bool:
    """stat() only: `kind` a directory (S_IFDIR), or anything at all (None)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return False
    return kind is None or stat.S_IFMT(mode) == kind


def _reason(release: str, since: str, export: bool, qmd_dir: Path, there: str, refused: Sequence[str]) -> str:
    gone = f"it was removed in {since}" + ("" if export else ", and with it the session export")
    line = f"{release} has no qmd backend: {gone}; `{DOCTOR_FIX}` deletes {qmd_dir}/{there}"
    if refused:
        them = "them" if len(refused) > 1 else "it"
        line += f"; it refuses this config while it has {', '.join(refused)} (`{DOCTOR_FIX}` removes {them})"
    return line


def _retired_agent(
    loaded: LoadedConfig, agent: Agent, release: str, since: str, export: bool, refused: Sequence[str]
) -> RetiredAgent:
    paths = agent_qmd_paths(loaded.state_dir, agent.id)
    dir_exists = _is(paths.qmd_dir, stat.S_IFDIR)
    index_exists = _is(paths.index_path, None)
    there = ""
    if index_exists:
        there = " (an index is there and will be deleted)"
    elif dir_exists:
        there = " (the directory is there and will be deleted)"
    return RetiredAgent(
        agent_id=agent.id,
        workspace=agent.workspace,
        qmd_dir=paths.qmd_dir,
        index_path=paths.index_path,
        qmd_dir_exists=dir_exists,
        index_exists=index_exists,
        reason=_reason(release, since, export, paths.qmd_dir, there, refused),
    )


def retired_backends(
    loaded: LoadedConfig, choice: OpenClawChoice, requested: Sequence[str] = ()
) -> RetiredBackends | None:
    """Every selected agent, retired, when the run's release has no qmd backend; None when it has one.
    Raises UnknownAgentError for a requested id the release's roster does not hold."""
    profile = choice.profile
    if profile.qmd_available:
        return None
    everyone = resolve_agents(loaded.data, loaded.env, profile=profile)
    if requested:
        wanted = {select_agent(loaded.data, loaded.env, raw, profile=profile).id for raw in requested}
        everyone = [agent for agent in everyone if agent.id in wanted]
    release, since = release_label(choice), removed_in()
    refused = refused_qmd_keys(loaded.data, profile)
    export = profile.session_export
    return RetiredBackends(
        release=release,
        removed_in=since,
        session_export=export,
        refused_keys=refused,
        agents=tuple(_retired_agent(loaded, a, release, since, export, refused) for a in everyone),
        config_path=loaded.source.path,
        state_dir=loaded.state_dir,
    )


def refuse_retired_search(loaded: LoadedConfig, choice: OpenClawChoice, requested: str | None) -> None:
    """`search` on a release without the qmd backend: QmdRetired (exit 6) naming the agent searched
    (the default one when none is requested; UnknownAgentError, NoDefaultAgentError as for a search)."""
    profile = choice.profile
    if profile.qmd_available:
        return
    chosen = select_agent(loaded.data, loaded.env, requested, profile=profile)
    refused = refused_qmd_keys(loaded.data, profile)
    agent = _retired_agent(
        loaded, chosen, release_label(choice), removed_in(), profile.session_export, refused
    )
    raise QmdRetired(f'no qmd memory search for agent "{agent.agent_id}": {agent.reason}')
