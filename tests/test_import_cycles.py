"""No runtime import cycle in memwarm_cli: the strongly connected components of the module import graph
are all single modules.

The layer test (test_layers.py) checks imports between units; a cycle inside one unit passes it, and a
function-level import hides one from a reader (it only fails, half-initialised, when the two modules
happen to load in the other order). Every import counts, at any depth, inside functions too; only those
under `if TYPE_CHECKING:` are left out, since they never run.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "memwarm_cli"


def _module_name(package: Path, path: Path) -> str:
    parts = list(path.relative_to(package.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _runtime_nodes(tree: ast.AST) -> Iterator[ast.AST]:
    """Every node that can run: the body of `if TYPE_CHECKING:` is skipped (its `else:` is not)."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            stack.extend(node.orelse)
            continue
        stack.extend(ast.iter_child_nodes(node))


def _imported(package: Path, path: Path, modules: frozenset[str]) -> set[str]:
    """The memwarm_cli modules one file imports when it runs: `from a import b` is a.b when b is a
    module, else a; importing a.b also runs a's __init__, but a package's __init__ importing its own
    submodules is the normal package shape, not a cycle, so parents are not counted."""
    own = _module_name(package, path)
    base_package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    found: set[str] = set()
    for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = base_package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                source = ".".join([*parts, node.module] if node.module else parts)
            else:
                source = node.module or ""
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.add(submodule if submodule in modules else source)
    return {name for name in found if name in modules and name != own}


def import_graph(package: Path) -> dict[str, set[str]]:
    paths = sorted(package.rglob("*.py"))
    modules = frozenset(_module_name(package, path) for path in paths)
    return {_module_name(package, path): _imported(package, path, modules) for path in paths}


def strongly_connected_components(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (the graph is a few hundred modules deep at most)."""
    index: dict[str, int] = {}
    lowlink: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    components: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = lowlink[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for successor in successors:
                if successor not in index:
                    index[successor] = lowlink[successor] = len(index)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(sorted(graph[successor]))))
                    advanced = True
                    break
                if successor in on_stack:
                    lowlink[node] = min(lowlink[node], index[successor])
            if advanced:
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                lowlink[parent] = min(lowlink[parent], lowlink[node])
            if lowlink[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def test_no_runtime_import_cycle() -> None:
    cycles = [c for c in strongly_connected_components(import_graph(PACKAGE)) if len(c) > 1]
    assert cycles == []


@pytest.mark.parametrize(
    ("files", "cycle"),
    [
        pytest.param(
            {"a.py": "from memwarm_cli import b\n", "b.py": "def f():\n    from memwarm_cli.a import x\n"},
            ["memwarm_cli.a", "memwarm_cli.b"],
            id="function-level",
        ),
        pytest.param(
            {
                "p/__init__.py": "",
                "p/a.py": "from .b import y\n",
                "p/b.py": "from . import c\n",
                "p/c.py": "class K:\n    def m(self):\n        import memwarm_cli.p.a\n",
            },
            ["memwarm_cli.p.a", "memwarm_cli.p.b", "memwarm_cli.p.c"],
            id="relative-and-nested",
        ),
        pytest.param(
            {
                "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import memwarm_cli.b\n",
                "b.py": "from memwarm_cli import a\n",
            },
            None,
            id="type-checking-only",
        ),
        pytest.param(
            {
                "a.py": "import typing\nif typing.TYPE_CHECKING:\n    pass\nelse:\n    from . import b\n",
                "b.py": "import memwarm_cli.a\n",
            },
            ["memwarm_cli.a", "memwarm_cli.b"],
            id="type-checking-else",
        ),
    ],
)
def test_the_cycle_check_sees_every_kind_of_import(
    tmp_path: Path, files: dict[str, str], cycle: list[str] | None
) -> None:
    """The check itself: cycles through function-level, relative and nested imports are found; one that
    exists only under TYPE_CHECKING is not a runtime cycle."""
    package = tmp_path / "memwarm_cli"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    for name, code in files.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(code, encoding="utf-8")
    cycles = [c for c in strongly_connected_components(import_graph(package)) if len(c) > 1]
    assert cycles == ([cycle] if cycle else [])
