"""The modules `memwarm prelude`, `scan`, `context` and `status` import, exactly (in the style of click's
test_imports.py): each command runs in a fresh interpreter, and what it added to `sys.modules` must be the
set written here, memwarm's modules and the standard library's alike. A small run pays for every module it
imports (bench/bench_startup.py: prelude on 10 notes within 2.5x `python -c pass`, status within 4x), so a
new import on one of these paths must be a conscious change: add it here, with the cost measured.

The standard library's sets are those of CPython 3.11 (the version the lists were recorded on); on another
version only "nothing beyond them" is checked, as its modules import each other differently.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import isolated_env, require_tool, write_memory_note

AT = "2026-04-11T18:00:00Z"
_PROBE = """
import sys
before = set(sys.modules)
from memwarm_cli.cli.main import run_invocation
from memwarm_cli.cli.terminal.invocation import process_invocation
code = run_invocation(sys.argv[1:], process_invocation())
added = sorted(set(sys.modules) - before)
import json
print(json.dumps([code, added]), file=sys.stderr)
"""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


# What every one of the four imports from the standard library and of memwarm (the route and the config).
_COMMON_STDLIB = _words("""
__future__ _bisect _collections _datetime _functools _json _operator _sre bisect collections
collections.abc copyreg enum errno functools gc itertools keyword math operator re re._casefix re._compiler
re._constants re._parser reprlib types
""")
_COMMON_MEMWARM = _words("""
memwarm_cli memwarm_cli.agents memwarm_cli.cli memwarm_cli.cli.commands memwarm_cli.cli.fastpath
memwarm_cli.cli.main memwarm_cli.cli.terminal memwarm_cli.cli.terminal.command_config
memwarm_cli.cli.terminal.invocation memwarm_cli.cli.terminal.output memwarm_cli.cli.terminal.view_format
memwarm_cli.config memwarm_cli.config.envsubst memwarm_cli.config.formats
memwarm_cli.config.json5reader memwarm_cli.config.loader memwarm_cli.config.lookup memwarm_cli.config.paths
memwarm_cli.config.positions memwarm_cli.config.run memwarm_cli.datetime_types memwarm_cli.errors
memwarm_cli.exec_search memwarm_cli.exitcodes memwarm_cli.frozen_records memwarm_cli.jsstring
memwarm_cli.os_paths memwarm_cli.profiles memwarm_cli.profiles.choice memwarm_cli.profiles.installed
memwarm_cli.profiles.releases memwarm_cli.safe_files memwarm_cli.startup memwarm_cli.startup.clock
memwarm_cli.startup.prelude_settings memwarm_cli.startup.tz_footer memwarm_cli.startup.tzif
memwarm_cli.textsafe
""")
EXPECTED: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "context": (
        _words("""
json json.decoder json.encoder json.scanner
"""),
        _words("""
memwarm_cli.bootstrap memwarm_cli.bootstrap.agents_digest memwarm_cli.bootstrap.budget
memwarm_cli.bootstrap.candidates memwarm_cli.bootstrap.context_plan memwarm_cli.bootstrap.context_settings
memwarm_cli.bootstrap.memory_eligibility memwarm_cli.bootstrap.rendering memwarm_cli.bootstrap.session_keys
memwarm_cli.bootstrap.trimming memwarm_cli.bootstrap.workspace_state memwarm_cli.boundary_read
memwarm_cli.cli.commands.context memwarm_cli.cli.commands.context_views memwarm_cli.cli.commands.prelude
memwarm_cli.named_tuples memwarm_cli.session_context memwarm_cli.startup.file_rows memwarm_cli.startup.plan
memwarm_cli.startup.session memwarm_cli.startup.text
"""),
    ),
    "prelude": (
        frozenset(),
        _words("""
memwarm_cli.boundary_read memwarm_cli.cli.commands.prelude memwarm_cli.cli.commands.prelude_views
memwarm_cli.startup.file_rows memwarm_cli.startup.plan memwarm_cli.startup.session memwarm_cli.startup.text
"""),
    ),
    "scan": (
        frozenset(),
        _words("""
memwarm_cli.boundary_read memwarm_cli.cli.commands.prelude memwarm_cli.cli.commands.scan
memwarm_cli.cli.commands.scan_views memwarm_cli.startup.file_rows memwarm_cli.startup.plan
memwarm_cli.startup.scan_record memwarm_cli.startup.session memwarm_cli.startup.text
"""),
    ),
    "status": (
        _words("""
_sha256 _sqlite3 array fcntl fnmatch ipaddress json json.decoder json.encoder json.scanner ntpath
pathlib urllib urllib.parse warnings
"""),
        _words("""
