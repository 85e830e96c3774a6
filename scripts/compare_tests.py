"""Do the tests still assert what they asserted? Compares a git revision's test suite with the work tree.

    .venv/bin/python scripts/compare_tests.py BASE_REV

1. Test ids: `pytest --collect-only -q` in a throw-away clone at BASE_REV and in the work tree; every id
   collected before must still be collected.
2. Assertions: for every function in tests/ (tests, fixtures and helpers alike), the `assert`
   statements (their condition; the message only explains a failure) and `pytest.raises(...)` /
   `pytest.fail(...)` calls, as source text (ast.unparse, so formatting does not count). A function
   whose list changed is printed with what it lost and gained; so is one that vanished.

Exit 0 when no id disappeared and no function lost or changed an assertion, else 1 (read the listing:
a deliberate change, e.g. a helper that now reads `stdout_bytes`, is for a person to judge).
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def collected_ids(root: Path) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:xdist"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    if proc.returncode != 0:
        raise SystemExit(f"collection failed in {root}:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return {line for line in proc.stdout.splitlines() if "::" in line}


def _is_assertion(node: ast.AST) -> bool:
    if isinstance(node, ast.Assert):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        owner = node.func.value
        return isinstance(owner, ast.Name) and owner.id == "pytest" and node.func.attr in ("raises", "fail")
    return False


def _text(node: ast.AST) -> str:
    # An assert's message only explains a failure: a changed message is not a changed assertion.
    return f"assert {ast.unparse(node.test)}" if isinstance(node, ast.Assert) else ast.unparse(node)


def assertions(root: Path) -> dict[str, list[str]]:
    """`<file>::<function>` (methods as `Class.method`) -> the assertions in it, in source order."""
    found: dict[str, list[str]] = {}
    for path in sorted((root / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        rel = path.relative_to(root).as_posix()

        def visit(node: ast.AST, prefix: str, rel: str = rel) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                    name = f"{prefix}{child.name}"
                    found[f"{rel}::{name}"] = [
                        _text(n) for n in ast.walk(child) if _is_assertion(n) and n is not child
                    ]
                    visit(child, f"{name}.")
                elif isinstance(child, ast.ClassDef):
                    visit(child, f"{prefix}{child.name}.")

        visit(tree, "")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("base", help="the git revision to compare with (e.g. main)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memwarm-compare-") as tmp:
        base = Path(tmp) / "base"
        subprocess.run(["git", "clone", "--quiet", str(REPO), str(base)], check=True)
        subprocess.run(["git", "-C", str(base), "checkout", "--quiet", args.base], check=True)
        # The clone's tests read ../shared like the work tree's do.
        shared = REPO.parent / "shared"
        if shared.exists() and not (Path(tmp) / "shared").exists():
            (Path(tmp) / "shared").symlink_to(shared)
        before_ids, before_asserts = collected_ids(base), assertions(base)
    after_ids, after_asserts = collected_ids(REPO), assertions(REPO)

    failed = False
    gone = sorted(before_ids - after_ids)
    print(f"test ids: {len(before_ids)} before, {len(after_ids)} after, {len(after_ids - before_ids)} new")
    for test_id in gone:
        failed = True
        print(f"  NOT COLLECTED ANY MORE: {test_id}")

    total_before = sum(len(v) for v in before_asserts.values())
    total_after = sum(len(v) for v in after_asserts.values())
    print(f"assertions: {total_before} before in {len(before_asserts)} functions, {total_after} after")
    for name, before in sorted(before_asserts.items()):
        after = after_asserts.get(name)
        if after == before or (after is None and not before):
            continue
        failed = True
        if after is None:
            print(f"  FUNCTION GONE: {name} (had {len(before)} assertions)")
            continue
        print(f"  CHANGED: {name}")
        for line in before:
            if line not in after:
                print(f"    - {line}")
        for line in after:
            if line not in before:
                print(f"    + {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
