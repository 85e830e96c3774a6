"""`config check`: every finding about a config, each with the file, line and column where it stands.

Errors are what makes the selected OpenClaw release refuse the config (release_checks_2026_6_35.py:
parse and include errors, a top level that is no object, the schema's wrong types, out-of-range values
and unknown keys, the root refinement, a shared agentDir; release_checks_2026_9_6.py for 2026.8.1+,
with its retired keys and what `openclaw doctor --fix` does about them). The profile's `config_schema`
says which. Warnings are valid but surprising settings. Nothing raises: a
config that cannot be read or parsed is one error finding too, and the report says the check could
not judge it (`unreadable`, exit 3).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from memwarm_cli.agents import missing_workspace_message, normalize_agent_id, resolve_agents
from memwarm_cli.backends.init.session_export_check import session_export_findings
from memwarm_cli.backends.qmd.qmd_diagnosis import qmd_problem, resolve_executable, unavailable_hint
from memwarm_cli.backends.settings.backend_choice import resolve_backend_choice
from memwarm_cli.backends.settings.memory_search import memory_search_enabled
from memwarm_cli.backends.settings.qmd_settings import configured_command, dropped_words, split_command
from memwarm_cli.cancel import CancelToken
from memwarm_cli.config.formats import ParseError
from memwarm_cli.config.includes import IncludeError
from memwarm_cli.config.loader import LoadedConfig, TopLevelArrayError, load_config
from memwarm_cli.config.paths import ConfigSource, is_directory, resolve_config_source, stat_problem
from memwarm_cli.config.positions import Loc, PNode
from memwarm_cli.configview.credentials import mask_text
from memwarm_cli.configview.release_checks import duplicate_defaults, release_errors, release_name
from memwarm_cli.errors import ConfigError
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_trim, js_truthy
from memwarm_cli.os_paths import join_path
from memwarm_cli.profiles.choice import OpenClawChoice
from memwarm_cli.profiles.releases import Profile, release_node_range
from memwarm_cli.startup.prelude_settings import (
    host_timezone_name,
    resolve_startup_settings,
    unknown_zone_warning,
)
from memwarm_cli.textsafe import escape_text

Severity = Literal["error", "warning"]
# `backends.qmd.qmd_diagnosis.resolve_executable(command, env, cwd)`: the path exec would run, or None.
FindExecutable = Callable[[str, Mapping[str, str], Path], str | None]
ChooseRelease = Callable[[Mapping[str, Any] | None], OpenClawChoice]


@record
class Finding:
    file: str
    line: int
    column: int
    severity: Severity
    path: str  # dotted path, `[i]` for array items; "" for the document itself
    message: str

    def format(self) -> str:
        """One line: the file, keys and message (which quotes the config) escaped by textsafe's policy."""
        path = escape_text(self.path) if self.path else "(top level)"
        where = f"{escape_text(self.file)}:{self.line}:{self.column}"
        return f"{where}: {self.severity}: {path}: {escape_text(self.message)}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "severity": self.severity,
            "path": self.path,
            "message": self.message,
        }


@dataclass
class CheckReport:
    source: ConfigSource
    openclaw: OpenClawChoice  # the release the config was judged for
    findings: list[Finding] = field(default_factory=list)
    unreadable: bool = False  # the file could not be read or parsed: one error finding says why (exit 3)
    error_line: str | None = None  # that error as one line, `<file>[:<line>:<col>]: <message>`

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == "warning")

    def failed(self, strict: bool = False) -> bool:
        return self.errors > 0 or (strict and self.warnings > 0)


class _Collector:
    def __init__(self, main_file: str) -> None:
        self.main_file = main_file
        self.findings: list[Finding] = []

    def add(self, severity: Severity, path: str, message: str, loc: Loc | None) -> None:
        if loc is None:
            loc = Loc(self.main_file, 1, 1)
        self.findings.append(Finding(loc.file, loc.line, loc.column, severity, path, message))

    def sorted(self) -> list[Finding]:
        return sorted(
            self.findings, key=lambda f: (f.file != self.main_file, f.file, f.line, f.column, f.path)
        )


