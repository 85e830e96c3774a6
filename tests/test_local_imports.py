"""Every function-level import in memwarm_cli says why it is not at the top of its module.

Imports belong at module level; one inside a function keeps a measured cost off some command (Rich off a
pipe, the qmd backend off `--help`, a module off a fast command's pinned set in cli/test_imports.py) or
waits for something (a signal handler), and a comment on its line or on the line just above says which.
An import without one is either a hoist not yet done or a reason not yet written down.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "memwarm_cli"


def _comment_lines(source: str) -> tuple[set[int], set[int]]:
    """The lines holding a comment, and those holding nothing else."""
    anywhere: set[int] = set()
    alone: set[int] = set()
    lines = source.splitlines()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            row = token.start[0]
            anywhere.add(row)
            if lines[row - 1].lstrip().startswith("#"):
                alone.add(row)
    return anywhere, alone


def unexplained_imports(source: str) -> Iterator[int]:
    """The line of each import inside a function with no comment on that line or alone on the one above."""
    anywhere, alone = _comment_lines(source)
    seen: set[int] = set()
    for function in ast.walk(ast.parse(source)):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and node.lineno not in seen:
                seen.add(node.lineno)
                if node.lineno not in anywhere and node.lineno - 1 not in alone:
                    yield node.lineno


def test_every_function_level_import_says_why() -> None:
    bare = [
        f"{path.relative_to(PACKAGE.parent)}:{line}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for line in unexplained_imports(path.read_text(encoding="utf-8"))
    ]
    assert bare == []


@pytest.mark.parametrize(
    ("source", "bare"),
    [
        pytest.param("import os\n\n\ndef f():\n    return os\n", [], id="module-level"),
        pytest.param("def f():\n    import json\n", [2], id="bare"),
        pytest.param("def f():\n    import json  # only --json\n", [], id="same-line"),
        pytest.param("def f():\n    # only --json\n    import json\n", [], id="line-above"),
        pytest.param(
            "def f():\n    # only --json\n    import json\n    import re\n", [4], id="one-comment-per-import"
        ),
        pytest.param("def f():\n    x = '#'\n    import json\n", [3], id="hash-in-a-string"),
        pytest.param("def f():\n    x = 1  # a note\n    import json\n", [3], id="trailing-comment-above"),
        pytest.param(
            "class C:\n    def m(self):\n        def g():\n            from a import b\n", [4], id="nested"
        ),
    ],
)
def test_the_check_reads_comments_as_written(source: str, bare: list[int]) -> None:
    assert list(unexplained_imports(source)) == bare
