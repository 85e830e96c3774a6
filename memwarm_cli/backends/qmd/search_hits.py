"""What a qmd search answered, shaped as OpenClaw 2026.6.35's QmdMemoryManager shapes it (research
backend-635.md §3): the hints a hit's `qmd://<collection>/<path>` file gives, one hit per docid across
several calls, the docid's rows in the index and the one chosen, the snippet's lines, the path the model
sees, the turns memory and session hits take, and the injected-characters budget. `memwarm search`
(backends/agent_search.py) runs the calls and puts these together.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from memwarm_cli.backends.qmd.index_stats import IndexUnreadable, open_index
from memwarm_cli.backends.settings.qmd_collections import CollectionSpec
from memwarm_cli.frozen_records import record, replace
from memwarm_cli.jsstring import js_is_finite_number, js_length, js_slice, js_trim
from memwarm_cli.sqlite_driver import sqlite3

_SNIPPET_HEADER = re.compile(r"@@\s*-([0-9]+),([0-9]+)")
MAX_SAFE_INTEGER = 2**53 - 1


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


def hints(entry: dict[str, Any], default: str | None = None) -> tuple[str | None, str | None]:
    """`normalizeDocHints`: (collection, collection-relative file); a `qmd://<c>/<p>` file names both."""
    raw_collection = entry.get("collection")
    collection = js_trim(raw_collection) if isinstance(raw_collection, str) else default
    raw_file = entry.get("file")
    file = js_trim(raw_file) if isinstance(raw_file, str) else None
    if not file:
        return collection or None, None
    if file.lower().startswith("qmd://"):
        try:
            parts = urlsplit(file)
            host = unquote(parts.hostname or "").strip()
            path = unquote(parts.path).lstrip("/").strip()
        except ValueError:  # `new URL` throws: the file stays as it is
            return collection or None, file
        if host or path:
            return host or collection or None, path or file
    return collection or None, file


def with_hints(entry: dict[str, Any], default: str | None) -> dict[str, Any]:
    """A hit of one group's call, as `runQueryAcrossCollectionGroups` keeps it: docid, collection and
    file from its hints."""
    collection, file = hints(entry, default)
    docid = entry.get("docid")
    return {
        **entry,
        "docid": docid if isinstance(docid, str) and js_trim(docid) else None,
        "collection": collection,
        "file": file,
    }


def best_by_docid(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One hit per docid (else per collection and file), the best score kept, sorted by score (stable)."""
    best: dict[str, dict[str, Any]] = {}
    for entry in entries:
        docid = entry.get("docid")
        if isinstance(docid, str):
            key = f"docid:{docid}"
        elif entry.get("collection") and entry.get("file"):
            key = f"file:{entry['collection']}:{entry['file']}"
        else:
            continue
        if key not in best or score_or(entry, float("-inf")) > score_or(best[key], float("-inf")):
            best[key] = entry
    return sorted(best.values(), key=lambda e: -score_or(e, 0.0))


def score_or(entry: dict[str, Any], default: float) -> float:
    score: Any = entry.get("score")
    return float(score) if js_is_finite_number(score) else default


def document_rows(index_path: Path, docids: list[str]) -> dict[str, list[tuple[str, str]]]:
    """docid -> its active (collection, path) rows: `hash = ?`, else `hash LIKE '<docid>%'`."""
    found: dict[str, list[tuple[str, str]]] = {}
    exact = "SELECT collection, path FROM documents WHERE hash = ? AND active = 1"
    prefix = "SELECT collection, path FROM documents WHERE hash LIKE ? AND active = 1"
    try:
        with open_index(index_path) as db:
            for docid in dict.fromkeys(docids):
                key = docid[1:] if docid.startswith("#") else docid
                if not key:
                    continue
                rows = db.execute(exact, (key,)).fetchall() or db.execute(prefix, (f"{key}%",)).fetchall()
                found[docid] = [(str(c), str(p)) for c, p in rows]
    except sqlite3.Error as exc:
        raise IndexUnreadable(str(exc)) from None
    return found


