"""Whether the selected OpenClaw release would refuse a config, and the refusal that the commands acting
on a config (`init-backends`, `status`, `search`) share.

`release_errors` gives the findings of the release whose schema the run's profile names
(`Profile.config_schema`), through one table (RELEASE_CHECKS): release_checks_2026_6_35.py reproduces
2026.6.35's steps, release_checks_2026_9_6.py 2026.9.6's; `refuse_rejected_config` turns the first
into the one-line config error (exit 3) a command stops with: a config the selected release would
refuse never leads to a silent success, because the gateway would not run on it at all.
`duplicate_defaults` finds a config the release accepts but whose memory search fails (a custom
collection equal to a default one).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from memwarm_cli.backends.settings.memory_search import extra_collection_sources, extra_path_sources
from memwarm_cli.backends.settings.qmd_collections import (
    duplicates_of_defaults,
    resolve_collection_path,
    resolve_collections,
)
from memwarm_cli.config import load_config
from memwarm_cli.config.lookup import lookup
from memwarm_cli.config.positions import PNode
from memwarm_cli.configview.schema_types import Issue
from memwarm_cli.errors import ConfigError
from memwarm_cli.jsstring import js_trim
from memwarm_cli.profiles.releases import Profile
from memwarm_cli.textsafe import clip

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Protocol

    from memwarm_cli.agents import Agent
    from memwarm_cli.config.loader import LoadedConfig
    from memwarm_cli.profiles.releases import ConfigSchema  # a type checker's alias only

    class ReleaseErrors(Protocol):
        def __call__(
            self,
            data: Any,
            positions: PNode | None,
            env: Mapping[str, str],
            state_dir: str,
            profile: Profile,
        ) -> list[Issue]: ...


def release_name(*, profile: Profile, version: str | None) -> str:
    """`OpenClaw 2026.9.6`: the release a refusal is said of (the run's version, else the profile's
    reference release)."""
    return f"OpenClaw {clip(version.strip()) if version else profile.reference}"


class ConfigRejectedError(ConfigError):
    """The selected release refuses this config: the command does not act on it (exit 3)."""


def duplicate_defaults(
    loaded: LoadedConfig, agent: Agent, qmd_block: Mapping[str, Any], found: dict[str, tuple[str, list[str]]]
) -> None:
    """A custom collection with the path and pattern of a default one (qmd holds one per path and
    pattern: 6.35 swaps them at every open and its search fails). Valid for the release's schema, so a
    warning; init-backends refuses it. The collections are resolved (with their stats) only for an
    agent one of whose entries names the workspace, its memory/ or its MEMORY.md."""
    if qmd_block.get("includeDefaultMemory") is False:
        return
    env, workspace = loaded.env, Path(agent.workspace)  # the collections' paths are Path
    paths = qmd_block.get("paths")
    raw = [e.get("path") for e in paths if isinstance(e, Mapping)] if isinstance(paths, list) else []
    searched = (
        lookup(loaded.data, "agents", "defaults", "memorySearch"),
        lookup(agent.entry, "memorySearch"),
    )
    if any(isinstance(block, Mapping) for block in searched):
        extra = extra_path_sources(loaded.data, agent.entry)
        collections = extra_collection_sources(loaded.data, agent.entry)
        raw += [path for path, _ in extra] + [item.get("path") for item, _ in collections]
    else:
        extra, collections = [], []
    if not any(_may_be_default(r, workspace, env) for r in raw):
        return
    specs, _ = resolve_collections(qmd_block, agent.id, workspace, extra, collections, env)
    for custom, default in duplicates_of_defaults(specs):
        message = (
            f"the collection {custom.name} has the path and pattern of {default.name} (agent "
            f'"{agent.id}": {custom.path}, {custom.pattern}): qmd holds one collection per path and pattern, '
            "so OpenClaw 2026.6.35 swaps the two at every open and its memory search fails (init-backends "
            "refuses it); remove the entry, the default collection indexes these notes already"
        )
        found.setdefault(custom.source, (message, []))[1].append(agent.id)


_DEFAULT_NAMES = (".", "memory", "MEMORY.md")


def _may_be_default(raw: Any, workspace: Path, env: Mapping[str, str]) -> bool:
    """Whether an entry's path resolves to the workspace, its memory/ or its MEMORY.md (a relative path
    without `..` is told by its own text, with no path built: 10,000 agents ask this)."""
    if not isinstance(raw, str):
        return False
    text = js_trim(raw)
    if text and not text.startswith("~") and not os.path.isabs(text):
        normal = os.path.normpath(text)
        if ".." not in normal.split(os.sep):
            return normal in _DEFAULT_NAMES
    resolved = resolve_collection_path(raw, workspace, env)
    return resolved is not None and str(resolved) in {
        str(workspace),
        os.path.join(workspace, "memory"),
        os.path.join(workspace, "MEMORY.md"),
    }


# Each release's checks are imported when a config is judged by them: a run loads its release's schema,
# not every release's.
def _checks_2026_6_35() -> ReleaseErrors:
    # ~0.2 ms by -X importtime, which a run judged by 2026.9.6 does not pay
    from memwarm_cli.configview.release_checks_2026_6_35 import release_errors

    return release_errors


def _checks_2026_9_6() -> ReleaseErrors:
    # with its schema ~0.7 ms by -X importtime, off status on 2026.6.35 (test_imports)
    from memwarm_cli.configview.release_checks_2026_9_6 import release_errors

    return release_errors


# The one table of per-release config checks, keyed by the profile's `config_schema`: the release each
# module reproduces.
RELEASE_CHECKS: dict[ConfigSchema, Callable[[], ReleaseErrors]] = {
    "2026.6.35": _checks_2026_6_35,
    "2026.9.6": _checks_2026_9_6,
}


def release_errors(
    data: Any,
    positions: PNode | None,
    env: Mapping[str, str],
    state_dir: str,
    *,
    profile: Profile,
) -> list[Issue]:
    """Every finding of the schema of `profile` (its `config_schema`) and of the release's steps after
    it, in the release's order."""
    return RELEASE_CHECKS[profile.config_schema]()(data, positions, env, state_dir, profile)


