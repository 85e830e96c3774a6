"""`memwarm search`: an agent's memory search as OpenClaw 2026.6.35's qmd backend runs it for
`openclaw memory search`, without a gateway (QmdMemoryManager.search; research backend-635.md §3).

- Every managed collection is searched, in config order. Collections the index does not hold yet are
  left out when their directory does not exist (the gateway would add them empty); any other one
  missing from the index stops the search ("run memwarm init-backends"), since the gateway would index
  it first and answer differently.
- With both memory and session collections, one qmd call per source group (qmd 2.8.3 takes several
  `-c`); the hits are merged by docid, keeping the best score, and sorted by score. One group: qmd's
  answer as it is. Each call: `qmd <mode> <query> --json -n <limit> [--no-rerank] -c <name>...`
  (qmd_commands.search_args), the agent's env and workspace, `memory.qmd.limits.timeoutMs`.
- qmd's answer: a "no results found" line is no hit; otherwise a JSON array (the first array in noisy
  output); anything else fails the search, as it fails OpenClaw's (qmd_commands.parse_search_answer).
- Each hit's docid is looked up in the index (`hash = ?`, else `hash LIKE '<docid>%'`, active rows),
  preferring the collection its `qmd://<collection>/<path>` file names, then a row of that path, then any
  managed row; a hit with no managed row is dropped. The snippet is cut to `maxSnippetChars` UTF-16
  units; its lines come from explicit start/end lines, else its `@@ -<start>,<count>` header, else 1 to
  its line count; a hit scoring below `min_score` (default 0) is dropped.
- The path is workspace-relative inside the workspace (the workspace itself gives the file's name),
  except under a top-level `qmd/` there, and `qmd/<collection>/<path in the collection>` outside it.
- At most `maxResults` hits (`limit` lowers it, never raises it); memory and session hits, when both
  came back, take turns by source (the source with the best hit first); then `maxInjectedChars` over the
  snippets in order: whole snippets while they fit, the first that does not is cut to what is left and
  ends the list.

Not reproduced: `memory.qmd.scope` (memwarm searches as the CLI does, in a direct chat, which the default
scope allows), mcporter, the `qmd --help` check for several `-c` (qmd 2.8.3 takes them), the `qmd query`
retry after an unsupported-flag error and the repair after a missing collection (memwarm's search writes
nothing).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from memwarm_cli.agents import select_agent
from memwarm_cli.backends.qmd import model_cache, qmd_commands
from memwarm_cli.backends.qmd.index_stats import IndexStats, IndexUnreadable, read_index_stats
from memwarm_cli.backends.qmd.process import CommandResult, run_command
from memwarm_cli.backends.qmd.qmd_diagnosis import unavailable_hint
from memwarm_cli.backends.qmd.search_hits import (
    SearchHit,
    best_by_docid,
    clamp_injected,
    diversify_by_source,
    document_rows,
    hints,
    pick_location,
    score_or,
    search_path,
    snippet_lines,
    with_hints,
)
from memwarm_cli.backends.settings.agent_backend import AgentBackendSettings, resolve_agent_backend
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.backends.settings.qmd_paths import qmd_child_env
from memwarm_cli.backends.settings.qmd_settings import QmdLimits, QmdSettings
from memwarm_cli.cancel import CancelToken
from memwarm_cli.config import LoadedConfig
from memwarm_cli.config.paths import is_directory
from memwarm_cli.errors import MemwarmError
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import js_slice, js_trim
from memwarm_cli.profiles.releases import Profile

SEARCH_SCHEMA = 2  # 2: "agentId" (was "agent"), "calls" (one argv per source group), "minScore"
# Re-exported: the shaping of hits is search_hits.py's; callers and tests know these names from here.
__all__ = ["SearchFailed", "SearchHit", "SearchResult", "clamp_injected", "search_path", "snippet_lines"]


class SearchFailed(MemwarmError):
    """The search could not answer (exit 1): no index, a timeout, qmd failed."""


@record
class SearchResult:
    agent_id: str
    mode: str
    query: str
    limit: int  # the -n qmd was asked for
    collections: tuple[str, ...]
    limits: QmdLimits
    min_score: float
    hits: tuple[SearchHit, ...]
    qmd_hits: int  # what qmd answered (merged across calls), before the docid lookup and the limits
    calls: tuple[tuple[str, ...], ...]  # the argv of each qmd call
    duration_ms: int
    # vsearch/query only (None for BM25): searched documents without vectors, which those modes cannot
    # find (qmd 2.8.3 answers `[]` for them, with a warning memwarm does not pass on), of how many.
    without_vectors: tuple[int, int] | None = None
    models_missing: tuple[str, ...] = ()  # models the mode loads that are not in the agent's qmd cache

    @property
    def argv(self) -> tuple[str, ...]:
        return self.calls[0] if self.calls else ()

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SEARCH_SCHEMA,
            "agentId": self.agent_id,
            "mode": self.mode,
            "query": self.query,
            "maxResults": self.limit,
            "minScore": self.min_score,
            "collections": list(self.collections),
            "limits": {
                "maxResults": self.limits.max_results,
                "maxSnippetChars": self.limits.max_snippet_chars,
                "maxInjectedChars": self.limits.max_injected_chars,
                "timeoutMs": self.limits.timeout_ms,
            },
            "qmdHits": self.qmd_hits,
            "argv": list(self.argv),
            "calls": [list(call) for call in self.calls],
            "durationMs": self.duration_ms,
            "documentsWithoutVectors": None if self.without_vectors is None else self.without_vectors[0],
            "modelsMissing": list(self.models_missing),
            "results": [hit.to_json() for hit in self.hits],
        }


def search_agent_memory(
    loaded: LoadedConfig,
    agent: str | None,
    query: str,
    *,
    profile: Profile,
    mode: str | None = None,
    limit: int | None = None,
    min_score: float = 0.0,
    token: CancelToken | None = None,
) -> SearchResult:
    """Run the agent's memory search. Raises UnknownAgentError (exit 2), SearchFailed (exit 1), and
    Cancelled when `token` is cancelled (once qmd's process group is gone)."""
    chosen = select_agent(loaded.data, loaded.env, agent, profile=profile)
    settings = resolve_agent_backend(
        loaded.data, chosen.id, chosen.entry, chosen.workspace, loaded.state_dir, loaded.env, profile=profile
    )
    qmd = settings.qmd
    if settings.memory_search is None:
        raise SearchFailed(f'memory search is disabled for agent "{chosen.id}"')
    if qmd is None:
        raise SearchFailed(f'agent "{chosen.id}" uses the builtin memory backend, not qmd')
    index_path = settings.paths.index_path
    search_mode = mode or qmd.search_mode
    vector_mode = search_mode in ("vsearch", "query")
    specs, stats = _searchable(settings, qmd, index_path, pending=vector_mode)
    wanted = min(qmd.limits.max_results, limit) if limit is not None else qmd.limits.max_results
    no_rerank = qmd.search_mode == "query" and qmd.rerank is False
    groups = _source_groups(specs)
    env = qmd_child_env(loaded.env, settings.paths)
    cwd = settings.workspace if is_directory(settings.workspace) else Path(loaded.state_dir)
    without_vectors: tuple[int, int] | None = None
    models_missing: tuple[str, ...] = ()
    if vector_mode:
        searched = {spec.name for spec in specs}
        total = sum(count for name, count in stats.documents.items() if name in searched)
        pending = sum(count for name, count in stats.pending_embeddings.items() if name in searched)
        without_vectors = (pending, total)
        roles = model_cache.mode_roles(search_mode, rerank=not no_rerank)
        missing = model_cache.missing_models(roles, env, settings.paths.models_dir)
        models_missing = tuple(model_cache.model_name(uri) for uri in missing)
    calls: list[tuple[str, ...]] = []
    entries: list[dict[str, Any]] = []
    duration = 0
    for group in groups:
        names = [spec.name for spec in group]
        args = qmd_commands.search_args(search_mode, query, wanted, names, no_rerank=no_rerank)
        result = run_command(
            qmd.command,
            args,
            env=env,
            cwd=cwd,
            timeout_ms=qmd.limits.timeout_ms,
            token=token or CancelToken(),
        )
        calls.append(result.argv)
        duration += result.duration_ms
        found = _answer(result, search_mode, qmd, env, cwd, models_missing)
        if len(groups) > 1:
            default = names[0] if len(names) == 1 else None
            found = [with_hints(entry, default) for entry in found]
        entries.extend(found)
    if len(groups) > 1:
        entries = best_by_docid(entries)
    hits = _hits(settings, index_path, entries, min_score)
    return SearchResult(
        agent_id=chosen.id,
        mode=search_mode,
        query=js_trim(query),
        limit=wanted,
        collections=tuple(spec.name for spec in specs),
        limits=qmd.limits,
        min_score=min_score,
        hits=tuple(clamp_injected(diversify_by_source(hits, wanted), qmd.limits.max_injected_chars)),
        qmd_hits=len(entries),
        calls=tuple(calls),
        duration_ms=duration,
        without_vectors=without_vectors,
        models_missing=models_missing,
    )


def _searchable(
    settings: AgentBackendSettings, qmd: QmdSettings, index_path: Path, *, pending: bool
) -> tuple[list[CollectionSpec], IndexStats]:
    """Every managed collection, in config order, names deduplicated; those the index lacks only when
    their directory is not there (SearchFailed for the others, and for no index at all); and the index's
    stats (with `pending`, the documents without vectors)."""
    first_run = "run memwarm init-backends first"
    try:
        stats = read_index_stats(index_path, pending=pending)
    except FileNotFoundError:
        raise SearchFailed(
            f'no qmd index for agent "{settings.agent_id}" ({index_path}): {first_run}'
        ) from None
    except IndexUnreadable as exc:
        raise SearchFailed(f"cannot read the qmd index {index_path}: {exc}") from None
    specs: list[CollectionSpec] = []
    seen: set[str] = set()
    absent: list[str] = []
    for spec in qmd.collections:
        if spec.name in seen:
            continue
        seen.add(spec.name)
        if spec.name in stats.collections:
            specs.append(spec)
        elif is_directory(spec.path):
            absent.append(spec.name)
    if absent:
        raise SearchFailed(
            f'the qmd index of agent "{settings.agent_id}" does not hold {", ".join(absent)} yet (the '
            f"gateway would index them before searching): {first_run}"
        )
    if not specs:
        raise SearchFailed(
            f'the qmd index of agent "{settings.agent_id}" holds none of its collections: {first_run}'
        )
    return specs, stats


def _source_groups(specs: list[CollectionSpec]) -> list[list[CollectionSpec]]:
    """`groupCollectionNamesBySource`: the memory collections, the session ones (first seen first)."""
    groups: dict[str, list[CollectionSpec]] = {}
    for spec in specs:
        groups.setdefault("sessions" if spec.kind == "sessions" else "memory", []).append(spec)
    return list(groups.values())


def _answer(
    result: CommandResult,
    mode: str,
    qmd: QmdSettings,
    env: dict[str, str],
    cwd: Path,
    models_missing: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    if result.timed_out:
        why = ""
        if models_missing:
            noun = "model" if len(models_missing) == 1 else "models"
            why = (
                f" (it first downloads the {noun} {', '.join(models_missing)}, not in the agent's qmd cache: "
                "memwarm init-backends --probe gets them)"
            )
        raise SearchFailed(
            f"qmd {mode} timed out after {qmd.limits.timeout_ms}ms (memory.qmd.limits.timeoutMs){why}: "
            "the agent's memory search would fail the same way and fall back to the builtin index"
        )
    if result.spawn_error is not None:
        hint = unavailable_hint(qmd.command, env, cwd)
        raise SearchFailed(f"Memory search failed: {result.error_message()}; {hint}")
    if not result.ok:
        raise SearchFailed(f"Memory search failed: {result.error_message()}")
    return _entries(result.stdout, result.stderr)


def _entries(stdout: str, stderr: str = "") -> list[dict[str, Any]]:
    """qmd's answer as hit objects (qmd_commands.parse_search_answer); SearchFailed when it is none."""
    try:
        return qmd_commands.parse_search_answer(stdout, stderr)
    except qmd_commands.SearchAnswerError as exc:
        raise SearchFailed(f"Memory search failed: {exc}") from None


def _hits(
    settings: AgentBackendSettings, index_path: Path, entries: list[dict[str, Any]], min_score: float
) -> list[SearchHit]:
    assert settings.qmd is not None
    limits = settings.qmd.limits
    specs = {spec.name: spec for spec in settings.qmd.collections}
    docids = [e["docid"] for e in entries if isinstance(e.get("docid"), str)]
    try:
        rows = document_rows(index_path, docids)
    except (FileNotFoundError, IndexUnreadable) as exc:
        raise SearchFailed(f"cannot read the qmd index {index_path}: {exc}") from None
    hits: list[SearchHit] = []
    for entry in entries:
        docid = entry.get("docid")
        hint = hints(entry)
        if isinstance(docid, str):
            location = pick_location(rows.get(docid, []), specs, hint)
        else:
            named, file = hint
            location = (specs[named], file) if named in specs and file else None
        if location is None:
            continue
        spec, path = location
        raw = entry.get("snippet")
        snippet = js_slice(raw if isinstance(raw, str) else "", 0, limits.max_snippet_chars)
        score = score_or(entry, 0.0)
        if score < min_score:
            continue
        start, end = snippet_lines(snippet, entry)
        source = "sessions" if spec.kind == "sessions" else "memory"
        where = search_path(spec, path, settings.workspace)
        hits.append(SearchHit(where, start, end, score, snippet, source, spec.name, str(docid or "")))
    return hits
