"""The golden cases the suite reads live in tests/golden/, a copy of the workspace's ../shared/parity.

    python3 scripts/golden.py copy  [--source DIR]   # refresh tests/golden/ from the source, rewrite MANIFEST
    python3 scripts/golden.py check [--source DIR]   # is the copy intact, and equal to the source?

`check` always verifies every file of tests/golden/ against tests/golden/MANIFEST.sha256 (nothing missing,
nothing added, no byte changed); when the source exists (by default ../shared/parity beside the
repository) it also requires the source to hold exactly the same files and bytes. A clone with no
../shared checks its own copy only. Exit 0 when everything matches, 1 with one line per difference.
Standard library only: `make golden-check` runs it without the venv.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
GOLDEN_DIR = REPO / "tests" / "golden"
DEFAULT_SOURCE = REPO.parent / "shared" / "parity"
MANIFEST_NAME = "MANIFEST.sha256"


def digest_tree(root: Path) -> dict[str, str]:
    """sha256 of every regular file below `root` (the manifest itself excluded), by POSIX relative path."""
    digests = {}
    for path in sorted(root.rglob("*")):
        if path.is_file() and path.name != MANIFEST_NAME:
            digests[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


def read_manifest(root: Path) -> dict[str, str]:
    entries = {}
    for line in (root / MANIFEST_NAME).read_text(encoding="utf-8").splitlines():
        digest, _, name = line.partition("  ")
        entries[name] = digest
    return entries


def write_manifest(root: Path, digests: dict[str, str]) -> None:
    text = "".join(f"{digest}  {name}\n" for name, digest in sorted(digests.items()))
    (root / MANIFEST_NAME).write_text(text, encoding="utf-8")


def differences(expected: dict[str, str], actual: dict[str, str], expected_label: str) -> list[str]:
    lines = []
    for name in sorted(expected.keys() | actual.keys()):
        if name not in actual:
            lines.append(f"missing from tests/golden: {name} (in {expected_label})")
        elif name not in expected:
            lines.append(f"not in {expected_label}: tests/golden/{name}")
        elif expected[name] != actual[name]:
            lines.append(f"differs from {expected_label}: tests/golden/{name}")
    return lines


def copy(source: Path) -> int:
    if not source.is_dir():
        print(f"golden: no source at {source}", file=sys.stderr)
        return 1
    shutil.rmtree(GOLDEN_DIR, ignore_errors=True)
    shutil.copytree(source, GOLDEN_DIR)
    for path in GOLDEN_DIR.rglob("*"):  # the source is read-only; the copy is ours to edit and remove
        path.chmod(0o755 if path.is_dir() else 0o644)
    GOLDEN_DIR.chmod(0o755)
    digests = digest_tree(GOLDEN_DIR)
    write_manifest(GOLDEN_DIR, digests)
    print(f"golden: copied {len(digests)} files from {source} into {GOLDEN_DIR.relative_to(REPO)}")
    return 0


def check(source: Path) -> int:
    if not (GOLDEN_DIR / MANIFEST_NAME).is_file():
        print(f"golden: {GOLDEN_DIR.relative_to(REPO)}/{MANIFEST_NAME} is missing", file=sys.stderr)
        return 1
    copy_digests = digest_tree(GOLDEN_DIR)
    problems = differences(read_manifest(GOLDEN_DIR), copy_digests, MANIFEST_NAME)
    if source.is_dir():
        problems += differences(digest_tree(source), copy_digests, str(source))
        against = f"{MANIFEST_NAME} and {source}"
    else:
        against = f"{MANIFEST_NAME} ({source} not present)"
    for line in problems:
        print(f"golden: {line}", file=sys.stderr)
    if problems:
        print(
            "golden: refresh with `python3 scripts/golden.py copy` if the source changed on purpose",
            file=sys.stderr,
        )
        return 1
    print(f"golden: {len(copy_digests)} files match {against}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("action", choices=("copy", "check"))
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE, help="default: ../shared/parity")
    args = parser.parse_args(argv)
    return copy(args.source) if args.action == "copy" else check(args.source)


if __name__ == "__main__":
    sys.exit(main())
