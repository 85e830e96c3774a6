"""`memwarm search`'s views. Text: `<score, 3 decimals> <path>:<start>-<end>`, the snippet, a blank line
per hit (OpenClaw's `memory search` layout), path and snippet escaped line by line; `No matches.` when
none. `--json`: the search's result with its metadata."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, NamedTuple

from memwarm_cli.cli.terminal.output import guarded_lines
from memwarm_cli.cli.terminal.view_format import JsonView, View, Views
from memwarm_cli.textsafe import escape_text

if TYPE_CHECKING:
    from memwarm_cli.backends.agent_search import SearchResult
    from memwarm_cli.profiles.choice import OpenClawChoice


class SearchRun(NamedTuple):
    """What `search`'s views show: the search's result, and the release it searched as."""

    search: SearchResult
    openclaw: OpenClawChoice


class SearchText(View[SearchRun]):
    name = "text"

    def render(self, result: SearchRun) -> Iterator[str]:
        if not result.search.hits:
            return guarded_lines(["No matches."])
        lines: list[str] = []
        for hit in result.search.hits:
            lines.append(f"{hit.score:.3f} {escape_text(hit.path)}:{hit.start_line}-{hit.end_line}")
            # A snippet ending in a line break (qmd's, when the note ends there) would add a second
            # blank line after the hit; one follows each (--json keeps the snippet as it is).
            lines.extend(escape_text(line) for line in hit.snippet.rstrip("\r\n").split("\n"))
            lines.append("")
        return guarded_lines(lines)


def _json(result: SearchRun) -> dict[str, Any]:
    return result.search.to_json()


SEARCH_VIEWS: Views[SearchRun] = Views(SearchText(), JsonView(_json), pipe="text")
