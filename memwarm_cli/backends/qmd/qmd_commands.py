"""Every qmd command line memwarm runs, built in one place (the arguments after the command itself).

`init-backends`, its `--dry-run` plan, the benchmark and the tests all take them from here, so what is
planned, run and measured cannot drift apart. The argument spelling is upstream's (memory-backends.md
§5.3-§5.5), against qmd 2.8.3.
"""

from __future__ import annotations

from collections.abc import Iterable

from memwarm_cli.backends.settings.qmd_collections import CollectionSpec

Args = tuple[str, ...]


def version_args() -> Args:
    return ("--version",)


def collection_list_args() -> Args:
    """As upstream runs it; qmd 2.8.3 ignores `--json` and prints text (qmd_output.parse_collection_list)."""
    return ("collection", "list", "--json")


def collection_add_args(spec: CollectionSpec) -> Args:
    return ("collection", "add", str(spec.path), "--name", spec.name, "--mask", spec.pattern)


def collection_remove_args(name: str) -> Args:
    return ("collection", "remove", name)


def update_args() -> Args:
    return ("update",)


def embed_args() -> Args:
    return ("embed",)


def probe_args(mode: str, query: str, limit: int, collections: Iterable[str]) -> Args:
    """A search as OpenClaw runs it: `<mode> <query> --json -n <limit> -c <name>...` (mode: search,
    vsearch or query; qmd 2.8.3 takes `-c` more than once)."""
    args = [mode, query, "--json", "-n", str(limit)]
    for name in collections:
        args += ["-c", name]
    return tuple(args)
