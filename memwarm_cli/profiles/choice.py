"""Which OpenClaw release a run describes, decided once: flag, environment, installed package, config.

In order (the first that answers wins):
1. `--openclaw VERSION` (the flag);
2. `MEMWARM_OPENCLAW` in the environment;
3. the `openclaw` package the invocation's PATH runs, read from its files (installed.py);
4. the config's shape: keys only 2026.8.1+ write (`agents.entries`, `memory.search`, `agents.ownership`,
   `agents.defaults.systemAgent`) give the newest profile, P3; keys of the 6.35 shape (`agents.list`,
   `memory.backend`, `memory.qmd`, `memorySearch`) give P0, the reference, since P0 and P1 accept the
   same shape and only P0 is checked against the release's official cases; with neither, the config's
   `meta.lastTouchedVersion` stamp (the last release that wrote the file);
5. the reference profile, P0 (openclaw@2026.6.35).

A flag or variable that is no version is a usage error; an unmeasured version maps to its line's profile
with a note (releases.match_release), printed once by the CLI.
"""

from __future__ import annotations

from collections.abc import Mapping

from memwarm_cli.errors import UsageError
from memwarm_cli.frozen_records import record
from memwarm_cli.profiles.installed import find_installed
from memwarm_cli.profiles.releases import NEWEST, REFERENCE, Profile, match_release
from memwarm_cli.textsafe import clip

ENV_VAR = "MEMWARM_OPENCLAW"
FLAG = "--openclaw"
# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Literal

    Source = Literal["flag", "env", "installed", "config-shape", "config-stamp", "default"]


@record
class OpenClawChoice:
    profile: Profile
    version: str | None  # the release named or found; None when only the config's shape decided
    source: Source
    path: str | None  # the installed package's directory (source "installed")
    detail: str  # how it was chosen, for `config show` and `status`
    measured: bool  # the version is a measured release (False: mapped by its line, or no version)
    note: str | None = None  # an unmeasured or unreadable release, for one line on stderr
    executable: str | None = None  # the `openclaw` the PATH runs (source "installed")

    def to_json(self) -> dict[str, Any]:
        """The `"openclaw"` object every `--json` output carries."""
        return {
            "version": self.version,
            "profile": self.profile.name,
            "releases": self.profile.span,
            "source": self.source,
            "path": self.path,
            "measured": self.measured,
        }

    @property
    def origin(self) -> str | None:
        """Where the release came from and how to name another, for a refusal of the config (None when
        --openclaw named it): a release nobody named (the openclaw on PATH, the config's shape) must say
        so, or the refusal reads as memwarm's own."""
        other = f"{FLAG} VERSION or {ENV_VAR} names another"
        if self.source == "flag":
            return None
        if self.source == "env":
            return f"{ENV_VAR} names that release; {FLAG} VERSION names another"
        if self.source == "installed":
            where = self.executable or self.path
            return f"the openclaw on PATH ({where}, package {self.path}) is that release; {other}"
        return f"chosen by {self.detail}; {other}"

    @property
    def summary(self) -> str:
        """One line: `OpenClaw 2026.9.6, profile P3 (2026.9.4-2026.9.6), from --openclaw`."""
        named = f"OpenClaw {clip(self.version)}, profile" if self.version is not None else "OpenClaw profile"
        return f"{named} {self.profile.name} ({self.profile.span}), {self.detail}"


def _named(text: str, source: Source, detail: str, origin: str) -> OpenClawChoice:
    match = match_release(text)
    if match is None:
        raise UsageError(f"{origin}: {clip(text)!r} is not an OpenClaw version (like 2026.9.6)")
    return OpenClawChoice(match.profile, text.strip(), source, None, detail, match.measured, match.note)


def _installed(env: Mapping[str, str]) -> OpenClawChoice | None:
    found = find_installed(env)
    if found is None:
        return None
    detail = f"installed at {found.package_dir}"
    match = match_release(found.version) if found.version is not None else None
    if match is None:
        shown = "no version" if found.version is None else f"version {clip(found.version)!r}"
        note = f"the openclaw package at {found.package_dir} has {shown}: its files do not say its release"
        return OpenClawChoice(
            REFERENCE, found.version, "installed", found.package_dir, detail, False, note, found.executable
        )
    return OpenClawChoice(
        match.profile,
        found.version,
        "installed",
        found.package_dir,
        detail,
        match.measured,
        match.note,
        found.executable,
    )


def _object(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


NEW_SHAPE_KEYS = ("agents.entries", "memory.search", "agents.ownership", "agents.defaults.systemAgent")
OLD_SHAPE_KEYS = (
    "agents.list",
    "memory.backend",
    "memory.qmd",
    "agents.defaults.memorySearch",
    "memorySearch",
)


def shape_signs(cfg: Mapping[str, Any] | None) -> tuple[list[str], list[str]]:
    """The config's keys that only 2026.8.1+ write, and those of the 6.35 shape, in that order."""
    root = _object(cfg)
    agents, memory = _object(root.get("agents")), _object(root.get("memory"))
    defaults = _object(agents.get("defaults"))
    present = {
        "agents.entries": "entries" in agents,
        "memory.search": "search" in memory,
        "agents.ownership": "ownership" in agents,
        "agents.defaults.systemAgent": "systemAgent" in defaults,
        "agents.list": "list" in agents,
        "memory.backend": "backend" in memory,
        "memory.qmd": "qmd" in memory,
        "agents.defaults.memorySearch": "memorySearch" in defaults,
        "memorySearch": "memorySearch" in root,
    }
    return [k for k in NEW_SHAPE_KEYS if present[k]], [k for k in OLD_SHAPE_KEYS if present[k]]


def _from_config(cfg: Mapping[str, Any] | None) -> OpenClawChoice:
    new, old = shape_signs(cfg)
    if new:
        detail = f"config shape ({new[0]}, written by 2026.8.1 or later)"
        return OpenClawChoice(NEWEST, None, "config-shape", None, detail, False)
    if old:
        detail = f"config shape ({old[0]}, the 2026.6.35 shape)"
        return OpenClawChoice(REFERENCE, None, "config-shape", None, detail, False)
    stamp = _object(_object(cfg).get("meta")).get("lastTouchedVersion")
    match = match_release(stamp) if isinstance(stamp, str) else None
    if match is not None and isinstance(stamp, str):
        detail = f"config stamp meta.lastTouchedVersion {clip(stamp.strip())}"
        return OpenClawChoice(
            match.profile, stamp.strip(), "config-stamp", None, detail, match.measured, match.note
        )
    detail = "default (no --openclaw, MEMWARM_OPENCLAW, installed openclaw or config shape)"
    return OpenClawChoice(REFERENCE, None, "default", None, detail, False)


def resolve_openclaw(
    flag: str | None, env: Mapping[str, str], cfg: Mapping[str, Any] | None
) -> OpenClawChoice:
    """The run's release: see the module docstring for the order. UsageError for a flag or variable
    that is no version."""
    if flag is not None:
        return _named(flag, "flag", f"from {FLAG}", FLAG)
    named = env.get(ENV_VAR)
    if named is not None and named.strip():
        return _named(named, "env", f"from {ENV_VAR}", ENV_VAR)
    return _installed(env) or _from_config(cfg)