def _loc_at(root: PNode | None, *keys: str | int) -> Loc | None:
    """The position of the deepest existing node along `keys`."""
    node = root
    best = root.loc if root is not None else None
    for key in keys:
        if node is None:
            break
        node = node.child(key)
        if node is not None:
            best = node.loc
    return best


def _include_findings(errors: list[IncludeError], out: _Collector) -> None:
    seen: set[tuple[str, str, Loc | None]] = set()
    for exc in errors:
        # A file included n times fails n times at the same place: one finding says it.
        key = (exc.path, exc.message, exc.loc)
        if key in seen:
            continue
        seen.add(key)
        out.add("error", exc.path, exc.message, exc.loc)
        cause = exc.cause
        if isinstance(cause, ParseError):
            out.add("error", exc.path, cause.message, Loc(exc.resolved, cause.line, cause.column))


@dataclass
class _Scope:
    """What the agent-level checks share: the loaded config, its positions and the object list entries."""

    loaded: LoadedConfig
    entries: list[tuple[int, dict[str, Any]]]  # (index in agents.list, entry) for object entries
    profile: Profile
    release_node: tuple[str, str] | None = None  # the selected release and the Node it needs

    @property
    def data(self) -> dict[str, Any]:
        return self.loaded.data

    @property
    def pos(self) -> PNode | None:
        return self.loaded.positions


def _scope(loaded: LoadedConfig, profile: Profile, version: str | None) -> _Scope:
    agents_cfg = loaded.data.get("agents")
    raw = agents_cfg.get("list") if isinstance(agents_cfg, dict) else None
    entries = [(i, e) for i, e in enumerate(raw if isinstance(raw, list) else []) if isinstance(e, dict)]
    release_node = (release_name(profile=profile, version=version), release_node_range(version, profile))
    return _Scope(loaded, entries, profile, release_node)


def _id_findings(scope: _Scope, out: _Collector) -> None:
    """Ids that normalise to something else or to an id already used; more than one default."""
    pos = scope.pos
    first_by_id: dict[str, int] = {}
    first_default: tuple[int, str] | None = None
    for i, entry in scope.entries:
        raw_id = entry.get("id")
        norm = normalize_agent_id(raw_id)
        id_loc = _loc_at(pos, "agents", "list", i, "id")
        id_path = f"agents.list[{i}].id"
        if isinstance(raw_id, str) and norm != raw_id:
            out.add("warning", id_path, f'id "{raw_id}" is used as "{norm}"', id_loc)
        if norm in first_by_id:
            j = first_by_id[norm]
            out.add(
                "warning",
                id_path,
                f'normalises to "{norm}", the same agent id as agents.list[{j}]: '
                f"OpenClaw uses agents.list[{j}] for this agent and ignores this entry",
                id_loc,
            )
        else:
            first_by_id[norm] = i
        if not js_truthy(entry.get("default")):
            continue
        if first_default is None:
            first_default = (i, norm)
            continue
        j, first_id = first_default
        out.add(
            "warning",
            f"agents.list[{i}].default",
            f'more than one agent is marked default; the first one (agents.list[{j}], "{first_id}") '
            "is the default agent",
            _loc_at(pos, "agents", "list", i, "default"),
        )


def _timezone_findings(scope: _Scope, out: _Collector, host_zone: str | None) -> None:
    host = host_zone if host_zone is not None else host_timezone_name(scope.loaded.env)
    zone = resolve_startup_settings(scope.data, host).timezone
    message = unknown_zone_warning(zone)
    if message is not None:
        # The finding names the key itself; the message without it.
        text = message.removeprefix("agents.defaults.userTimezone ")
        out.add(
            "warning",
            "agents.defaults.userTimezone",
            text,
            _loc_at(scope.pos, "agents", "defaults", "userTimezone"),
        )