memwarm_cli.backends memwarm_cli.backends.agent_status memwarm_cli.backends.freshness
memwarm_cli.backends.freshness.export_check memwarm_cli.backends.freshness.file_walk
memwarm_cli.backends.freshness.fingerprint memwarm_cli.backends.freshness.forked_map
memwarm_cli.backends.freshness.freshness memwarm_cli.backends.freshness.qmd_glob
memwarm_cli.backends.freshness.sha256 memwarm_cli.backends.qmd memwarm_cli.backends.qmd.index_stats
memwarm_cli.backends.qmd.qmd_diagnosis memwarm_cli.backends.qmd.version_cache memwarm_cli.backends.retired
memwarm_cli.backends.settings memwarm_cli.backends.settings.agent_backend
memwarm_cli.backends.settings.backend_choice memwarm_cli.backends.settings.memory_search
memwarm_cli.backends.settings.qmd_collections memwarm_cli.backends.settings.qmd_paths
memwarm_cli.backends.settings.qmd_settings memwarm_cli.backends.settings.setting_use
memwarm_cli.backends.state memwarm_cli.backends.state.last_run memwarm_cli.backends.state.locks
memwarm_cli.backends.state.state_files memwarm_cli.backends.state.state_records memwarm_cli.cancel
memwarm_cli.cli.commands.status memwarm_cli.cli.commands.status_prometheus
memwarm_cli.cli.commands.status_views memwarm_cli.cli.terminal.interrupts memwarm_cli.configview
memwarm_cli.configview.agent_dirs memwarm_cli.configview.release_checks
memwarm_cli.configview.release_checks_2026_6_35 memwarm_cli.configview.schema_2026_6_35
memwarm_cli.configview.schema_memory memwarm_cli.configview.schema_types memwarm_cli.durations
memwarm_cli.sqlite_driver
"""),
    ),
}


def _imported(argv: list[str], env: dict[str, str]) -> tuple[set[str], set[str], set[str]]:
    """memwarm's, the standard library's and any other modules that `memwarm ARGV` imported."""
    proc = subprocess.run([sys.executable, "-c", _PROBE, *argv], env=env, capture_output=True, text=True)
    code, names = json.loads(proc.stderr.splitlines()[-1])
    assert code == 0, proc.stderr
    # sysconfig's build-time data is a module named per platform (_sysconfigdata_<abi>_<platform>).
    modules = {"_sysconfigdata" if name.startswith("_sysconfigdata_") else name for name in names}
    ours = {name for name in modules if name.split(".")[0] == "memwarm_cli"}
    stdlib = {name for name in modules if _is_stdlib(name)}
    return ours, stdlib, set(modules) - ours - stdlib


def _is_stdlib(name: str) -> bool:
    return name == "_sysconfigdata" or name.split(".")[0] in sys.stdlib_module_names


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    """One qmd agent with two notes in the window, armed by init-backends with the real qmd."""
    qmd = require_tool("qmd")
    root = tmp_path_factory.mktemp("imports")
    ws, state = root / "ws", root / "state"
    write_memory_note(ws, "2026-04-11.md", "# today\nworked on the thing\n")
    write_memory_note(ws, "2026-04-11-plan.md", "the plan\n")
    state.mkdir()
    config = {
        "memory": {"backend": "qmd"},
        "agents": {
            "defaults": {"userTimezone": "America/Chicago"},
            "list": [{"id": "main", "workspace": str(ws)}],
        },
    }
    (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    env = isolated_env(root / "home", {"OPENCLAW_STATE_DIR": str(state), "TZ": "UTC"})
    env["PATH"] = f"{qmd.parent}:{env.get('PATH', '')}"
    armed = subprocess.run(
        [str(Path(sys.executable).with_name("memwarm")), "init-backends", "-q"], env=env, capture_output=True
    )
    assert armed.returncode == 0, armed.stderr
    return ws, env


COMMANDS = {
    "prelude": ["prelude", "--at", AT],
    "scan": ["scan", "--at", AT],
    "context": ["context", "--at", AT],
    "status": ["status"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_fast_command_imports_exactly_its_modules(
    workspace: tuple[Path, dict[str, str]], command: str
) -> None:
    _, env = workspace
    ours, stdlib, others = _imported(COMMANDS[command], env)
    expected_stdlib, expected_ours = EXPECTED[command]
    expected_stdlib |= _COMMON_STDLIB
    expected_ours |= _COMMON_MEMWARM
    assert not others, f"{command} imported modules from outside memwarm and the stdlib: {sorted(others)}"
    added, gone = sorted(ours - expected_ours), sorted(expected_ours - ours)
    assert not added and not gone, f"{command}: memwarm modules added {added}, gone {gone}"
    added, gone = sorted(stdlib - expected_stdlib), sorted(expected_stdlib - stdlib)
    assert not added, f"{command}: standard library modules added {added}"
    if sys.version_info[:2] == (3, 11):
        assert not gone, f"{command}: standard library modules gone {gone}"
