"""`load_config`: find, read, parse, resolve includes, apply `env`, substitute `${VAR}` (config.md §6.3).

The loader never validates the schema: `prelude` must accept whatever OpenClaw's runtime would read,
and `config check` judges the values separately.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from memwarm_cli.config.envsubst import ConfigWarning, apply_config_env_vars, substitute_env
from memwarm_cli.config.formats import ParseError, decode_text, format_for, parse_document
from memwarm_cli.config.lookup import contains_key
from memwarm_cli.config.paths import ConfigSource, resolve_config_source, resolve_state_dir, stat_problem
from memwarm_cli.config.positions import Duplicate, ParseNote, PNode, join_path
from memwarm_cli.errors import ConfigError
from memwarm_cli.frozen_records import mutable_record
from memwarm_cli.jsstring import js_typeof
from memwarm_cli.safe_files import FileTooLargeError, NotRegularFileError, read_bounded

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memwarm_cli.config.includes import IncludeError

# A safety cap (a huge file named by mistake); real configs are a few KiB, includes are capped at 2 MiB.
MAX_CONFIG_BYTES = 64 * 1024 * 1024


class TopLevelArrayError(ConfigError):
    """The document is an array: upstream's schema validation rejects it (config check reports it)."""


@mutable_record
class LoadedConfig:
    source: ConfigSource
    data: dict[str, Any]  # includes resolved, ${VAR} substituted; {} for a missing default file
    env: dict[str, str]  # the environment with the config's env entries applied
    state_dir: str
    warnings: list[ConfigWarning]  # missing ${VAR}s, a non-object top level; duplicate keys with track=True
    positions: PNode | None = None  # only when loaded with track=True
    unsubstituted: Any = None  # `data` before ${VAR} substitution (config show names a credential's ${VAR})