def refuse_rejected_config(
    loaded: Any, *, profile: Profile, version: str | None, origin: str | None = None
) -> None:
    """Raise ConfigRejectedError (exit 3, one line) when the release would refuse `loaded`'s config; the
    first error is named where it stands, with how many there are. Cheap on a valid config: the schema
    walk without positions (the file is read again with them only to place an error).

    `profile` is the run's release profile (memwarm_cli/profiles): its `config_schema` judges;
    `version` the run's release (None: the profile's reference), which the message names; `origin`
    where that release came from and how to name another (OpenClawChoice.origin), said with it."""
    release = release_name(profile=profile, version=version)
    said = f"{release} refuses this config" + (f"; {origin}" if origin else "")
    source = loaded.source
    if not source.exists:
        return
    data, positions = loaded.data, loaded.positions
    if not data:  # `{}`, or a top level that is no object (the loader reads those as `{}`)
        tracked = load_config(source.path, loaded.env, dotenv=False, track=True)
        if tracked.positions is None:
            raise ConfigRejectedError(source.path, f"the top-level value is not an object: {said}", 1, 1)
        return
    found = release_errors(data, positions, loaded.env, loaded.state_dir, profile=profile)
    errors = [i for i in found if i.severity == "error"]
    if not errors:
        return
    if positions is None:
        tracked = load_config(source.path, loaded.env, dotenv=False, track=True)
        found = release_errors(
            tracked.data, tracked.positions, tracked.env, tracked.state_dir, profile=profile
        )
        errors = [i for i in found if i.severity == "error"] or errors
    first = errors[0]
    loc = first.node.loc if first.node is not None else None
    more = f"; {len(errors) - 1} more" if len(errors) > 1 else ""
    message = (
        f"{first.path or '(top level)'}: {first.message.splitlines()[0]} "
        f"({said}{more}; `memwarm config check` lists every error)"
    )
    raise ConfigRejectedError(
        loc.file if loc else source.path, message, loc.line if loc else None, loc.column if loc else None
    )
