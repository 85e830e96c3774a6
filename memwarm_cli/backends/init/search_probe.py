"""`--probe`: run the search the agent will run, once, so its first real search finds everything warm.

OpenClaw searches with `qmd <searchMode> <query> --json -n <limits.maxResults> -c <collection>...`
(memory-backends.md §7); the probe runs exactly that. `vsearch` and `query` load models on first use
(downloading them from HuggingFace when missing), which is what makes a gateway's first search time out
after `limits.timeoutMs`; so the probe has its own, generous timeout (`--probe-timeout`, default 120 s).

- `search` (BM25, no model): a probe that does not answer fails the agent: its index cannot answer. An
  answer that is no search result (not a JSON array, no "no results" line: what OpenClaw's parser
  refuses) is no answer either: the probe failed, and the agent is not armed.
- `vsearch` / `query`: a probe that does not answer (offline, the models cannot be downloaded: qmd waits
  until the timeout ends it) degrades the agent; the reason names the models that mode needs and the two
  ways out. BM25 searches still answer.

The default query is a word from the agent's newest note, so a warm index answers with a hit: the notes
of the agent's memory collections (not session exports) are ranked by mtime, newest first (ties: the
collection order, then the path); of the words (runs of letters and digits) in its first 64 KiB, the
longest made of 3+ ASCII letters only is the query (the first on ties; ASCII keeps it clear of qmd's
query syntax and of diacritic folding); no note, or no such word, gives "memory".
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memwarm_cli.backends.freshness import fingerprint as fp
from memwarm_cli.backends.freshness.file_walk import snapshot_collection
from memwarm_cli.backends.init import collection_sync
from memwarm_cli.backends.init.agent_job import AgentJob
from memwarm_cli.backends.init.init_report import PlannedCommand, ProbeOutcome
from memwarm_cli.backends.qmd import model_cache, qmd_commands
from memwarm_cli.backends.sessions.session_export_files import read_regular_file
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec

DEFAULT_PROBE_TIMEOUT_MS = 120_000
FALLBACK_QUERY = "memory"
QUERY_READ_BYTES = 64 * 1024
_WORD = re.compile(r"[^\W_]+")
_ASCII_WORD = re.compile(r"[A-Za-z]{3,}")

EMBEDDING_MODEL = "embeddinggemma-300M-Q8_0 (about 300 MB)"
# Which models each search mode loads (memory-backends.md §7); `search` needs none.
MODE_MODELS: dict[str, tuple[str, ...]] = {
    "search": (),
    "vsearch": (EMBEDDING_MODEL,),
    "query": (
        EMBEDDING_MODEL,
        "qmd-query-expansion-1.7B-q4_k_m (about 1.1 GB)",
        "qwen3-reranker-0.6b-q8_0 (about 640 MB)",
    ),
}


def longest_word(text: str) -> str | None:
    """The longest word made of 3+ ASCII letters only (the first one on ties), or None."""
    best: str | None = None
    for match in _WORD.finditer(text):
        word = match.group()
        if _ASCII_WORD.fullmatch(word) and (best is None or len(word) > len(best)):
            best = word
    return best


def newest_note_word(collections: Sequence[CollectionSpec], snapshot: fp.Snapshot | None) -> str | None:
    """A word of the newest note in the agent's memory collections (files as the snapshot saw them)."""
    newest: tuple[int, int, str, CollectionSpec] | None = None
    for order, spec in enumerate(collections):
        if spec.kind == "sessions":
            continue
        files = snapshot.files.get(spec.name) if snapshot is not None else snapshot_collection(spec)
        for rel, _size, mtime_ns in files or ():
            key = (-mtime_ns, order, rel, spec)
            if newest is None or key[:3] < newest[:3]:
                newest = key
    if newest is None:
        return None
    _, _, rel, spec = newest
    try:
        data = read_regular_file(spec.path / rel, max_bytes=QUERY_READ_BYTES)
    except OSError:
        return None
    return longest_word(data.decode("utf-8", "replace"))


