"""The package's structure, checked: imports run only downward through the layers, module basenames are
unique, the core never imports typer or rich, and no module grows past ~400 lines without saying why.

LAYERS is the one place the layering is written down; a new package is added here by one line.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "memwarm_cli"

# Lowest first. A module may import from its own unit and from units of lower layers only; units that
# share a layer are siblings and must not import each other. A unit is a subpackage or a top-level
# module of memwarm_cli (`""` is the package's own __init__).
LAYERS: tuple[tuple[str, ...], ...] = (
    # base: one unit
    (
        "",
        "exitcodes",
        "errors",
        "jsstring",
        "textsafe",
        "durations",
        "boundary_read",
        "safe_files",
        "sqlite_driver",
        "frozen_records",
        "named_tuples",
        "os_paths",
        "datetime_types",
        "cancel",
        "exec_search",
    ),
    ("profiles",),  # OpenClaw releases: what each behaviour group does, and the run's choice
    ("config",),  # reading a config: discovery, formats, includes, ${VAR}, positions
    ("agents",),
    ("startup", "backends", "bootstrap"),
    ("session_context",),  # a session's bootstrap and startup plans, and its prelude gate, together
    ("configview",),  # checking and showing a config
    ("cli",),
    ("__main__",),  # `python -m memwarm_cli`
)
# Inside a unit, its subpackages and modules in the same way, lowest first (`""` is the unit's __init__,
# which may import nothing of its own unit). A unit not listed here is flat.
SUBLAYERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "backends": (
        ("",),
        ("settings", "sessions"),  # what the config asks for; transcripts to markdown
        ("state",),  # memwarm's own files and locks, never through a link
        ("qmd",),  # running qmd and reading what it says
        ("freshness",),  # walks, fingerprints, the one freshness judgement
        ("init",),  # init-backends: its steps, orchestrator and report
        ("agent_status", "agent_search", "retired"),  # status and search; where a release has no qmd
        ("builtin",),  # 2026.8.1+: the builtin index judged read-only, built by the release's own CLI
    ),
    "cli": (
        ("",),
        ("typer_private",),  # every private Typer/click/Rich name, in one module
        ("terminal",),  # the invocation's streams, output, signals, tables, view formats
        ("options",),
        ("commands", "completion"),
        ("app",),
        ("fastpath",),
        ("main",),
        ("console",),
    ),
}
BASE = frozenset(LAYERS[0])  # the base modules form one unit: they may import each other
UNITS = frozenset(unit for layer in LAYERS for unit in layer if unit)
CORE_FREE_OF = ("typer", "rich", "click")  # only cli/ talks to the terminal
MAX_LINES = 400
LONG_MODULE_MARKER = "longer than 400 lines"  # a long module says why in its docstring, with these words


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _unit(module: str) -> str:
    """`memwarm_cli.backends.init.agent_steps` -> `backends`; `memwarm_cli.errors` -> the base unit."""
    parts = module.split(".")
    name = parts[1] if len(parts) > 1 else ""
    return "<base>" if name in BASE else name


def _layer_of(unit: str) -> int:
    for index, layer in enumerate(LAYERS):
        if (unit == "<base>" and index == 0) or unit in layer:
            return index
    raise AssertionError(f"memwarm_cli.{unit} is in no layer: add it to LAYERS in {__file__}")


def _module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import, at any depth: inside functions and under TYPE_CHECKING too."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    package = _module_name(path) if path.name == "__init__.py" else _module_name(path).rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            if module == "memwarm_cli":  # `from memwarm_cli import backends` imports a unit too
                found.extend((node.lineno, f"{module}.{a.name}") for a in node.names if a.name in UNITS)
    return found


def test_every_module_is_in_a_layer() -> None:
    for path in _modules():
        _layer_of(_unit(_module_name(path)))


def test_imports_only_go_down_the_layers() -> None:
    wrong: list[str] = []
    for path in _modules():
        source = _unit(_module_name(path))
        own_layer = _layer_of(source)
        for line, module in _imports(path):
            if not module.startswith("memwarm_cli"):
                continue
            target = _unit(module)
            if target == source:
                continue
            if _layer_of(target) >= own_layer:
                where = path.relative_to(PACKAGE.parent)
                wrong.append(f"{where}:{line}: {source} imports {module} (layer {_layer_of(target)})")
    assert wrong == []


def _sublayer_of(unit: str, part: str) -> int:
    for index, layer in enumerate(SUBLAYERS[unit]):
        if part in layer:
            return index
    raise AssertionError(f"memwarm_cli.{unit}.{part} is in no sub-layer: add it to SUBLAYERS in {__file__}")


def _part(module: str) -> str:
    """`memwarm_cli.backends.qmd.process` -> `qmd`; `memwarm_cli.backends` -> `""`."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else ""


