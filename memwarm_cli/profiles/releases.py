"""The behaviour profiles P0-P3 and the OpenClaw releases each one covers (openclaw-versions.md §1).

Inside a profile every measured release gives byte-identical output on every golden case, so memwarm
reproduces a profile, not a release. Each difference is a named feature; the rooms read the feature.
The wording a release prints (guidance lines, reasons) is declared here too, so that a profile is the
whole statement of what differs.

Versions are `YEAR.MONTH.PATCH` and do not form one line: 6.33-6.35 and 7.33-7.35 are extended-stable
backport lines (6.35 was built after 8.2), the main line runs 7.1 -> 8.1 -> ... -> 9.6. Membership is by
line, so a version is mapped by its line, never by plain ordering.
"""

from __future__ import annotations

import re

from memwarm_cli.frozen_records import record, replace
from memwarm_cli.textsafe import clip

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py):
# the Literal aliases are the type checker's only (annotations are strings here).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal

    MemoryEligibility = Literal["none", "artifact-path", "memory-plugin"]
    PolicyDigest = Literal["lines", "with-prose"]
    SessionKeyShape = Literal["split-filtered", "split", "prefix"]
    AgentRoster = Literal["list", "entries-or-list"]
    DefaultAgentRule = Literal["first-marked", "ownership"]
    DefaultWorkspaceRule = Literal["profile-suffix", "state-dir"]
    SetupState = Literal["workspace-files", "state-database"]
    # The release whose `openclaw config validate` verdicts a profile's `config check` schema is held
    # to (tests/configview/release_validate/), and so which release's config checks judge it: the key of
    # configview/release_checks.py's RELEASE_CHECKS (release_checks_2026_6_35.py or
    # release_checks_2026_9_6.py).
    ConfigSchema = Literal["2026.6.35", "2026.9.6"]

NODE_22_19 = ">=22.19.0"
NODE_22_24_25 = ">=22.22.3 <23 || >=24.15.0 <25 || >=25.9.0"
NODE_24_26 = ">=24.16.0 <25 || >=26.1.0"

_P0_FILES = (
    "AGENTS.md",
    "SOUL.md",
    "TOOLS.md",
    "IDENTITY.md",
    "USER.md",
    "HEARTBEAT.md",
    "BOOTSTRAP.md",
    "MEMORY.md",
)
_P2_FILES = ("AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md", "BOOTSTRAP.md", "MEMORY.md")

INTRO_P0 = "The following project context files have been loaded:"
INTRO_P2 = "Loaded project context:"
MEMORY_LINE_P0 = (
    "MEMORY.md: durable user preferences and behavior guidance. Keep following it throughout the session "
    "unless higher-priority instructions override."
)
MEMORY_LINE_P2 = (
    "MEMORY.md: durable non-profile facts and decisions; use when relevant unless higher-priority "
    "instructions override."
)
USER_LINE_P2 = (
    "USER.md: durable user preferences and profile directives; follow unless higher-priority instructions "
    "override."
)

# Config keys the 2026.8.1+ loaders reject (openclaw-versions.md §5, research C.3), as dotted paths
# (`*` for any agent entry); `config check` per profile reads them from here.
RETIRED_KEYS_P2 = (
    "memory.backend",
    "memory.qmd",
    "agents.defaults.memorySearch",
    "agents.list.*.memorySearch",
    "agents.entries.*.memorySearch",
    "memorySearch",
    "memory.search.chunking",
    "memory.search.sync",
    "memory.search.qmd",
    "agents.defaults.bootstrapPromptTruncationWarning",
    "agents.defaults.envelopeTimestamp",
    "agents.defaults.envelopeElapsed",
    "agents.defaults.envelopeTimezone",
    "agents.defaults.timeFormat",
    "agents.defaults.promptOverlays",
    "agents.defaults.cliBackends",
)


