"""`memwarm search`: what the agent's memory search would hand the model (backends/agent_search.py).

Text: `<score, 3 decimals> <path>:<start>-<end>`, the snippet, a blank line per hit (OpenClaw's
`memory search` layout); `No matches.` when none. `--json`: `{"results": [...]}` with the search's
metadata. A search that fails or times out exits 1 with one line on stderr.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated

import typer

from memwarm_cli.cli.options import AgentOption, JsonOption, QuietOption, global_options


class SearchMode(StrEnum):
    search = "search"
    vsearch = "vsearch"
    query = "query"


def search_command(
    ctx: typer.Context,
    query: Annotated[str, typer.Argument(metavar="QUERY", help="What to search the agent's memory for.")],
    agent: AgentOption = None,
    mode: Annotated[
        SearchMode | None,
        typer.Option("--mode", help="qmd search mode (default: the agent's memory.qmd.searchMode)."),
    ] = None,
    max_results: Annotated[
        int | None,
        typer.Option(
            "-n", "--max-results", metavar="N", min=1, help="At most N results (never more than maxResults)."
        ),
    ] = None,
    json_output: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Search an agent's memory the way its memory_search tool would, with the real qmd."""
    from memwarm_cli.backends.agent_search import search_agent_memory
    from memwarm_cli.cancel import Cancelled, CancelToken
    from memwarm_cli.cli.terminal.interrupts import signals_cancel
    from memwarm_cli.cli.terminal.invocation import load_for_command
    from memwarm_cli.cli.terminal.output import write_json, write_lines
    from memwarm_cli.errors import UsageError
    from memwarm_cli.exitcodes import signal_exit
    from memwarm_cli.jsstring import js_trim
    from memwarm_cli.textsafe import escape_text

    if not js_trim(query):
        raise UsageError("the query is empty")
    loaded = load_for_command(global_options(ctx).config_path, quiet=quiet)
    with signals_cancel(CancelToken()) as token:  # a signal stops qmd's group before memwarm ends
        try:
            result = search_agent_memory(
                loaded,
                agent,
                query,
                mode=mode.value if mode is not None else None,
                limit=max_results,
                token=token,
            )
        except Cancelled as stop:
            raise typer.Exit(signal_exit(stop.signum)) from None
    if json_output:
        write_json(result.to_json())
        return
    if not result.hits:
        write_lines(["No matches."])
        return
    lines: list[str] = []
    for hit in result.hits:
        lines.append(f"{hit.score:.3f} {escape_text(hit.path)}:{hit.start_line}-{hit.end_line}")
        lines.extend(escape_text(line) for line in hit.snippet.split("\n"))
        lines.append("")
    write_lines(lines)
