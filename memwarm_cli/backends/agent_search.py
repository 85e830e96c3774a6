"""`memwarm search`: an agent's memory search as OpenClaw's qmd backend runs it, without a gateway.

The command line is the probe's (qmd_commands.probe_args: `qmd <mode> <query> --json -n <limit>
-c <collection>...`), run with the agent's env (its XDG dirs and index) and its workspace as cwd, over
the managed collections the index holds (qmd refuses a `-c` it does not know), with
`memory.qmd.limits.timeoutMs` as its timeout. The hits are then turned into what the agent's
`memory_search` hands the model, as OpenClaw's QmdMemoryManager does (memory-backends.md §4, §6; where
the spec says no more than the limits' names, memwarm follows that manager and the README says so):

- each hit's docid is looked up in the index (`documents.hash LIKE '<docid>%' AND active = 1`); a hit
  that resolves to no active document of a managed collection is dropped;
- the path is workspace-relative when the file lies inside the workspace, else
  `qmd/<collection>/<path in the collection>`;
- the snippet is cut to `maxSnippetChars` UTF-16 units; its lines come from qmd's `@@ -<start>,<count>`
  header (else 1 to the snippet's line count);
- at most `maxResults` hits (`-n` can lower it, never raise it), then `maxInjectedChars` over the
  snippets in order: whole snippets while they fit, the first that does not is cut to what is left and
  ends the list.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

from memwarm_cli.agents import select_agent
from memwarm_cli.backends.qmd import qmd_commands
from memwarm_cli.backends.qmd.index_stats import IndexUnreadable, document_locations, read_index_stats
from memwarm_cli.backends.qmd.process import run_command
from memwarm_cli.backends.qmd.qmd_diagnosis import unavailable_hint
from memwarm_cli.backends.settings.agent_backend import AgentBackendSettings, resolve_agent_backend
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.backends.settings.qmd_paths import qmd_child_env
from memwarm_cli.backends.settings.qmd_settings import QmdLimits
from memwarm_cli.cancel import CancelToken
from memwarm_cli.config import LoadedConfig
from memwarm_cli.config.paths import is_directory
from memwarm_cli.errors import MemwarmError
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_length, js_slice

SEARCH_SCHEMA = 1
_SNIPPET_HEADER = re.compile(r"@@\s*-([0-9]+),([0-9]+)")


class SearchFailed(MemwarmError):
    """The search could not answer (exit 1): no index, a timeout, qmd failed."""


@record
class SearchHit:
    path: str  # workspace-relative, or qmd/<collection>/<path>
    start_line: int
    end_line: int
    score: float
    snippet: str
    source: str  # memory or sessions
    collection: str
    docid: str

    def to_json(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "startLine": self.start_line,
            "endLine": self.end_line,
            "score": self.score,
            "snippet": self.snippet,
            "source": self.source,
            "collection": self.collection,
            "docid": self.docid,
        }


@record
class SearchResult:
    agent_id: str
    mode: str
    query: str
    limit: int  # the -n qmd was asked for
    collections: tuple[str, ...]
    limits: QmdLimits
    hits: tuple[SearchHit, ...]
    qmd_hits: int  # what qmd answered, before the docid lookup and the limits
    argv: tuple[str, ...]
    duration_ms: int

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SEARCH_SCHEMA,
            "agent": self.agent_id,
            "mode": self.mode,
            "query": self.query,
            "maxResults": self.limit,
            "collections": list(self.collections),
            "limits": {
                "maxResults": self.limits.max_results,
                "maxSnippetChars": self.limits.max_snippet_chars,
                "maxInjectedChars": self.limits.max_injected_chars,
                "timeoutMs": self.limits.timeout_ms,
            },
            "qmdHits": self.qmd_hits,
            "argv": list(self.argv),
            "durationMs": self.duration_ms,
            "results": [hit.to_json() for hit in self.hits],
        }


def search_agent_memory(
    loaded: LoadedConfig,
    agent: str | None,
    query: str,
    *,
    mode: str | None = None,
    limit: int | None = None,
    token: CancelToken | None = None,
) -> SearchResult:
    """Run the agent's memory search. Raises UnknownAgentError (exit 2), SearchFailed (exit 1), and
    Cancelled when `token` is cancelled (once qmd's process group is gone)."""
    chosen = select_agent(loaded.data, loaded.env, agent)
    settings = resolve_agent_backend(
        loaded.data, chosen.id, chosen.entry, chosen.workspace, loaded.state_dir, loaded.env
    )
    qmd = settings.qmd
    if settings.memory_search is None:
        raise SearchFailed(f'memory search is disabled for agent "{chosen.id}"')
    if qmd is None:
        raise SearchFailed(f'agent "{chosen.id}" uses the builtin memory backend, not qmd')
    index_path = settings.paths.index_path
    collections = _searchable(settings, index_path)
    search_mode = mode or qmd.search_mode
    wanted = min(qmd.limits.max_results, limit) if limit is not None else qmd.limits.max_results
    args = qmd_commands.probe_args(search_mode, query, wanted, collections)
    workspace = settings.workspace
    env = qmd_child_env(loaded.env, settings.paths)
    cwd = workspace if is_directory(workspace) else loaded.state_dir
    result = run_command(
        qmd.command,
        args,
        env=env,
        cwd=cwd,
        timeout_ms=qmd.limits.timeout_ms,
        token=token or CancelToken(),
    )
    if result.timed_out:
        raise SearchFailed(
            f"qmd {search_mode} timed out after {qmd.limits.timeout_ms}ms (memory.qmd.limits.timeoutMs): "
            "the agent's memory search would fail the same way and fall back to the builtin index"
        )
    if result.spawn_error is not None:
        hint = unavailable_hint(qmd.command, env, cwd)
        raise SearchFailed(f"Memory search failed: {result.error_message()}; {hint}")
    if not result.ok:
        raise SearchFailed(f"Memory search failed: {result.error_message()}")
    entries = _entries(result.stdout)
    hits = _hits(settings, index_path, entries, wanted)
    return SearchResult(
        agent_id=chosen.id,
        mode=search_mode,
        query=query,
        limit=wanted,
        collections=tuple(collections),
        limits=qmd.limits,
        hits=tuple(hits),
        qmd_hits=len(entries),
        argv=result.argv,
        duration_ms=result.duration_ms,
    )


def _searchable(settings: AgentBackendSettings, index_path: Path) -> list[str]:
    """The managed collections the index holds, in config order."""
    first_run = "run memwarm init-backends first"
    try:
        stats = read_index_stats(index_path)
    except FileNotFoundError:
        raise SearchFailed(
            f'no qmd index for agent "{settings.agent_id}" ({index_path}): {first_run}'
        ) from None
    except IndexUnreadable as exc:
        raise SearchFailed(f"cannot read the qmd index {index_path}: {exc}") from None
    qmd = settings.qmd
    assert qmd is not None
    names = [spec.name for spec in qmd.collections if spec.name in stats.collections]
    if not names:
        raise SearchFailed(
            f'the qmd index of agent "{settings.agent_id}" holds none of its collections: {first_run}'
        )
    return names


def _entries(stdout: str) -> list[dict[str, Any]]:
    try:
        data = json.loads(stdout or "[]")
    except RecursionError:  # nested deeper than the parser recurses: no answer of qmd's
        raise SearchFailed("Memory search failed: qmd's answer is nested too deeply to be its JSON") from None
    except ValueError:
        raise SearchFailed(f"Memory search failed: qmd answered with no JSON: {stdout[:200]}") from None
    if not isinstance(data, list):
        raise SearchFailed("Memory search failed: qmd's answer is not a JSON array")
    return [entry for entry in data if isinstance(entry, dict)]


def _hits(
    settings: AgentBackendSettings, index_path: Path, entries: list[dict[str, Any]], limit: int
) -> list[SearchHit]:
    qmd = settings.qmd
    assert qmd is not None
    specs = {spec.name: spec for spec in qmd.collections}
    docids = [entry["docid"] for entry in entries if isinstance(entry.get("docid"), str)]
    try:
        locations = document_locations(index_path, docids)
    except (FileNotFoundError, IndexUnreadable) as exc:
        raise SearchFailed(f"cannot read the qmd index {index_path}: {exc}") from None
    hits: list[SearchHit] = []
    for entry in entries:
        docid = entry.get("docid")
        location = locations.get(docid) if isinstance(docid, str) else None
        spec = specs.get(location[0]) if location else None
        if location is None or spec is None or not isinstance(docid, str):
            continue
        raw = entry.get("snippet")
        snippet = js_slice(raw if isinstance(raw, str) else "", 0, qmd.limits.max_snippet_chars)
        start, end = snippet_lines(snippet)
        score = entry.get("score")
        hits.append(
            SearchHit(
                path=search_path(spec, location[1], settings.workspace),
                start_line=start,
                end_line=end,
                score=float(score) if isinstance(score, int | float) and not isinstance(score, bool) else 0.0,
                snippet=snippet,
                source="sessions" if spec.kind == "sessions" else "memory",
                collection=spec.name,
                docid=docid,
            )
        )
    return clamp_injected(hits[:limit], qmd.limits.max_injected_chars)


def snippet_lines(snippet: str) -> tuple[int, int]:
    """Lines from qmd's `@@ -<start>,<count>` header, else 1 to the snippet's line count."""
    match = _SNIPPET_HEADER.search(snippet)
    if match:
        start, count = int(match.group(1)), int(match.group(2))
        return start, start + count - 1
    return 1, snippet.count("\n") + 1


def search_path(spec: CollectionSpec, path_in_collection: str, workspace: Path) -> str:
    """Workspace-relative inside the workspace, else `qmd/<collection>/<path in the collection>`."""
    normalized = path_in_collection.replace("\\", "/")
    absolute = os.path.normpath(os.path.join(str(spec.path), path_in_collection))
    relative = os.path.relpath(absolute, str(workspace))
    if relative != ".." and not relative.startswith("../") and not os.path.isabs(relative):
        return os.path.basename(absolute) if relative == "." else relative.replace(os.sep, "/")
    return f"qmd/{spec.name}/{normalized.lstrip('/')}"


def clamp_injected(hits: list[SearchHit], budget: int) -> list[SearchHit]:
    """Whole snippets while they fit in `budget` UTF-16 units; the first that does not is cut to what is
    left, and the list ends with it."""
    if budget <= 0:
        return hits
    remaining = budget
    kept: list[SearchHit] = []
    for hit in hits:
        if remaining <= 0:
            break
        length = js_length(hit.snippet)
        if length <= remaining:
            kept.append(hit)
            remaining -= length
            continue
        cut = js_slice(hit.snippet, 0, remaining)
        kept.append(replace(hit, snippet=cut))
        break
    return kept
