"""`env` section and `${VAR}` substitution (config.md §6.3 step 4, §6.5)."""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping

from memwarm_cli.config.positions import PNode, join_path
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_string, js_trim

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# Compiled by re's cache where first used: most configs hold no `${VAR}` and no `env` section, and
# compiling cost every start (the prelude's too).
ENV_VAR_NAME = r"^[A-Z_][A-Z0-9_]*$"
# Names an `env` section may set (later upstream versions also skip names that are unsafe to set).
_SETTABLE_NAME = r"^[A-Za-z_][A-Za-z0-9_]*$"


@record
class ConfigWarning:
    message: str
    dotted_path: str | None = None
    file: str | None = None
    line: int | None = None
    column: int | None = None
    variable: str | None = None  # for a missing `${VAR}`: its name


def _env_text(value: Any) -> str | None:
    """What assigning `value` to process.env stores, for the scalar types a config can hold."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return js_string(value)
    return None


def config_env_entries(cfg: Mapping[str, Any]) -> dict[str, str]:
    """The variables `applyConfigEnvVars` would set: `env.vars.*`, then `env`'s other top-level strings."""
    env_cfg = cfg.get("env")
    if not isinstance(env_cfg, dict):
        return {}
    entries: dict[str, str] = {}
    variables = env_cfg.get("vars")
    if isinstance(variables, dict):
        for key, value in variables.items():
            if not value:  # JS truthiness: "", 0, false and null are skipped
                continue
            text = _env_text(value)
            if text is not None:
                entries[key] = text
    for key, value in env_cfg.items():
        if key in ("shellEnv", "vars"):
            continue
        if not isinstance(value, str) or not js_trim(value):
            continue
        entries[key] = value
    return {
        key: value
        for key, value in entries.items()
        if re.match(_SETTABLE_NAME, key) and "${" not in value and "\0" not in value
    }


def apply_config_env_vars(cfg: Mapping[str, Any], env: MutableMapping[str, str]) -> list[str]:
    """Set the config's env entries in `env`, never overwriting a non-empty value; returns the names set."""
    applied: list[str] = []
    for key, value in config_env_entries(cfg).items():
        current = env.get(key)
        if current is not None and js_trim(current):
            continue
        env[key] = value
        applied.append(key)
    return applied


def substitute_string(value: str, env: Mapping[str, str], missing: list[str]) -> str:
    """One pass of `${VAR}` substitution; unresolved names are appended to `missing` and kept."""
    if "$" not in value:
        return value
    chunks: list[str] = []
    i = 0
    n = len(value)
    while i < n:
        ch = value[i]
        if ch != "$":
            chunks.append(ch)
            i += 1
            continue
        nxt = value[i + 1 : i + 2]
        after = value[i + 2 : i + 3]
        if nxt == "$" and after == "{":
            start = i + 3
            end = value.find("}", start)
            if end != -1:
                name = value[start:end]
                if re.match(ENV_VAR_NAME, name):
                    chunks.append("${" + name + "}")
                    i = end + 1
                    continue
        if nxt == "{":
            start = i + 2
            end = value.find("}", start)
            if end != -1:
                name = value[start:end]
                if re.match(ENV_VAR_NAME, name):
                    env_value = env.get(name)
                    if env_value is None or env_value == "":
                        missing.append(name)
                        chunks.append("${" + name + "}")
                    else:
                        chunks.append(env_value)
                    i = end + 1
                    continue
        chunks.append(ch)
        i += 1
    return "".join(chunks)


def substitute_env(
    data: Any, pos: PNode | None, env: Mapping[str, str], config_path: str
) -> tuple[Any, list[ConfigWarning]]:
    """Substitute `${VAR}` in every string value; a missing variable leaves its placeholder and a warning."""
    warnings: list[ConfigWarning] = []

    def walk(value: Any, node: PNode | None, path: str) -> Any:
        if isinstance(value, str):
            if "$" not in value:
                return value
            missing: list[str] = []
            result = substitute_string(value, env, missing)
            for name in missing:
                loc = node.loc if node is not None else None
                warnings.append(
                    ConfigWarning(
                        f'Config ({config_path}): missing env var "{name}" at {path} - '
                        "feature using this value will be unavailable",
                        path,
                        loc.file if loc else None,
                        loc.line if loc else None,
                        loc.column if loc else None,
                        name,
                    )
                )
            return result
        if isinstance(value, list):
            return [walk(v, node.child(i) if node else None, join_path(path, i)) for i, v in enumerate(value)]
        if isinstance(value, dict):
            return {k: walk(v, node.child(k) if node else None, join_path(path, k)) for k, v in value.items()}
        return value

    return walk(data, pos, ""), warnings