def test_every_module_of_a_layered_unit_is_in_a_sub_layer() -> None:
    for path in _modules():
        module = _module_name(path)
        if _unit(module) in SUBLAYERS:
            _sublayer_of(_unit(module), _part(module))


def test_imports_only_go_down_the_sub_layers() -> None:
    wrong: list[str] = []
    for path in _modules():
        module = _module_name(path)
        unit = _unit(module)
        if unit not in SUBLAYERS:
            continue
        source = _part(module)
        for line, imported in _imports(path):
            if not imported.startswith(f"memwarm_cli.{unit}") or _unit(imported) != unit:
                continue
            target = _part(imported)
            if target == source:
                continue
            if _sublayer_of(unit, target) >= _sublayer_of(unit, source):
                where = path.relative_to(PACKAGE.parent)
                wrong.append(f"{where}:{line}: {unit}.{source or '__init__'} imports {imported}")
    assert wrong == []


PRIVATE_NAME_HOME = "memwarm_cli/cli/typer_private.py"
STDLIB_UNDERSCORE_API = frozenset({"_exit", "_replace", "_asdict", "_fields", "_make"})  # public despite `_`


def _own_private_names() -> set[str]:
    """Every `_name` memwarm itself defines (functions, classes, attributes set on self, assignments)."""
    names: set[str] = set()
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name)
                and node.value.id in ("self", "cls")
            ):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
    return names


def test_private_typer_click_rich_names_are_touched_in_one_module() -> None:
    """A private module of typer, click or rich (`typer._click.core`), or a private attribute memwarm
    does not define itself (`param._custom_shell_complete`), changes without notice between releases:
    cli/typer_private.py holds every such touch, so an upgrade has one place to look."""
    own = _own_private_names()
    wrong = []
    for path in _modules():
        where = path.relative_to(PACKAGE.parent).as_posix()
        if where == PRIVATE_NAME_HOME:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
            elif isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            else:
                modules = []
            for module in modules:
                head, *rest = module.split(".")
                if head in CORE_FREE_OF and any(part.startswith("_") for part in rest):
                    wrong.append(f"{where}:{getattr(node, 'lineno', '?')}: {module}")
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
                and node.attr not in own | STDLIB_UNDERSCORE_API
            ):
                wrong.append(f"{where}:{node.lineno}: .{node.attr}")
    assert wrong == []


def test_core_never_imports_the_terminal_libraries() -> None:
    wrong = [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {module}"
        for path in _modules()
        if _unit(_module_name(path)) not in ("cli", "__main__")
        for line, module in _imports(path)
        if module.split(".")[0] in CORE_FREE_OF
    ]
    assert wrong == []


def test_module_basenames_are_unique() -> None:
    seen: dict[str, Path] = {}
    duplicates: list[str] = []
    for path in _modules():
        if path.name == "__init__.py":
            continue
        if path.name in seen:
            duplicates.append(f"{seen[path.name].relative_to(PACKAGE)} and {path.relative_to(PACKAGE)}")
        seen.setdefault(path.name, path)
    assert duplicates == []


def test_long_modules_say_why() -> None:
    unexplained = []
    for path in _modules():
        text = path.read_text(encoding="utf-8")
        doc = ast.get_docstring(ast.parse(text)) or ""
        if text.count("\n") > MAX_LINES and LONG_MODULE_MARKER not in doc:
            unexplained.append(f"{path.relative_to(PACKAGE)}: {text.count(chr(10))} lines")
    assert unexplained == []


@pytest.mark.parametrize(
    ("source", "code", "expected"),
    [
        ("config/x.py", "from memwarm_cli.agents import Agent\n", "config imports memwarm_cli.agents"),
        (
            "startup/x.py",
            "def f():\n    from memwarm_cli.backends import x\n",
            "startup imports memwarm_cli.backends",
        ),
        (
            "backends/x.py",
            "import typing\nif typing.TYPE_CHECKING:\n    from memwarm_cli.configview.check import y\n",
            "backends imports memwarm_cli.configview.check",
        ),
        ("config/x.py", "from ..startup import plan\n", "config imports memwarm_cli.startup"),
        ("errors.py", "from memwarm_cli import config\n", "<base> imports memwarm_cli.config"),
    ],
)
def test_the_layer_check_sees_every_kind_of_import(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str, code: str, expected: str
) -> None:
    """The check itself: a wrong import at module level, inside a function, under TYPE_CHECKING,
    relative, or of a whole unit, is reported."""
    package = tmp_path / "memwarm_cli"
    target = package / source
    target.parent.mkdir(parents=True)
    target.write_text(code, encoding="utf-8")
    monkeypatch.setattr(f"{__name__}.PACKAGE", package)
    with pytest.raises(AssertionError, match=expected.replace(".", r"\.")):
        test_imports_only_go_down_the_layers()
