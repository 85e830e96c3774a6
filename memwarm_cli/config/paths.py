"""Home, state dir, config file and default workspace discovery (config.md §6.1, §6.2, §8.3).

Pure functions of an environment mapping; the only side effects are `exists` checks on the file system.
Those never raise: like Node's `fs.existsSync`, a path that cannot be checked (too long, no permission)
counts as missing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from memwarm_cli.errors import ConfigError, UsageError
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_trim
from memwarm_cli.os_paths import absolute_path, current_directory, join_path
from memwarm_cli.profiles.releases import Profile
from memwarm_cli.textsafe import clip

CONFIG_FILENAMES = ("openclaw.json", "clawdbot.json", "moldbot.json", "moltbot.json")
STATE_DIRNAMES = (".openclaw", ".clawdbot", ".moldbot", ".moltbot")
LEGACY_STATE_DIRNAMES = STATE_DIRNAMES[1:]


@record
class ConfigSource:
    path: str  # absolute path of the config file chosen
    reason: (
        str  # why this file: "--config", "OPENCLAW_CONFIG_PATH", "state dir (...)", "legacy ...", "default"
    )
    exists: bool
    explicit: bool  # given by --config or OPENCLAW_CONFIG_PATH: a missing file is then an error


def path_exists(path: str | os.PathLike[str]) -> bool:
    """`fs.existsSync`: False, never an exception, when the path cannot be checked (ENAMETOOLONG, EACCES).

    (`Path.exists()` raises for those on Python 3.11.)
    """
    return os.path.exists(path)


def is_directory(path: str | os.PathLike[str]) -> bool:
    """A directory (following symlinks); False when it cannot be checked."""
    return os.path.isdir(path)


def stat_problem(path: str | os.PathLike[str]) -> str | None:
    """Why `path` cannot be checked, other than not existing (e.g. "File name too long"); else None."""
    try:
        os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        return exc.strerror or str(exc)
    except ValueError as exc:  # an embedded NUL
        return str(exc)
    return None


def _env_value(env: Mapping[str, str], name: str, *, sdk_nullish: bool = False) -> str | None:
    """The trimmed value of `name`, or None when it is unset or empty."""
    raw = env.get(name)
    if raw is None:
        return None
    value = js_trim(raw)
    if not value:
        return None
    if sdk_nullish and value in ("undefined", "null"):
        return None
    return value


def _node_resolve(value: str) -> str:
    """`path.resolve(value)` on POSIX: absolute against the cwd, normalized, no trailing slash."""
    result = absolute_path(value)
    # os.path keeps exactly two leading slashes (POSIX allows it); Node collapses them.
    if result.startswith("//") and not result.startswith("///"):
        result = result[1:]
    return result


def _os_home(env: Mapping[str, str]) -> str | None:
    """HOME → USERPROFILE → os.homedir() (the password database), each trimmed; None when none exists."""
    for name in ("HOME", "USERPROFILE"):
        value = _env_value(env, name)
        if value:
            return value
    try:
        # pwd: only when HOME is unset; kept off the fast commands (test_imports)
        import pwd

        home = js_trim(pwd.getpwuid(os.getuid()).pw_dir)
    except (ImportError, KeyError, OSError):
        return None
    return home or None


def resolve_home_dir(env: Mapping[str, str]) -> str:
    """`resolveRequiredHomeDir(env)`: OPENCLAW_HOME (`~` expanded), HOME, USERPROFILE, OS home, cwd."""
    explicit = _env_value(env, "OPENCLAW_HOME", sdk_nullish=True)
    if explicit is not None:
        if explicit == "~" or explicit.startswith(("~/", "~\\")):
            os_home = _os_home(env)
            if os_home is None:
                return current_directory()
            explicit = os_home + explicit[1:]
        return _node_resolve(explicit)
    os_home = _os_home(env)
    if os_home is None:
        return current_directory()
    return _node_resolve(os_home)


def expand_home_prefix(value: str, env: Mapping[str, str]) -> str:
    """Replace a leading `~` followed by end of string, `/` or `\\` with the home dir (`~user` is kept)."""
    if value == "~" or value.startswith(("~/", "~\\")):
        return resolve_home_dir(env) + value[1:]
    return value


def resolve_user_path(value: str, env: Mapping[str, str]) -> str | None:
    """`resolveUserPath`: trim; empty gives None; `~` expansion; absolute against the cwd; normalized."""
    if value is None:
        return None
    trimmed = js_trim(value).replace("\0", "")
    if not trimmed:
        return None
    return _node_resolve(expand_home_prefix(trimmed, env))


@record
class StateDirChoice:
    path: str
    reason: str
    from_env: bool  # the config file is pinned to `path/openclaw.json` (§6.2 steps 3 and 5)


def _default_state_dir_choice(env: Mapping[str, str]) -> StateDirChoice:
    """The state dir without OPENCLAW_STATE_DIR/CLAWDBOT_STATE_DIR (§6.2 `resolveStateDir` steps 2-4)."""
    home = resolve_home_dir(env)
    default = join_path(home, ".openclaw")
    if path_exists(default):
        return StateDirChoice(default, "default", False)
    for name in LEGACY_STATE_DIRNAMES:
        candidate = join_path(home, name)
        if path_exists(candidate):
            return StateDirChoice(candidate, f"legacy state dir ~/{name}", False)
    return StateDirChoice(default, "default", False)


def resolve_state_dir_choice(env: Mapping[str, str]) -> StateDirChoice:
    """`resolveStateDir(env)`. OPENCLAW_PROFILE plays no part: only the CLI's `--profile` flag (which
    memwarm does not have) moves the state dir; the variable selects the default workspace (§8.3)."""
    for name in ("OPENCLAW_STATE_DIR", "CLAWDBOT_STATE_DIR"):
        value = _env_value(env, name)
        if value is not None:
            resolved = resolve_user_path(value, env)
            if resolved is not None:
                # OPENCLAW_STATE_DIR pins the config file to this directory (§6.2 step 3); so does
                # CLAWDBOT_STATE_DIR unless it names the default state dir, whose candidates are then
                # scanned (steps 4 and 5).
                pinned = name == "OPENCLAW_STATE_DIR" or resolved != _default_state_dir_choice(env).path
                return StateDirChoice(resolved, name, pinned)
    return _default_state_dir_choice(env)


def resolve_state_dir(env: Mapping[str, str]) -> str:
    """`resolveStateDir(env)` (§6.2)."""
    return resolve_state_dir_choice(env).path


def _config_path_from_env(env: Mapping[str, str], name: str, *, explicit: bool) -> ConfigSource | None:
    """The config file an environment variable names (None when unset, empty or blank)."""
    value = _env_value(env, name)
    path = resolve_user_path(value, env) if value is not None else None
    return ConfigSource(path, name, path_exists(path), explicit) if path is not None else None


def resolve_config_source(config_flag: str | None, env: Mapping[str, str]) -> ConfigSource:
    """Which config file is used and why (§6.2 `resolveConfigPath`, with `--config` first)."""
    if config_flag is not None:
        flag_path = resolve_user_path(config_flag, env)
        if flag_path is None:
            raise ConfigError("--config", "empty config path")
        return ConfigSource(flag_path, "--config", path_exists(flag_path), True)

    from_env = _config_path_from_env(env, "OPENCLAW_CONFIG_PATH", explicit=True)
    if from_env is not None:
        return from_env

    state = resolve_state_dir_choice(env)
    state_label = "state dir" if state.reason == "default" else f"state dir ({state.reason})"
    if state.reason.startswith("legacy"):
        state_label = state.reason
    for filename in CONFIG_FILENAMES:
        candidate = join_path(state.path, filename)
        if path_exists(candidate):
            reason = (
                state_label if filename == CONFIG_FILENAMES[0] else f"{state_label}, legacy name {filename}"
            )
            if reason == "state dir":
                reason = "default"
            return ConfigSource(candidate, reason, True, False)

    if state.from_env:
        return ConfigSource(join_path(state.path, CONFIG_FILENAMES[0]), state_label, False, False)

    from_legacy_env = _config_path_from_env(env, "CLAWDBOT_CONFIG_PATH", explicit=False)
    if from_legacy_env is not None:
        return from_legacy_env

    home = resolve_home_dir(env)
    for dirname in STATE_DIRNAMES:
        for filename in CONFIG_FILENAMES:
            candidate = join_path(home, dirname, filename)
            if path_exists(candidate):
                legacy = dirname != STATE_DIRNAMES[0] or filename != CONFIG_FILENAMES[0]
                reason = f"legacy location ~/{dirname}/{filename}" if legacy else "default"
                return ConfigSource(candidate, reason, True, False)
    return ConfigSource(join_path(state.path, CONFIG_FILENAMES[0]), "default", False, False)


# Compiled by re's cache when OPENCLAW_PROFILE names a profile (rarely: not at every start).
_PROFILE_NAME = r"[a-z0-9][a-z0-9_-]{0,63}"


def resolve_default_workspace_dir(env: Mapping[str, str], *, profile: Profile) -> str:
    """The default agent workspace (`resolveDefaultAgentWorkspaceDir`).

    "profile-suffix" (up to 2026.7.x): `OPENCLAW_WORKSPACE_DIR`, else
    `<home>/.openclaw/workspace[-<profile>]` (profile case kept). "state-dir" (2026.8.1+): a non-blank
    `OPENCLAW_WORKSPACE_DIR` (path.resolve, no `~`), else `<OPENCLAW_STATE_DIR's state dir>/workspace`,
    else `<home>/.openclaw-<profile>/workspace` (an invalid profile name is a usage error), else
    `<home>/.openclaw/workspace`.
    """
    if profile.default_workspace_rule == "state-dir":
        return _state_dir_workspace(env)
    override = env.get("OPENCLAW_WORKSPACE_DIR")
    if override is not None:
        resolved = resolve_user_path(override, env)
        if resolved is not None:
            return resolved
    home = resolve_home_dir(env)
    name = js_trim(env.get("OPENCLAW_PROFILE") or "")
    if name and name.lower() != "default":
        return join_path(home, ".openclaw", f"workspace-{name}")
    return join_path(home, ".openclaw", "workspace")


def _state_dir_workspace(env: Mapping[str, str]) -> str:
    override = js_trim(env.get("OPENCLAW_WORKSPACE_DIR") or "")
    if override:
        return absolute_path(override)
    if js_trim(env.get("OPENCLAW_STATE_DIR") or ""):
        return join_path(resolve_state_dir(env), "workspace")
    home = resolve_home_dir(env)
    name = js_trim(env.get("OPENCLAW_PROFILE") or "")
    if name and name.lower() != "default":
        if not re.fullmatch(_PROFILE_NAME, name, re.IGNORECASE | re.ASCII):
            raise UsageError(f"OPENCLAW_PROFILE: invalid profile name {clip(name)!r} (OpenClaw refuses it)")
        return join_path(home, f".openclaw-{name}", "workspace")
    return join_path(home, ".openclaw", "workspace")
