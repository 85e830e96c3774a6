"""Hostile configs through the installed CLI: a documented exit code, one line per diagnostic, no
traceback, bounded time, whatever the bytes or the values at the keys memwarm reads.

The generators aim at the classes of inputs that used to crash: YAML scalars a tag cannot convert,
dates and sexagesimals, lone surrogates, huge and non-finite numbers, `$include` values, nested junk.
The subprocess test keeps to a few examples (each is a whole `memwarm` process); the in-process test
runs the same configs through the loader, `config check`, `config show` and the prelude plan.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memwarm_cli.config.loader import load_config
from memwarm_cli.configview.check import check_config
from memwarm_cli.configview.path_view import path_data
from memwarm_cli.configview.show_view import show_data
from memwarm_cli.errors import MemwarmError
from memwarm_cli.profiles.releases import P0
from memwarm_cli.startup.session import plan_for_agent
from memwarm_cli.textsafe import escape_text
from tests.conftest import RunCli
from tests.profiles.support import choose

DOCUMENTED_EXITS = {0, 1, 2, 3}
# A hang detector, not a cost: an example takes milliseconds; bound sized for load 10 on 2 cores.
TIME_BOUND_S = 30.0
# Lines memwarm writes to stderr: its own diagnostics, scan's summary, init-backends' log lines.
STDERR_PREFIXES = ("memwarm: ", "# ", "init-backends: ", "qmd memory startup initialization ", "[")

# Text JSON5 and YAML can carry but a naive reader chokes on.
hostile_text = st.one_of(
    st.text(max_size=12),
    st.text(alphabet=st.characters(min_codepoint=0xD7F0, max_codepoint=0xE010), max_size=4),  # surrogates
    st.sampled_from(
        [
            "2026-02-30",
            "1:30",
            "~",
            "=",
            "/proc/kmsg",
            "../../etc",
            "\x00",
            "${NOPE}",
            "$${HOME}",
            "-1e400",
            " America/Chicago ",
            "+23:59",
            "Pacific/Kiritimati",
            "qmd --index x",
            "*\ud800.md",
        ]
    ),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    hostile_text,
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(hostile_text, inner, max_size=3),
    max_leaves=12,
)


def keyed(keys: list[str]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(keys), values, max_size=len(keys))


STARTUP_KEYS = ["enabled", "applyOn", "dailyMemoryDays", "maxFileBytes", "maxFileChars", "maxTotalChars"]
QMD_KEYS = ["command", "paths", "searchMode", "includeDefaultMemory", "update", "sessions", "limits"]
SEARCH_KEYS = ["enabled", "backend", "extraPaths", "qmd", "store", "provider", "sources"]

memory_search = st.one_of(
    keyed(SEARCH_KEYS),
    st.fixed_dictionaries(
        {
            "qmd": st.fixed_dictionaries(
                {"paths": st.lists(keyed(["path", "name", "pattern"]) | values, max_size=3)}
            ),
            "extraPaths": st.lists(hostile_text | values, max_size=3),
        }
    ),
)
structured = st.fixed_dictionaries(
    {},
    optional={
        "agents": st.fixed_dictionaries(
            {},
            optional={
                "defaults": st.fixed_dictionaries(
                    {},
                    optional={
                        "workspace": hostile_text | values,
                        "userTimezone": hostile_text | values,
                        "startupContext": keyed(STARTUP_KEYS) | values,
                        "memorySearch": memory_search | values,
                    },
                ),
                "list": st.lists(keyed(["id", "default", "workspace", "memorySearch"]) | values, max_size=4),
            },
        ),
        "memory": st.fixed_dictionaries(
            {}, optional={"backend": values, "qmd": keyed(QMD_KEYS) | values, "citations": values}
        ),
        "env": st.fixed_dictionaries(
            {}, optional={"vars": st.dictionaries(hostile_text, values, max_size=3)}
        ),
        "$include": hostile_text | st.lists(hostile_text | values, max_size=3) | values,
    },
)

# YAML scalars that PyYAML's SafeLoader turned into exceptions, dates or huge numbers.
yaml_scalars = st.sampled_from(
    [
        "!!int ~",
        "!!bool ~",
        "!!float ~",
        "!!timestamp nope",
        "!!timestamp 2026-02-30",
        "2026-02-30",
        "2026-01-02 10:00:00",
        "1" + ":59" * 600,
        "!!int " + "9" * 5000 + ":30",
        "9" * 5000,
        "!!binary ###",
        "!!set {a}",
        "!!omap [a: 1]",
        "!!python/name:os.system",
        '"\\ud800"',
        '"\\udc00x"',
        "&a [*a]",
        "*nowhere",
        "=",
        "0x" + "f" * 3000,
        ".nan",
        "-.inf",
    ]
)
yaml_key_paths = st.sampled_from(
    [
        ["agents", "defaults", "workspace"],
        ["agents", "defaults", "userTimezone"],
        ["agents", "defaults", "startupContext", "dailyMemoryDays"],
        ["agents", "defaults", "memorySearch", "extraPaths"],
        ["memory", "backend"],
        ["memory", "qmd", "command"],
        ["env", "vars", "X"],
        ["$include"],
        ["x"],
    ]
)


def yaml_document(pairs: list[tuple[list[str], str]]) -> str:
    """One mapping per (key path, scalar), as block YAML; later documents' keys merge as YAML merges."""
    lines: list[str] = []
    for path, scalar in pairs:
        for depth, key in enumerate(path):
            suffix = f" {scalar}" if depth == len(path) - 1 else ""
            lines.append(f"{'  ' * depth}{json.dumps(key)}:{suffix}")
    return "\n".join(lines) + "\n"


