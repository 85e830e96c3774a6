"""`memwarm search`'s work: what the agent's memory search would hand the model
(backends/agent_search.py), shown by cli/commands/search_views.py. A search that fails or times out
exits 1 with one line on stderr; a signal stops qmd's process group first. On a release without the qmd
backend (2026.8.1 and later) it refuses with one line, exit 6 (backends/retired.py), and runs no qmd."""

from __future__ import annotations

from memwarm_cli.backends.agent_search import SearchResult, search_agent_memory
from memwarm_cli.backends.retired import refuse_retired_search
from memwarm_cli.cancel import Cancelled, CancelToken
from memwarm_cli.cli.commands.search_views import SEARCH_VIEWS, SearchRun
from memwarm_cli.cli.terminal.command_config import load_for_command
from memwarm_cli.cli.terminal.interrupts import signals_cancel
from memwarm_cli.cli.terminal.output import warn
from memwarm_cli.configview.release_checks import refuse_rejected_config
from memwarm_cli.errors import UsageError
from memwarm_cli.exitcodes import ExitCode, signal_exit
from memwarm_cli.jsstring import js_trim


def run_search(
    *,
    config_path: str | None,
    openclaw: str | None,
    query: str,
    agent: str | None = None,
    mode: str | None = None,
    max_results: int | None = None,
    min_score: float = 0.0,
    json_output: bool = False,
    quiet: bool = False,
) -> ExitCode:
    """Search an agent's memory the way its memory_search tool would, with the real qmd."""
    if not js_trim(query):
        raise UsageError("the query is empty")
    view = SEARCH_VIEWS.choose(json_output, None)
    run = load_for_command(config_path, openclaw=openclaw, quiet=quiet)
    loaded, choice = run.loaded, run.openclaw
    refuse_retired_search(loaded, choice, agent)  # no qmd backend on the release: exit 6, one line
    # OpenClaw's memory commands do not run on it (exit 3)
    refuse_rejected_config(loaded, profile=choice.profile, version=choice.version, origin=choice.origin)
    with signals_cancel(CancelToken()) as token:  # a signal stops qmd's group before memwarm ends
        try:
            result = search_agent_memory(
                loaded,
                agent,
                query,
                profile=choice.profile,
                mode=mode,
                limit=max_results,
                min_score=min_score,
                token=token,
            )
        except Cancelled as stop:
            return signal_exit(stop.signum)
    if not quiet:
        _warn_without_vectors(result)
    view.show(SearchRun(result, choice))
    return ExitCode.OK


def _warn_without_vectors(result: SearchResult) -> None:
    """vsearch/query cannot find a document that has no vectors (qmd answers `[]` and warns on a stderr
    memwarm does not pass on): one line saying how many, and the way out."""
    if result.without_vectors is None or result.without_vectors[0] == 0:
        return
    pending, total = result.without_vectors
    which = (
        f"none of the {total} documents searched has vectors"
        if pending == total
        else f"{pending} of the {total} documents searched have no vectors"
    )
    embed = "run memwarm init-backends (it runs qmd embed)"
    if result.models_missing:
        missing = ", ".join(result.models_missing)
        embed = f"run memwarm init-backends with network access ({missing} not downloaded)"
    warn(f"{which} yet, which qmd {result.mode} cannot find: {embed}, or search with --mode search (BM25)")