@record
class Profile:
    """One behaviour group: what its releases do, feature by feature."""

    name: str  # P0 .. P3
    releases: tuple[str, ...]  # the measured releases of the group
    reference: str  # the release whose own code produced memwarm's golden outputs for the group
    node_range: str  # `engines.node` of the reference release (7.1 and 9.3 differ: release_node_range)
    # -- startup prelude
    surrogate_safe_cuts: bool  # cuts never split a surrogate pair (prelude and bootstrap head/tail)
    refuse_symlinks: bool  # any symlink on a read path inside the workspace makes the file unreadable
    # -- bootstrap Project Context
    bootstrap_files: tuple[str, ...]  # load order
    subagent_files: frozenset[str]
    cron_files: frozenset[str]
    group_chats_drop_memory: bool  # group/channel session keys lose MEMORY.md
    heartbeat_filter: bool  # HEARTBEAT.md is a bootstrap file, filtered by heartbeat guidance
    listed_only_files: frozenset[str]  # files read only when the workspace listing holds the exact name
    unreadable_entries: bool  # a present file that cannot be read is `[UNREADABLE: reason]`, not missing
    user_md_cap: int | None  # fixed cap of USER.md's per-file budget
    truncation_warning_setting: bool  # agents.defaults.bootstrapPromptTruncationWarning is honoured
    memory_eligibility: MemoryEligibility  # which rule drops MEMORY.md/USER.md from automatic context
    policy_digest: PolicyDigest  # AGENTS.md digest: rule lines, or with their preceding prose line
    session_key_shape: SessionKeyShape  # how `agent:<id>:<rest>` is split
    malformed_agent_key_refused: bool  # `agent:` keys that do not parse fail the run
    intro_line: str
    memory_line: str
    user_line: str | None
    heartbeat_prompt_pattern: bool  # the heartbeat prompt sanitiser matches its variants, not one text
    curated_project_entries_filtered: bool  # `<!-- project: ... -->` entries leave MEMORY.md/USER.md
    legacy_state_refused: bool  # a legacy workspace setup-state file fails the run
    setup_state: SetupState  # where "setup completed" (which hides BOOTSTRAP.md) is read from
    # -- config shape
    agent_roster: AgentRoster
    default_agent_rule: DefaultAgentRule
    memory_search_key: tuple[str, ...]  # where the defaults' memory-search block lives
    default_workspace_rule: DefaultWorkspaceRule
    retired_keys: tuple[str, ...]  # config keys the release rejects
    config_schema: ConfigSchema  # the schema `config check` and the commands judge a config by
    refines_past_unknown_keys: bool  # an object's refinements still run after an unknown key (Zod 4.6)
    # -- memory backends
    qmd_available: bool
    session_export: bool

    @property
    def span(self) -> str:
        """`2026.9.4-2026.9.6`: the measured releases, first and last."""
        first, last = self.releases[0], self.releases[-1]
        return first if first == last else f"{first}-{last}"


P0 = Profile(
    name="P0",
    releases=("2026.6.35", "2026.7.1"),
    reference="2026.6.35",
    node_range=NODE_22_19,
    surrogate_safe_cuts=False,
    refuse_symlinks=False,
    bootstrap_files=_P0_FILES,
    subagent_files=frozenset({"AGENTS.md", "TOOLS.md"}),
    cron_files=frozenset({"AGENTS.md", "TOOLS.md", "SOUL.md", "IDENTITY.md", "USER.md"}),
    group_chats_drop_memory=False,
    heartbeat_filter=True,
    listed_only_files=frozenset({"MEMORY.md"}),
    unreadable_entries=False,
    user_md_cap=None,
    truncation_warning_setting=True,
    memory_eligibility="none",
    policy_digest="lines",
    session_key_shape="split-filtered",
    malformed_agent_key_refused=False,
    intro_line=INTRO_P0,
    memory_line=MEMORY_LINE_P0,
    user_line=None,
    heartbeat_prompt_pattern=False,
    curated_project_entries_filtered=False,
    legacy_state_refused=False,
    setup_state="workspace-files",
    agent_roster="list",
    default_agent_rule="first-marked",
    memory_search_key=("agents", "defaults", "memorySearch"),
    default_workspace_rule="profile-suffix",
    retired_keys=(),
    config_schema="2026.6.35",
    refines_past_unknown_keys=False,
    qmd_available=True,
    session_export=True,
)
P1 = replace(
    P0,
    name="P1",
    releases=("2026.7.33", "2026.7.34", "2026.7.35"),
    reference="2026.7.35",
    node_range=NODE_22_24_25,
    surrogate_safe_cuts=True,
    memory_eligibility="artifact-path",
    session_key_shape="split",
)
P2 = replace(
    P1,
    name="P2",
    releases=("2026.8.1", "2026.8.2", "2026.9.1", "2026.9.2", "2026.9.3"),
    reference="2026.8.2",
    node_range=NODE_22_24_25,
    refuse_symlinks=True,
    bootstrap_files=_P2_FILES,
    subagent_files=frozenset({"AGENTS.md"}),
    cron_files=frozenset({"AGENTS.md", "SOUL.md", "IDENTITY.md", "USER.md"}),
    group_chats_drop_memory=True,
    heartbeat_filter=False,
    listed_only_files=frozenset({"MEMORY.md", "USER.md"}),
    unreadable_entries=True,
    user_md_cap=4_000,
    truncation_warning_setting=False,
    memory_eligibility="memory-plugin",
    session_key_shape="prefix",
    malformed_agent_key_refused=True,
    intro_line=INTRO_P2,
    memory_line=MEMORY_LINE_P2,
    user_line=USER_LINE_P2,
    heartbeat_prompt_pattern=True,
    curated_project_entries_filtered=True,
    legacy_state_refused=True,
    setup_state="state-database",
    agent_roster="entries-or-list",
    default_agent_rule="ownership",
    memory_search_key=("memory", "search"),
    default_workspace_rule="state-dir",
    retired_keys=RETIRED_KEYS_P2,
    config_schema="2026.9.6",
    qmd_available=False,
    session_export=False,
)
P3 = replace(
    P2,
    name="P3",
    releases=("2026.9.4", "2026.9.5", "2026.9.6"),
    reference="2026.9.6",
    node_range=NODE_24_26,
    policy_digest="with-prose",
    refines_past_unknown_keys=True,
)
PROFILES = (P0, P1, P2, P3)
REFERENCE = P0  # the release memwarm is pinned to when nothing says otherwise (openclaw@2026.6.35)
NEWEST = P3

