"""The README's usage lines and status tables are checked against the code, as its exit-code table is
(tests/test_exitcodes.py): an option added, renamed or dropped, a metavar or a status changed, and
these fail until the README says the same."""

from __future__ import annotations

import re
from typing import Any, get_args

import pytest

from memwarm_cli.backends.agent_status import Verdict
from memwarm_cli.backends.init.init_report import Status as InitStatus
from memwarm_cli.bootstrap.context_plan import BootstrapStatus
from memwarm_cli.cli.app import build_command
from memwarm_cli.startup.plan import Status as ScanStatus
from tests.conftest import REPO_ROOT

README = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
ROOT = build_command()


def _leaves(command: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    subs = getattr(command, "commands", None)
    if subs is None:
        return [(path, command)]
    return [leaf for name, sub in subs.items() for leaf in _leaves(sub, (*path, name))]


LEAVES = _leaves(ROOT)


def _synopses() -> dict[tuple[str, ...], str]:
    """Every usage line of the README's command sections (the unlabelled block after each `### \\`memwarm
    ...\\`` heading), joined with its continuation lines, keyed by the command path it names."""
    found: dict[tuple[str, ...], str] = {}
    for block in re.findall(r"^### `memwarm [^`]+`\n\n```\n(.*?)\n```", README, flags=re.M | re.S):
        lines: list[str] = []
        for line in block.splitlines():
            if line.startswith("memwarm "):
                lines.append(line)
            else:
                lines[-1] += " " + line.strip()
        for line in lines:
            words = line.removeprefix("memwarm ").removeprefix("[--config PATH] ").split(" ")
            path = tuple(w for w in words[:2] if re.fullmatch(r"[a-z][a-z-]*", w))
            while path and path not in {p for p, _ in LEAVES}:
                path = path[:-1]
            found[path] = line
    return found


SYNOPSES = _synopses()


def _mentions(synopsis: str, path: tuple[str, ...]) -> list[tuple[str, str | None, bool]]:
    """(spelling, metavar or None, repeated) of every option and argument in a usage line."""
    rest = synopsis.split(" ".join(path), 1)[1]
    found: list[tuple[str, str | None, bool]] = []
    for group, repeated, bare in re.findall(r"\[([^\[\]]+)\](\.\.\.)?|(\S+)", rest):
        for alternative in (group or bare).split(" | "):
            words = alternative.split()
            if not words:
                continue
            spelling, metavar = words[0], words[1] if len(words) > 1 else None
            found.append((spelling, metavar, bool(repeated)))
    return found


def _metavar(param: Any) -> str | None:
    if getattr(param, "is_flag", False):
        return None
    choices = getattr(param.type, "choices", None)
    if param.metavar is None and choices is not None:  # an enum: click shows <a|b|c>
        return "|".join(str(choice) for choice in choices)
    metavar = param.metavar or param.name.upper()
    return str(metavar).strip("<>")


GLOBAL_PARAMS = ("config", "openclaw")


@pytest.mark.parametrize(("path", "command"), LEAVES, ids=[" ".join(p) for p, _ in LEAVES])
def test_the_usage_line_names_exactly_the_commands_options(path: tuple[str, ...], command: Any) -> None:
    assert path in SYNOPSES, f"README: no usage line for `memwarm {' '.join(path)}` under its ### heading"
    synopsis = SYNOPSES[path]
    if path != ("completion",):  # it reads no config
        assert synopsis.startswith(f"memwarm [--config PATH] {' '.join(path)}")
    by_spelling = {}
    for param in command.params:
        # The global options: `[--config PATH]` before the command; `--openclaw VERSION`, which every
        # command takes too, is documented once, in the README's "OpenClaw releases".
        if param.name in GLOBAL_PARAMS:
            continue
        spellings = getattr(param, "opts", []) + getattr(param, "secondary_opts", [])
        if param.param_type_name == "argument":
            spellings = [_metavar(param)]
        for spelling in spellings:
            by_spelling[spelling] = param
    seen = set()
    for spelling, metavar, repeated in _mentions(synopsis, path):
        param = by_spelling.get(spelling)
        assert param is not None, (
            f"README names {spelling} for memwarm {' '.join(path)}, the command has none"
        )
        seen.add(param.name)
        if param.param_type_name == "argument":
            continue
        assert metavar == _metavar(param), (spelling, metavar, _metavar(param))
        assert repeated == bool(getattr(param, "multiple", False)), spelling
    options = {p.name for p in command.params if p.name not in GLOBAL_PARAMS}
    assert seen == options, f"not in the README's usage line: {sorted(options - seen)}"


def _table(heading: str, first_column: str) -> list[str]:
    """The first column of the Markdown table that follows `heading` (its cells' code spans)."""
    start = README.index(heading)
    match = re.search(rf"^\s*\| {first_column} \|.*\n\s*\|---.*\n((?:\s*\|.*\n)+)", README[start:], re.M)
    assert match is not None, f"README: no | {first_column} | table after {heading!r}"
    return [re.match(r"\s*\| `([^`]+)`", row).group(1) for row in match.group(1).splitlines()]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("heading", "column", "vocabulary"),
    [
        ("### `memwarm scan`", "status", [s.value for s in ScanStatus]),
        ("**Bootstrap statuses**", "status", [s.value for s in BootstrapStatus]),
        ("### `memwarm init-backends`", "status", list(get_args(InitStatus))),
        ("**Verdicts**", "verdict", None),
    ],
    ids=["scan", "context", "init-backends", "status"],
)
def test_each_status_table_is_the_vocabulary_in_the_code(
    heading: str, column: str, vocabulary: list[str] | None
) -> None:
    rows = _table(heading, column)
    if vocabulary is None:  # status's verdicts: the table's order is the order they are decided in
        assert sorted(rows) == sorted(get_args(Verdict))
        assert rows[0] == "skipped" and rows[-1] == "warm"
        return
    assert rows == vocabulary