def _same_file(row_path: str, wanted: str) -> bool:
    """`matchesPreferredFileHint`, its exact part: the same path, or one ending in `/<wanted>`."""
    row = os.path.normpath(row_path).replace("\\", "/")
    want = os.path.normpath(wanted).replace("\\", "/")
    return row == want or row.endswith("/" + want)


def pick_location(
    rows: list[tuple[str, str]], specs: dict[str, CollectionSpec], hint: tuple[str | None, str | None]
) -> tuple[CollectionSpec, str] | None:
    """`pickDocLocation`: the hinted collection's row, else a row of the hinted file, else the first
    row of a managed collection."""
    collection, file = hint
    managed = [(specs[c], p) for c, p in rows if c in specs]
    for spec, path in managed:
        if collection and spec.name == collection:
            return spec, path
    for spec, path in managed:
        if file and _same_file(path, file):
            return spec, path
    return managed[0] if managed else None


def _line(value: Any) -> int | None:
    """`parseQmdLineNumber`: a safe integer > 0, else none."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    return int(value) if 0 < value <= MAX_SAFE_INTEGER else None


def snippet_lines(snippet: str, entry: dict[str, Any] | None = None) -> tuple[int, int]:
    """`resolveSnippetLines`: explicit start/end lines (`start_line`/`startLine`, ...), widened by the
    `@@ -<start>,<count>` header when only one is given; else the header; else 1 to the line count."""
    start = end = None
    if entry is not None:
        start_raw = entry.get("start_line")
        end_raw = entry.get("end_line")
        start = _line(entry.get("startLine") if start_raw is None else start_raw)
        end = _line(entry.get("endLine") if end_raw is None else end_raw)
    match = _SNIPPET_HEADER.search(snippet)
    header = (int(match.group(1)), int(match.group(1)) + int(match.group(2)) - 1) if match else None
    width = max(0, header[1] - header[0]) if header is not None else 0
    if start is not None and end is not None:
        return (start, end) if start <= end else (end, start)
    if start is not None:
        return start, start + width
    if end is not None:
        return max(1, end - width), end
    if header is not None:
        return header
    return 1, snippet.count("\n") + 1


def search_path(spec: CollectionSpec, path_in_collection: str, workspace: Path) -> str:
    """`buildSearchPath`: workspace-relative inside the workspace (the workspace itself: the file's
    name), but `qmd/<collection>/<path>` for what lies under the workspace's `qmd/` and outside it."""
    normalized = path_in_collection.replace("\\", "/")
    inner = f"qmd/{spec.name}/{normalized.lstrip('/')}"
    absolute = os.path.normpath(os.path.join(str(spec.path), path_in_collection))
    relative = os.path.relpath(absolute, str(workspace))
    if relative.startswith("..") or os.path.isabs(relative):
        return inner
    if relative == ".":
        return os.path.basename(absolute)
    relative = relative.replace(os.sep, "/")
    return inner if relative == "qmd" or relative.startswith("qmd/") else relative


def diversify_by_source(hits: list[SearchHit], limit: int) -> list[SearchHit]:
    """`diversifyResultsBySource`: with memory and session hits both, the sources take turns (the one
    whose first hit scores best first) up to `limit`; otherwise the first `limit`."""
    if limit <= 0:
        return []
    by_source: dict[str, list[SearchHit]] = {}
    for hit in hits:
        by_source.setdefault(hit.source, []).append(hit)
    if len(hits) <= 1 or not {"memory", "sessions"} <= set(by_source):
        return hits[:limit]
    order = sorted(by_source, key=lambda source: -by_source[source][0].score)
    out: list[SearchHit] = []
    while len(out) < limit:
        emitted = False
        for source in order:
            if by_source[source]:
                out.append(by_source[source].pop(0))
                emitted = True
                if len(out) >= limit:
                    break
        if not emitted:
            break
    return out


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
        kept.append(replace(hit, snippet=js_slice(hit.snippet, 0, remaining)))
        break
    return kept