def _agent_findings(
    scope: _Scope, out: _Collector, find_executable: FindExecutable, token: CancelToken | None
) -> None:
    """Missing workspaces and memory/ dirs, a qmd command that is not there or not runnable."""
    loaded, pos = scope.loaded, scope.pos
    index_of = {id(e): i for i, e in scope.entries}
    # (key, message) -> agents; one finding per key and message, naming every agent it concerns.
    qmd_problems: dict[tuple[str, str], list[str]] = {}
    # A bare command is searched on PATH once, not per agent: (command, cwd) -> (path, node problem).
    found: dict[tuple[str, str], tuple[str | None, str | None]] = {}
    # The backend and qmd block are global (memory.backend, memory.qmd): one choice for every agent.
    choice = resolve_backend_choice(scope.data)
    # A custom collection equal to a default one: config key -> (first message, agents).
    duplicates: dict[str, tuple[str, list[str]]] = {}
    for agent in resolve_agents(scope.data, loaded.env, profile=scope.profile):
        entry_index = index_of.get(id(agent.entry)) if agent.entry is not None else None
        ws_path, ws_loc = _workspace_origin(scope.data, pos, agent.entry, entry_index)
        if not is_directory(agent.workspace):
            problem = stat_problem(agent.workspace)
            state = "does not exist" if problem is None else f"cannot be checked ({problem})"
            message = missing_workspace_message(agent.id, agent.workspace, agent.workspace_rule, state)
            out.add("warning", ws_path, message, ws_loc)
        elif not is_directory(memory_dir := join_path(agent.workspace, "memory")):
            message = f'agent "{agent.id}" has no memory/ directory in its workspace: {memory_dir}'
            out.add("warning", ws_path, message, ws_loc)

        # Only the qmd command, not the agent's whole resolved backend (its collections and paths made most
        # of the cost of 10,000 agents); init-backends uses qmd when search is on and the backend is qmd.
        if not scope.profile.qmd_available:  # 2026.8.1+ has no qmd backend: its keys are retired errors
            continue
        if choice.backend != "qmd" or not memory_search_enabled(scope.data, agent.entry):
            continue
        duplicate_defaults(scope.loaded, agent, choice.qmd_block, duplicates)
        raw = configured_command(choice.qmd_block)
        command = split_command(raw)
        where = "memory.qmd.command" if "command" in choice.qmd_block else choice.backend_source
        dropped = dropped_words(raw)
        if dropped:
            message = (  # mask_text: a token given on the command is not quoted
                f'"{mask_text(raw)}": OpenClaw runs only its first word, "{command}", and silently drops the '
                f'rest ("{mask_text(dropped)}"); for arguments, point memory.qmd.command at a wrapper script'
            )
            qmd_problems.setdefault((where, message), []).append(agent.id)
        # Found as init-backends would find it: on the env's PATH, or relative to the workspace.
        key = (command, "" if "/" not in command else agent.workspace)
        if key not in found:
            executable = find_executable(command, loaded.env, Path(agent.workspace))
            problem = qmd_problem(executable, loaded.env, token, scope.release_node) if executable else None
            found[key] = (executable, problem)
        executable, problem = found[key]
        if executable is None:
            hint = unavailable_hint(command, loaded.env, Path(agent.workspace))
            qmd_problems.setdefault((where, f'qmd command "{command}" not found: {hint}'), []).append(
                agent.id
            )
        elif problem is not None:
            qmd_problems.setdefault((where, problem), []).append(agent.id)

    for where, (message, users) in duplicates.items():
        out.add(
            "warning",
            where,
            f"{message}; agents it concerns: {', '.join(users)}",
            _loc_at(pos, *_keys_of(where)),
        )
    for (where, message), users in qmd_problems.items():
        out.add(
            "warning",
            where,
            f"{message}; agents using qmd: {', '.join(users)}",
            _loc_at(pos, *_keys_of(where)),
        )


def _keys_of(dotted: str) -> list[str | int]:
    """The keys of a dotted path whose keys hold no `.` or `[`: backend_choice's sources, which name a
    list entry by its index (`agents.list[3].memorySearch.qmd`), never by its id."""
    keys: list[str | int] = []
    for part in dotted.split("."):
        while "[" in part:
            head, _, tail = part.partition("[")
            if head:
                keys.append(head)
            index, _, part = tail.partition("]")
            keys.append(int(index) if index.isdigit() else index)
        if part:
            keys.append(part)
    return keys