def probe_query(job: AgentJob) -> str:
    if job.options.probe_query is not None:
        return job.options.probe_query
    return newest_note_word(job.qmd.collections, job.snapshot) or FALLBACK_QUERY


def probe_timeout_ms(job: AgentJob) -> int:
    if job.options.probe_timeout_ms is not None:
        return job.options.probe_timeout_ms
    return job.timeout(DEFAULT_PROBE_TIMEOUT_MS)


def offline_reason(job: AgentJob, error: str) -> str:
    """Why a vsearch/query probe did not answer, and the models that mode loads (the fix follows once,
    agent_job.model_fix)."""
    mode = job.qmd.search_mode
    models = MODE_MODELS.get(mode, ())
    noun = "model" if len(models) == 1 else "models"
    return (
        f"qmd {mode} probe did not answer ({error}): searchMode {mode} loads the {noun} "
        f"{', '.join(models)}, which qmd downloads from HuggingFace on first use"
    )


class ProbeSearch:
    """The agent's own search, once (`--probe`), after the index is ready (or found unchanged)."""

    def wanted(self, job: AgentJob) -> bool:
        return job.options.probe

    def run(self, job: AgentJob) -> None:
        query = probe_query(job)
        timeout = probe_timeout_ms(job)
        rerank = not (job.qmd.search_mode == "query" and job.qmd.rerank is False)
        out_of_reach = job.models_out_of_reach(model_cache.mode_roles(job.qmd.search_mode, rerank=rerank))
        if out_of_reach is not None:
            # Offline, qmd would wait for the download until the probe's timeout: not run at all.
            mode = job.qmd.search_mode
            missing, offline = out_of_reach
            not_run = f"not run: {missing}, and {offline}"
            job.probe = ProbeOutcome(
                answered=False,
                latency_ms=0,
                hits=None,
                error=not_run,
                mode=mode,
                query=query,
                timeout_ms=timeout,
            )
            # The embed step said why already: the models alone here.
            said = job.model_fix_owed
            job.probe_degraded = (
                f"qmd {mode} probe not run: {missing}" if said else f"qmd {mode} probe {not_run}"
            )
            job.model_fix_owed = True
            return
        job.step(f"probe ({job.qmd.search_mode})", timeout)
        result = job.run_qmd(self._args(job, query), timeout)
        hits: int | None = None
        error = None if result.ok else result.error_message()
        if result.ok:
            # Read as the gateway reads it: an answer it cannot parse fails its search too.
            try:
                hits = len(qmd_commands.parse_search_answer(result.stdout, result.stderr))
            except qmd_commands.SearchAnswerError as exc:
                error = f"qmd exited 0 but its answer is no search result: {exc}"
        answered = error is None
        job.probe = ProbeOutcome(
            answered=answered,
            latency_ms=result.duration_ms,
            hits=hits,
            error=error,
            mode=job.qmd.search_mode,
            query=query,
            timeout_ms=timeout,
            timed_out=result.timed_out,
        )
        if not result.ok and MODE_MODELS.get(job.qmd.search_mode):
            job.probe_degraded = offline_reason(job, result.error_message())
            job.model_fix_owed = True

    def plan(self, job: AgentJob) -> list[PlannedCommand]:
        note = f"timeout {probe_timeout_ms(job)} ms"
        return [job.planned(self._args(job, probe_query(job)), note)]

    @staticmethod
    def _args(job: AgentJob, query: str) -> tuple[str, ...]:
        """Searched: the collections in the index, as the run found them or the plan expects them."""
        collections = collection_sync.probe_collections(job)
        qmd = job.qmd
        no_rerank = qmd.search_mode == "query" and qmd.rerank is False
        return qmd_commands.probe_args(
            qmd.search_mode, query, qmd.limits.max_results, collections, no_rerank=no_rerank
        )
