"""The redaction is its own sub-package (issue 32): the stdlib-private regex parser is touched in one
fenced module, and the commands that never export do not load the redaction rules."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "memwarm_cli"
FENCE = "memwarm_cli/backends/sessions/redaction/sre_private.py"
PRIVATE_PARSER_MODULES = ("sre_parse", "sre_constants", "sre_compile", "re._parser", "re._constants")


def _imports(path: Path) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found += [
                (node.lineno, node.module),
                *((node.lineno, f"{node.module}.{a.name}") for a in node.names),
            ]
    return found


def test_the_private_regex_parser_is_touched_in_one_module() -> None:
    """Like cli/typer_private.py: sre_parse and its kin are deprecated private modules whose trees change
    between Python versions; one module holds every use, so an upgrade has one place to look."""
    wrong = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(REPO_ROOT).as_posix()
        if where == FENCE:
            continue
        for line, module in _imports(path):
            if module in PRIVATE_PARSER_MODULES:
                wrong.append(f"{where}:{line}: {module}")
    assert wrong == []
    assert any(module == "sre_parse" for _, module in _imports(REPO_ROOT / FENCE))


def test_status_scan_and_prelude_do_not_load_the_redaction_rules() -> None:
    """The rules compile about 200 regexes: only an export pays for them."""
    script = (
        "import sys\n"
        "import memwarm_cli.backends.agent_status, memwarm_cli.cli.commands.status_cmd\n"
        "import memwarm_cli.cli.commands.scan_cmd, memwarm_cli.cli.commands.prelude_cmd\n"
        "import memwarm_cli.backends.init.session_export_step, memwarm_cli.backends.freshness.freshness\n"
        "loaded = [m for m in sys.modules if '.sessions.redaction.' in m]\n"
        "print(sorted(m for m in loaded if not m.endswith('.clear_secrets')))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    assert done.stdout.strip() == "[]", done.stdout