def _workspace_origin(
    data: Mapping[str, Any], pos: PNode | None, entry: Mapping[str, Any] | None, index: int | None
) -> tuple[str, Loc | None]:
    """The config key an agent's workspace comes from (or would be set at) and where it stands."""
    if entry is not None and index is not None:
        own = entry.get("workspace")
        if isinstance(own, str) and js_trim(own):
            return f"agents.list[{index}].workspace", _loc_at(pos, "agents", "list", index, "workspace")
    agents_cfg = data.get("agents")
    defaults = agents_cfg.get("defaults") if isinstance(agents_cfg, dict) else None
    fallback = defaults.get("workspace") if isinstance(defaults, dict) else None
    if isinstance(fallback, str) and js_trim(fallback):
        return "agents.defaults.workspace", _loc_at(pos, "agents", "defaults", "workspace")
    if index is not None:
        return f"agents.list[{index}].workspace", _loc_at(pos, "agents", "list", index)
    return "agents.defaults.workspace", _loc_at(pos, "agents", "defaults")


def check_config(
    config_flag: str | None = None,
    env: Mapping[str, str] | None = None,
    *,
    dotenv: bool | None = None,
    host_zone: str | None = None,
    find_executable: FindExecutable = resolve_executable,
    token: CancelToken | None = None,
    choose_release: ChooseRelease,
) -> CheckReport:
    """Check a config (`dotenv` as load_config's) for the release `choose_release` picks from its data
    (None: no file). Never raises for the config's sake: a file that cannot be read or parsed gives a
    report with that one error, marked `unreadable`."""
    include_errors: list[IncludeError] = []
    try:
        loaded = load_config(config_flag, env, dotenv=dotenv, track=True, include_errors=include_errors)
    except ConfigError as exc:
        env_map = dict(os.environ if env is None else env)
        source = resolve_config_source(config_flag, env_map)
        out = _Collector(source.path)
        _include_findings(include_errors, out)
        out.add("error", "", exc.detail, Loc(exc.file, exc.line or 1, exc.column or 1))
        # An array at the top is a config the check judged (invalid); anything else could not be read.
        unreadable = not isinstance(exc, TopLevelArrayError)
        error = str(exc) if unreadable else None
        return CheckReport(source, choose_release(None), out.sorted(), unreadable, error)

    choice = choose_release(loaded.data if loaded.source.exists else None)
    profile, version = choice.profile, choice.version
    release = release_name(profile=profile, version=version)
    out = _Collector(loaded.source.path)
    _include_findings(include_errors, out)
    for warning in loaded.warnings:
        loc = Loc(warning.file, warning.line, warning.column or 1) if warning.file and warning.line else None
        message = warning.message
        if warning.variable is not None:
            message = (
                f'missing env var "{warning.variable}": the placeholder is kept, '
                "and the feature using this value will be unavailable"
            )
        elif loaded.source.exists and loaded.positions is None:
            # The loader reads a top level that is no object as {} (tracked loads have positions for
            # everything else); the release refuses it.
            message = message.replace(": it is read as an empty config", f": {release} refuses this config")
            out.add("error", "", message, loc)
            continue
        out.add("warning", warning.dotted_path or "", message, loc)
    for issue in release_errors(loaded.data, loaded.positions, loaded.env, loaded.state_dir, profile=profile):
        out.add(issue.severity, issue.path, issue.message, issue.node.loc if issue.node else None)
    if loaded.source.exists:
        scope = _scope(loaded, profile, version)
        if profile.agent_roster == "list":  # 2026.8.1+ refuses what these warn of (2026.9.6's checks)
            _id_findings(scope, out)
        _timezone_findings(scope, out, host_zone)
        _agent_findings(scope, out, find_executable, token)
        for severity, path, message in session_export_findings(loaded, profile=profile):  # export dirs
            out.add(severity, path, message, _loc_at(scope.pos, *_keys_of(path)))
    return CheckReport(loaded.source, choice, out.sorted())