def serialise(value: Any, fmt: str) -> bytes:
    if fmt == "toml":
        import tomli_w

        from memwarm_cli.configview.show_view import drop_nulls

        try:
            return tomli_w.dumps(drop_nulls(value) if isinstance(value, dict) else {"v": value}).encode()
        except (TypeError, ValueError, UnicodeEncodeError):
            return b"x = 1\n"
    # JSON is JSON5, and (flow style) YAML; lone surrogates and non-finite numbers become escapes.
    return json.dumps(value).encode("ascii")


config_files = st.one_of(
    st.tuples(st.sampled_from(["json5", "yaml", "toml"]), st.binary(max_size=300)),
    st.tuples(st.sampled_from(["json5", "yaml", "toml"]), structured).map(
        lambda p: (p[0], serialise(p[1], p[0]))
    ),
    st.tuples(
        st.just("yaml"),
        st.lists(st.tuples(yaml_key_paths, yaml_scalars), min_size=1, max_size=3).map(
            lambda pairs: yaml_document(pairs).encode("utf-8")
        ),
    ),
)
commands = st.sampled_from(
    [
        ["config", "path"],
        ["config", "check"],
        ["config", "show", "--format", "toml"],
        ["prelude", "--at", "0001-01-02T00:00:00Z"],
        ["scan", "--all-agents", "--at", "2026-04-11T12:00:00Z"],
        ["context", "--json", "--at", "9999-12-31T12:00:00Z"],
        ["init-backends", "--dry-run"],
    ]
)


def one_line(message: str) -> bool:
    """The message as the CLI writes it (outside text escaped once, at the output) is one line."""
    return len(escape_text(message).splitlines()) == 1


def assert_clean_stderr(stderr: str) -> None:
    assert "Traceback" not in stderr
    for line in stderr.splitlines():
        assert line.startswith(STDERR_PREFIXES), f"not a one-line diagnostic: {line!r}\n{stderr}"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(config=config_files, command=commands)
def test_hostile_config_through_the_cli(
    run_cli: RunCli, home_dir: Path, config: tuple[str, bytes], command: list[str]
) -> None:
    fmt, data = config
    cfg = home_dir / f"openclaw.{fmt}"
    cfg.write_bytes(data)
    started = time.monotonic()
    result = run_cli(["--config", str(cfg), *command], env={"PATH": "/usr/bin:/bin"}, timeout=60)
    took = time.monotonic() - started
    assert took < TIME_BOUND_S, f"{took:.1f} s (bound sized for load 10 on 2 cores)"
    assert result.returncode in DOCUMENTED_EXITS, result.stderr
    assert_clean_stderr(result.stderr)
    if result.returncode in (2, 3):  # warnings may come first; the error is the last line, and the only one
        lines = result.stderr.splitlines()
        assert lines[-1].startswith("memwarm: error: ")
        assert [line for line in lines if line.startswith("memwarm: error: ")] == lines[-1:]


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(config=config_files)
def test_hostile_config_in_process(tmp_path: Path, config: tuple[str, bytes]) -> None:
    fmt, data = config
    cfg = tmp_path / f"openclaw.{fmt}"
    cfg.write_bytes(data)
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    started = time.monotonic()
    try:
        report = check_config(str(cfg), env, host_zone="UTC", choose_release=choose(P0))
    except MemwarmError as exc:
        assert int(exc.exit_code) in DOCUMENTED_EXITS and one_line(str(exc))
        return
    for finding in report.findings:
        assert len(finding.format().splitlines()) == 1
    try:
        loaded = load_config(str(cfg), env)
        json.dumps(
            [path_data(loaded, profile=P0), show_data(loaded, agent_id=None, host_zone="UTC", profile=P0)]
        )
        from memwarm_cli.agents import resolve_agents

        for agent in resolve_agents(loaded.data, loaded.env, profile=P0)[:3]:
            plan_for_agent(loaded, agent, 1775930400000, profile=P0)
    except MemwarmError as exc:
        assert int(exc.exit_code) in DOCUMENTED_EXITS and one_line(str(exc))
    took = time.monotonic() - started
    assert took < TIME_BOUND_S, f"{took:.1f} s (bound sized for load 10 on 2 cores)"
