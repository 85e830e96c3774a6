"""Every qmd command line memwarm runs, built in one place (the arguments after the command itself),
and how a search's answer is read (`parse_search_answer`, as OpenClaw 2026.6.35's `parseQmdQueryJson`).

`init-backends`, its `--dry-run` plan and `--probe`, `memwarm search`, the benchmark and the tests all
take them from here, so what is planned, run and measured cannot drift apart. The argument spelling is
upstream's (memory-backends.md §5.3-§5.5; research backend-635.md §3), against qmd 2.8.3.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.jsstring import js_trim

Args = tuple[str, ...]
_NO_RESULTS = re.compile(
    r"^(?:\[[^\]]+\]\s*)?(?:(?:warn(?:ing)?|info|error|qmd)\s*:\s*)+no results found\.?$"
)


class SearchAnswerError(ValueError):
    """qmd's answer to a search is no JSON array and no "no results" line."""


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


def search_args(
    mode: str, query: str, limit: int, collections: Iterable[str], *, no_rerank: bool = False
) -> Args:
    """A search as OpenClaw 2026.6.35 runs it (`buildSearchArgs` + `buildCollectionFilterArgs`):
    `<mode> <query> --json -n <limit> [--no-rerank] -c <name>...` (mode: search, vsearch or query; the
    query JS-trimmed; `--no-rerank` only for `query`, which the caller asks for when memory.qmd has
    searchMode "query" and rerank false; qmd 2.8.3 takes `-c` more than once).

    A query starting with `-` would be read by qmd's option parser as an option (qmd 2.8.3 then finds no
    query and prints its usage, exit 1; OpenClaw's search fails the same way): such a query goes after
    `--`, at the end, where qmd takes it as the query."""
    text = js_trim(query)
    options = ["--json", "-n", str(limit)]
    if no_rerank and mode == "query":
        options.append("--no-rerank")
    for name in collections:
        if name:
            options += ["-c", name]
    if text.startswith("-"):
        return (mode, *options, "--", text)
    return (mode, text, *options)


def probe_args(
    mode: str, query: str, limit: int, collections: Iterable[str], *, no_rerank: bool = False
) -> Args:
    """The `--probe` search: the agent's own search command line (`search_args`)."""
    return search_args(mode, query, limit, collections, no_rerank=no_rerank)


def _no_results(text: str) -> bool:
    """`isQmdNoResultsOutput`: a line saying "no results found" (with an optional log prefix)."""
    for line in text.split("\n"):
        norm = " ".join(line.lower().split())
        if norm in ("no results found", "no results found.") or (norm and _NO_RESULTS.match(norm)):
            return True
    return False


def parse_search_answer(stdout: str, stderr: str = "") -> list[dict[str, Any]]:
    """`parseQmdQueryJson`: qmd's answer as a list of hit objects; SearchAnswerError when it is none."""
    out, err = js_trim(stdout), js_trim(stderr)
    if (out and _no_results(out)) or (not out and err and _no_results(err)):
        return []
    if not out:
        raise SearchAnswerError("qmd query returned invalid JSON: stdout empty")
    try:
        data = _json_array(out)
        if data is None:
            first = _first_json_array(out)
            data = _json_array(first) if first is not None else None
    except RecursionError:  # nested deeper than the parser recurses: no answer of qmd's
        raise SearchAnswerError("qmd's answer is nested too deeply to be its JSON") from None
    if data is None:
        raise SearchAnswerError(f"qmd query returned invalid JSON: no JSON array in {out[:200]!r}")
    return [entry for entry in data if isinstance(entry, dict)]


def _json_array(text: str) -> list[Any] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, list) else None


def _first_json_array(text: str) -> str | None:
    """`extractFirstJsonArray`: from the first `[` to its matching `]`, strings skipped."""
    start = text.find("[")
    if start < 0:
        return None
    depth, in_string, escaped = 0, False, False
    for i in range(start, len(text)):
        ch = text[i]
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return None
