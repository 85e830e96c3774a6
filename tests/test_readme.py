"""The README and the pages of docs/ are checked against the code, as the exit-code table is
(tests/test_exitcodes.py): an option added, renamed or dropped, a metavar or a status changed, a module
renamed, a package added, a page or a heading moved, and these fail until the documentation says the
same. Each command's usage line lives in its page, `docs/<command>.md`, in the unlabelled block right
under its `` # `memwarm <command>` `` heading."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any, get_args

import pytest

from memwarm_cli.backends.agent_status import VERDICTS
from memwarm_cli.backends.init.init_report import Status as InitStatus
from memwarm_cli.backends.qmd.qmd_diagnosis import QMD_INSTALL
from memwarm_cli.bootstrap.context_plan import BootstrapStatus
from memwarm_cli.cli.app import build_command
from memwarm_cli.startup.file_rows import Status as ScanStatus
from tests.conftest import REPO_ROOT

README_PATH = REPO_ROOT / "README.md"
DOCS_DIR = REPO_ROOT / "docs"
README = README_PATH.read_text(encoding="utf-8")
DOCS = {page.name: page.read_text(encoding="utf-8") for page in sorted(DOCS_DIR.glob("*.md"))}
PAGES = {README_PATH: README, **{DOCS_DIR / name: text for name, text in DOCS.items()}}
ROOT = build_command()


def _leaves(command: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    subs = getattr(command, "commands", None)
    if subs is None:
        return [(path, command)]
    return [leaf for name, sub in subs.items() for leaf in _leaves(sub, (*path, name))]


LEAVES = _leaves(ROOT)
LEAF_PATHS = {p for p, _ in LEAVES}


def _section(text: str, heading: str) -> str:
    """The body of a `## ` section, up to the next `## ` heading."""
    return text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


def _without_code_blocks(text: str) -> str:
    """The Markdown outside fenced blocks (a `# ~/.config/...` line in a unit file is no heading)."""
    return re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)


def _synopses() -> dict[tuple[str, ...], tuple[str, str]]:
    """Every usage line of the command pages (the unlabelled block after each `` # `memwarm ...` ``
    heading), joined with its continuation lines, keyed by the command path it names: (page, line)."""
    found: dict[tuple[str, ...], tuple[str, str]] = {}
    for page, text in DOCS.items():
        for block in re.findall(r"^#{1,3} `memwarm [^`]+`\n\n```\n(.*?)\n```", text, flags=re.M | re.S):
            lines: list[str] = []
            for line in block.splitlines():
                if line.startswith("memwarm "):
                    lines.append(line)
                else:
                    lines[-1] += " " + line.strip()
            for line in lines:
                words = line.removeprefix("memwarm ").removeprefix("[--config PATH] ").split(" ")
                path = tuple(w for w in words[:2] if re.fullmatch(r"[a-z][a-z-]*", w))
                while path and path not in LEAF_PATHS:
                    path = path[:-1]
                found[path] = (page, line)
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
    assert path in SYNOPSES, f"docs/: no usage line for `memwarm {' '.join(path)}` under its # heading"
    page, synopsis = SYNOPSES[path]
    assert page == f"{path[0]}.md", f"the usage line of memwarm {' '.join(path)} is in docs/{page}"
    if path != ("completion",):  # it reads no config
        assert synopsis.startswith(f"memwarm [--config PATH] {' '.join(path)}")
    by_spelling = {}
    for param in command.params:
        # The global options: `[--config PATH]` before the command; `--openclaw VERSION`, which every
        # command takes too, is documented once, in docs/options.md and docs/releases.md.
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
            f"docs/{page} names {spelling} for memwarm {' '.join(path)}, the command has none"
        )
        seen.add(param.name)
        if param.param_type_name == "argument":
            continue
        assert metavar == _metavar(param), (spelling, metavar, _metavar(param))
        assert repeated == bool(getattr(param, "multiple", False)), spelling
    options = {p.name for p in command.params if p.name not in GLOBAL_PARAMS}
    assert seen == options, f"not in the usage line of docs/{page}: {sorted(options - seen)}"


def _table(page: str, heading: str, first_column: str) -> list[str]:
    """The first column of the Markdown table that follows `heading` in docs/`page` (its code spans)."""
    text = DOCS[page]
    start = text.index(heading)
    match = re.search(rf"^\s*\| {first_column} \|.*\n\s*\|---.*\n((?:\s*\|.*\n)+)", text[start:], re.M)
    assert match is not None, f"docs/{page}: no | {first_column} | table after {heading!r}"
    return [re.match(r"\s*\| `([^`]+)`", row).group(1) for row in match.group(1).splitlines()]  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("page", "heading", "column", "vocabulary"),
    [
        ("scan.md", "**Statuses**", "status", [s.value for s in ScanStatus]),
        ("context.md", "**Bootstrap statuses**", "status", [s.value for s in BootstrapStatus]),
        ("init-backends.md", "**Statuses**", "status", list(get_args(InitStatus))),
        ("status.md", "**Verdicts**", "verdict", None),
    ],
    ids=["scan", "context", "init-backends", "status"],
)
def test_each_status_table_is_the_vocabulary_in_the_code(
    page: str, heading: str, column: str, vocabulary: list[str] | None
) -> None:
    rows = _table(page, heading, column)
    if vocabulary is None:  # status's verdicts: the table's order is the order they are decided in
        assert sorted(rows) == sorted(VERDICTS)
        assert rows[0] == "skipped" and rows[-1] == "warm"
        return
    assert rows == vocabulary


# --- the README's index of commands and pages ------------------------------------------------------


def test_the_commands_index_links_each_command_to_its_page() -> None:
    index = _section(README, "## Commands")
    linked = dict(re.findall(r"^- \[`memwarm ([a-z-]+)[^`]*`\]\(docs/([^)#]+)\)", index, flags=re.M))
    commands = sorted({path[0] for path in LEAF_PATHS})
    assert sorted(linked) == commands, "the README's Commands index has one line per command"
    assert all(page == f"{name}.md" for name, page in linked.items()), linked


def _links(text: str) -> list[str]:
    return re.findall(r"\]\(([^)\s]+)\)", _without_code_blocks(text))


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {link.split("#", 1)[0] for link in _links(README)}
    assert DOCS, "no docs/*.md pages"
    assert sorted(set(DOCS) - {name.removeprefix("docs/") for name in linked}) == []


def _slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(text: str) -> set[str]:
    anchors: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+)$", _without_code_blocks(text), flags=re.M):
        slug, n = _slug(heading), 1
        while slug in anchors:  # GitHub numbers repeated headings: -1, -2, ...
            slug, n = f"{_slug(heading)}-{n}", n + 1
        anchors.add(slug)
    return anchors


@pytest.mark.parametrize("page", list(PAGES), ids=[p.relative_to(REPO_ROOT).as_posix() for p in PAGES])
def test_every_relative_link_resolves(page: Path) -> None:
    for link in _links(PAGES[page]):
        if re.match(r"[a-z]+:", link):  # https:, mailto:
            continue
        target, _, anchor = link.partition("#")
        resolved = (page.parent / target).resolve() if target else page
        assert resolved.exists(), f"{page.name}: {link} leads nowhere"
        if anchor:
            assert resolved.suffix == ".md", link
            text = PAGES.get(resolved) or resolved.read_text(encoding="utf-8")
            assert anchor in _anchors(text), f"{page.name}: no heading for #{anchor} in {resolved.name}"


_PACKAGE = REPO_ROOT / "memwarm_cli"
_SOURCE_NAMES = {
    path.name for top in ("memwarm_cli", "tests", "bench", "scripts") for path in (REPO_ROOT / top).rglob("*")
}


@pytest.mark.parametrize("page", list(PAGES), ids=[p.relative_to(REPO_ROOT).as_posix() for p in PAGES])
def test_every_module_and_source_path_named_exists(page: Path) -> None:
    """`memwarm_cli/backends/state/state_files.py`, `cli/completion.py` (under memwarm_cli/) and bare
    `qmd_commands.py` name files of the tree: a module merged away or renamed must not stay named."""
    for span in re.findall(r"`([^`\s<>]+)`", PAGES[page]):
        parts = span.split("/")
        if span.endswith(".py") and "/" not in span:
            assert span in _SOURCE_NAMES, f"{page.name}: no module {span}"
        elif span.endswith(".py") or (
            parts[0] in {"memwarm_cli", "tests", "bench", "scripts", "toolchain", "sample_workspace", "docs"}
            and not any(part.startswith(".") for part in parts)
        ):
            assert (REPO_ROOT / span).exists() or (_PACKAGE / span).exists(), f"{page.name}: no {span}"


# --- First run --------------------------------------------------------------------------------------

FIRST_RUN = _section(README, "## First run on your own OpenClaw")


def _commands(block: str) -> list[list[str]]:
    return [words for line in block.splitlines() if (words := shlex.split(line, comments=True))]


def test_the_first_runs_memwarm_commands_parse() -> None:
    """Each `memwarm ...` line of the First run names a command of the tree with options it takes."""
    (block,) = re.findall(r"^```sh\n(.*?)^```", FIRST_RUN, flags=re.M | re.S)
    commands = [words for words in _commands(block) if words[0] == "memwarm"]
    named = [words[1] for words in commands]
    assert named == ["config", "prelude", "context", "init-backends", "init-backends", "status"], named
    for words in commands:
        command: Any = ROOT
        rest = words[1:]
        while getattr(command, "commands", None) is not None:
            assert rest and rest[0] in command.commands, f"no command {' '.join(words)}"
            command, rest = command.commands[rest[0]], rest[1:]
        # click parses the options as a run would: an unknown option or a bad value raises UsageError.
        command.make_context(command.name, list(rest))


def test_the_first_runs_installs_are_the_install_sections_commands() -> None:
    """The First run repeats the Install section's pinned commands word for word, and its crontab is the
    one tests/test_install.py runs (docs/install.md holds the same)."""
    (block,) = re.findall(r"^```sh\n(.*?)^```", FIRST_RUN, flags=re.M | re.S)
    installs = [words for words in _commands(block) if words[0] != "memwarm"]
    install_blocks = re.findall(r"^```sh\n(.*?)^```", _section(README, "## Install"), flags=re.M | re.S)
    documented = [words for block in install_blocks for words in _commands(block)]
    assert [words[0] for words in installs] == ["pipx", "node", "npm"]
    assert all(words in documented for words in installs), installs
    assert shlex.split(QMD_INSTALL) in installs  # pinned, the command memwarm's own hints name
    (crontab,) = re.findall(r"^```cron\n(.*?)^```", FIRST_RUN, flags=re.M | re.S)
    assert crontab in re.findall(r"^```cron\n(.*?)^```", DOCS["install.md"], flags=re.M | re.S)


def test_every_qmd_install_named_is_the_pinned_one() -> None:
    """README, docs and memwarm's own hints name one qmd install command, pinned (an unpinned install on
    Node.js < 22 gets the bun-only 0.9.0): `QMD_INSTALL`, the constant the hints are built from."""
    assert QMD_INSTALL == "npm install -g @tobilu/qmd@2.8.3"
    texts = {"README.md": README, **{f"docs/{name}": text for name, text in DOCS.items()}}
    named = {
        (where, match.group())
        for where, text in texts.items()
        for match in re.finditer(r"npm install -g @tobilu/qmd[@\w.]*", text.replace("\n  ", " "))
    }
    assert named and all(command.startswith(QMD_INSTALL) for _, command in named), named
    assert any(where == "README.md" for where, _ in named)


# --- Layout -----------------------------------------------------------------------------------------

LAYOUT = _section(README, "## Layout")
_LAYOUT_LINES = re.findall(r"^- `([^`]+)`: (.*)$", LAYOUT, flags=re.M)


def test_every_path_in_the_layout_exists() -> None:
    """Each line names a path of the tree, and the bare `*.py` names on it are modules of that path."""
    assert _LAYOUT_LINES
    for path, description in _LAYOUT_LINES:
        assert (REPO_ROOT / path).exists(), f"Layout: no {path}"
        for module in re.findall(r"`([\w]+\.py)`", description):
            assert (REPO_ROOT / path / module).is_file(), f"Layout: no {path}{module}"


def test_the_layout_names_every_package_and_top_level_module() -> None:
    named = {path.rstrip("/") for path, _ in _LAYOUT_LINES}
    packages = {init.parent.relative_to(REPO_ROOT).as_posix() for init in _PACKAGE.rglob("__init__.py")}
    assert sorted(packages - named) == [], "packages without a line in the README's Layout"
    base = dict(_LAYOUT_LINES)["memwarm_cli/"]
    modules = {f"memwarm_cli/{name}" for name in re.findall(r"`([\w]+\.py)`", base)} | named
    top_level = {
        f"memwarm_cli/{module.name}"
        for module in _PACKAGE.glob("*.py")
        if module.stem not in ("__init__", "__main__")
    }
    assert sorted(top_level - modules) == [], "top-level modules the README's Layout does not name"


def test_the_readme_names_make_interop_and_what_the_tools_take_on_disk() -> None:
    """A newcomer learns of `make interop` (a target of the Makefile) and what `make tools` and `make
    interop` put in tools/ before running them (measured with du on a full tools/)."""
    makefile = (REPO_ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^interop:", makefile, flags=re.M) and re.search(r"^tools:", makefile, flags=re.M)
    assert "make interop" in _section(README, "## Quick start (development)")
    disk = re.search(
        r"Disk: `make tools` puts about ([\d.]+) GB in `tools/`.*?`make\s+interop` about ([\d.]+) GB",
        README,
        flags=re.S,
    )
    assert disk is not None and all(float(size) > 0 for size in disk.groups())
    assert "(about 1.1 GB on" in _section(README, "## Install")