def read_config_bytes(path: str) -> bytes:
    """Read a config file (a regular file, like the `$include` reader requires); every failure is a
    one-line ConfigError."""
    try:
        return read_bounded(path, MAX_CONFIG_BYTES)[0]
    except NotRegularFileError as exc:
        if exc.kind == "a directory":
            raise ConfigError(path, "is a directory, not a config file") from None
        raise ConfigError(path, f"is {exc.kind}, not a regular file: cannot read it as a config") from None
    except FileTooLargeError:
        raise ConfigError(
            path, f"config file is larger than {MAX_CONFIG_BYTES // (1024 * 1024)} MiB"
        ) from None
    except FileNotFoundError:
        raise ConfigError(path, "config file not found") from None
    except IsADirectoryError:
        raise ConfigError(path, "is a directory, not a config file") from None
    except PermissionError:
        raise ConfigError(path, "cannot read config file: permission denied") from None
    except (OSError, ValueError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise ConfigError(path, f"cannot read config file: {reason}") from None


def parse_config_file(path: str, *, track: bool = False) -> tuple[Any, PNode | None]:
    """Read and parse one file (no includes); parse errors become ConfigError with line and column."""
    data = read_config_bytes(path)
    try:
        return parse_document(decode_text(data), path, format_for(path), track=track)
    except ParseError as exc:
        raise ConfigError(path, exc.message, exc.line, exc.column) from None


def _resolve(
    path: str, *, track: bool, include_errors: list[IncludeError] | None = None
) -> tuple[Any, PNode | None]:
    parsed, pos = parse_config_file(path, track=track)
    if not contains_key(parsed, "$include"):  # includes.INCLUDE_KEY
        return parsed, pos  # most configs: the resolver would only copy the whole tree
    # includes: only for a config that has one (~0.3 ms of every start otherwise, test_imports)
    from memwarm_cli.config.includes import IncludeError, resolve_includes

    notes = list(pos.notes) if pos is not None and pos.notes else []
    try:
        data, merged = resolve_includes(parsed, pos, path, track=track, errors=include_errors, notes=notes)
        if merged is not None and notes:
            merged.notes = notes
        return data, merged
    except IncludeError as exc:
        if exc.loc is None and not track:
            # Errors are rare: find where the failing `$include` stands by loading again with positions.
            return _resolve(path, track=True)
        loc = exc.loc
        if loc is None:
            raise ConfigError(path, exc.message) from None
        raise ConfigError(loc.file, exc.message, loc.line, loc.column) from None


def _note_warnings(root: PNode, notes: list[ParseNote]) -> list[ConfigWarning]:
    """A warning for each key given twice in one object, at the later one (whose value is used), and
    for each key or value that held lone surrogates."""
    paths: dict[int, str] = {}

    def walk(node: PNode, path: str) -> None:
        paths[id(node.loc)] = path
        children = node.children
        if isinstance(children, dict):
            for key, child in children.items():
                walk(child, join_path(path, key))
        elif isinstance(children, list):
            for i, child in enumerate(children):
                walk(child, join_path(path, i))

    walk(root, "")
    warnings = []
    for dup in notes:
        if not isinstance(dup, Duplicate):
            loc = dup.loc
            message = (
                f"lone surrogate {dup.escapes} in this key or value: Node writes it as U+FFFD wherever "
                "the text reaches a file name, a command or an environment variable; memwarm reads it "
                "as U+FFFD"
            )
            warnings.append(ConfigWarning(message, paths.get(id(loc), ""), loc.file, loc.line, loc.column))
            continue
        earlier = dup.earlier
        where = f"line {earlier.line}, column {earlier.column}"
        if earlier.file != dup.later.file:
            where = f"{earlier.file}:{earlier.line}:{earlier.column}"
        warnings.append(
            ConfigWarning(
                f'duplicate key "{dup.key}": this later value is used, the one at {where} is ignored',
                paths.get(id(dup.later), dup.key),
                dup.later.file,
                dup.later.line,
                dup.later.column,
            )
        )
    return warnings


def _load_dotenv(path: str, env: dict[str, str]) -> None:
    """The .env file's variables that `env` lacks; nothing when there is no such file."""
    if os.path.lexists(path):
        # dotenv: only when there is a file, which most runs have not (~0.2 ms of a start, test_imports)
        from memwarm_cli.config.dotenv import load_dotenv_file

        load_dotenv_file(path, env)


def load_config(
    config_flag: str | None = None,
    env: Mapping[str, str] | None = None,
    *,
    dotenv: bool | None = None,
    track: bool = False,
    include_errors: list[IncludeError] | None = None,
) -> LoadedConfig:
    """Load the config OpenClaw would load. `env` defaults to a copy of os.environ (never mutated). With
    `dotenv` (default: only when `env` is None, the real process environment) the variables of `./.env`
    and `<stateDir>/.env` that are not set yet are added (as OpenClaw's dotenv loading); the CLI asks
    for it with the environment it was given, which stands for a memwarm process's own.

    With `track`, `positions` holds where every key stands (for `config check`). With `include_errors`,
    `$include` failures are collected there instead of raised, and the failing include counts as `{}`.
    """
    env_map: dict[str, str] = dict(os.environ if env is None else env)
    if dotenv if dotenv is not None else env is None:
        # OpenClaw loads ./.env, then <stateDir>/.env, into the real process env (never overriding).
        _load_dotenv(".env", env_map)
        _load_dotenv(os.path.join(resolve_state_dir(env_map), ".env"), env_map)
    source = resolve_config_source(config_flag, env_map)
    state_dir = resolve_state_dir(env_map)
    file = source.path

    if not source.exists:
        if source.explicit:
            problem = stat_problem(source.path)
            if problem is not None:
                raise ConfigError(file, f"cannot read config file: {problem} (given by {source.reason})")
            raise ConfigError(file, f"config file not found (given by {source.reason})")
        return LoadedConfig(source, {}, env_map, state_dir, [], None)

    try:
        raw, pos = _resolve(source.path, track=track, include_errors=include_errors)
        if isinstance(raw, list):
            line, column = (pos.loc.line, pos.loc.column) if pos is not None else (None, None)
            if line is None:
                _, first = parse_config_file(source.path, track=True)
                line, column = (first.loc.line, first.loc.column) if first is not None else (1, 1)
            raise TopLevelArrayError(
                file, "the top-level value must be an object, not an array", line, column
            )
        if not isinstance(raw, dict):
            # A top-level null, number, string or boolean gives an empty config, as in OpenClaw.
            kind = "null" if raw is None else js_typeof(raw)
            loc = pos.loc if pos is not None else None
            warning = ConfigWarning(
                f"the top-level value of {file} is {kind}, not an object: it is read as an empty config",
                None,
                loc.file if loc else file,
                loc.line if loc else None,
                loc.column if loc else None,
            )
            return LoadedConfig(source, {}, env_map, state_dir, [warning], None)
        apply_config_env_vars(raw, env_map)
        data, warnings = substitute_env(raw, pos, env_map, file)
        if pos is not None and pos.notes:
            warnings = _note_warnings(pos, pos.notes) + warnings
    except RecursionError:
        raise ConfigError(file, "the config is nested too deeply") from None
    return LoadedConfig(source, data, env_map, state_dir, warnings, pos, raw)