# Per release, what differs inside a group: the Node range (`engines.node`) and whether the legacy
# workspace-state error is the named StartupMaintenanceRequiredError (9.3 and later) or a plain Error.
_RELEASE_NODE = {
    "2026.7.1": NODE_22_24_25,
    "2026.9.3": NODE_24_26,
}
MAINTENANCE_ERROR_FROM = (2026, 9, 3)
NEWEST_MEASURED = (2026, 9, 6)

# Compiled by re's cache when a version is first read (a run with none never compiles it).
_VERSION = r"v?(\d{1,5})\.(\d{1,3})\.(\d{1,4})(?:[-+][0-9A-Za-z.+-]*)?"
Version = tuple[int, int, int]


def parse_version(text: str) -> Version | None:
    """`2026.9.6` (a `v` prefix and a `-beta.1`/`+build` suffix allowed) as numbers, else None."""
    match = re.fullmatch(_VERSION, text.strip(), re.ASCII)
    if match is None:
        return None
    year, month, patch = (int(part) for part in match.groups())
    return year, month, patch


def version_text(version: Version) -> str:
    return ".".join(str(part) for part in version)


@record
class ReleaseMatch:
    profile: Profile
    measured: bool  # the release itself was measured (else mapped by its line, with `note`)
    note: str | None  # why an unmeasured release got this profile, for one line on stderr


def _line_profile(version: Version) -> tuple[Profile, str]:
    """The group of an unmeasured release, by its line; and how that was decided."""
    year, month, patch = version
    if (year, month) < (2026, 6):
        return P0, "older than every measured release"
    if (year, month, patch) > NEWEST_MEASURED:
        return NEWEST, "newer than every release memwarm knows"
    if month == 6:
        return P0, "on the 2026.6 extended-stable line"
    if month == 7:
        if patch >= 30:
            return P1, "on the 2026.7.3x extended-stable line"
        return P0, "on the main line after 2026.7.1, before 2026.8.1"
    if month == 8 or (month == 9 and patch <= 3):
        return P2, "on the main line 2026.8.1-2026.9.3"
    return P3, "on the main line from 2026.9.4"


def match_release(text: str) -> ReleaseMatch | None:
    """The profile of a release version, or None when `text` is no version."""
    version = parse_version(text)
    if version is None:
        return None
    exact = version_text(version)
    plain = text.strip().lstrip("v") == exact
    for profile in PROFILES:
        if exact in profile.releases and plain:
            return ReleaseMatch(profile, True, None)
    profile, why = _line_profile(version)
    shown = f"{profile.name} ({profile.span})"
    if version > NEWEST_MEASURED:
        note = f"OpenClaw {clip(text.strip())} is {why}: using the newest profile, {shown}"
    else:
        note = (
            f"OpenClaw {clip(text.strip())} was not measured: using {shown}, the profile of its line ({why})"
        )
    return ReleaseMatch(profile, False, note)


def release_node_range(version: str | None, profile: Profile) -> str:
    """`engines.node` of a measured release, else its profile's."""
    parsed = parse_version(version) if version is not None else None
    if parsed is not None:
        return _RELEASE_NODE.get(version_text(parsed), profile.node_range)
    return profile.node_range


def legacy_state_error_name(version: str | None, profile: Profile) -> str:
    """The class name 2026.8.1+ gives the legacy workspace-state error: a plain Error before 9.3
    (`version` None: the profile's reference release decides)."""
    parsed = parse_version(version if version is not None else profile.reference)
    if parsed is not None and parsed < MAINTENANCE_ERROR_FROM:
        return "Error"
    return "StartupMaintenanceRequiredError"
