"""What memwarm reads from qmd 2.8.3: `collection list` text, `index.yml`, and its error messages.

qmd 2.8.3 ignores `collection list --json` (checked against the pinned qmd: its `collectionList` takes no
options) and prints text blocks (`<name> (qmd://<name>/)` then indented `Pattern:` / `Files:` /
`Updated:` lines) without the path; the path and pattern of each collection are in
`$QMD_CONFIG_DIR/index.yml` (`collections: {name: {path, pattern}}`). Both are read; a collection whose
path cannot be learnt is never rebound (the destructive-rebind bug of upstream #36870).
"""

from __future__ import annotations

import re
from pathlib import Path

from memwarm_cli.frozen_records import record
from memwarm_cli.safe_files import FileTooLargeError, NotRegularFileError, read_bounded

_LIST_HEADER = re.compile(r"^\s*([a-z0-9._-]+)\s+\(qmd://[^)]+\)\s*$", re.IGNORECASE)
_LIST_FIELD = re.compile(r"^\s*(pattern|mask|path)\s*:\s*(.*?)\s*$", re.IGNORECASE)
_CONFLICT_NAME = re.compile(r"^\s*Name:\s*(\S+)", re.MULTILINE)

# qmd writes a few lines per collection; a bigger file is not qmd's and is not parsed.
MAX_INDEX_YML_BYTES = 4 * 1024 * 1024
RETRYABLE_UPDATE_ERRORS = ("sqlite_busy", "database is locked", "timed out")


@record
class ListedCollection:
    name: str
    path: str | None  # None when neither the listing nor index.yml says
    pattern: str | None


def parse_collection_list(text: str) -> dict[str, ListedCollection]:
    """Parse `qmd collection list` output: qmd's text blocks, a header line then indented fields."""
    found: dict[str, dict[str, str | None]] = {}
    current: dict[str, str | None] | None = None
    for line in text.splitlines():
        header = _LIST_HEADER.match(line)
        if header:
            current = {"name": header.group(1), "path": None, "pattern": None}
            found[header.group(1)] = current
            continue
        field = _LIST_FIELD.match(line)
        if field and current is not None:
            key = "path" if field.group(1).lower() == "path" else "pattern"
            current[key] = field.group(2)
    return {
        name: ListedCollection(name=name, path=entry["path"], pattern=entry["pattern"])
        for name, entry in found.items()
    }


def read_index_yml(path: Path) -> dict[str, ListedCollection]:
    """Collections recorded in qmd's `index.yml`; empty when the file is missing, unreadable, not a
    regular file (a FIFO there never blocks the run), too large, or not YAML that names collections."""
    # yaml: ~20 ms by -X importtime; only init-backends reads index.yml, status does not (test_imports)
    import yaml

    try:
        raw, _ = read_bounded(path, MAX_INDEX_YML_BYTES)
        data = yaml.load(raw.decode("utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, NotRegularFileError, FileTooLargeError, UnicodeDecodeError, yaml.YAMLError):
        return {}
    except (ValueError, TypeError, OverflowError, RecursionError):
        return {}  # scalars SafeLoader cannot build (`!!timestamp 2026-02-30`), or nesting too deep
    collections = data.get("collections") if isinstance(data, dict) else None
    if not isinstance(collections, dict):
        return {}
    result: dict[str, ListedCollection] = {}
    for name, entry in collections.items():
        if not isinstance(name, str) or not isinstance(entry, dict):
            continue
        path_value = entry.get("path")
        pattern = entry.get("pattern", entry.get("mask"))
        result[name] = ListedCollection(
            name=name,
            path=str(path_value) if isinstance(path_value, str) else None,
            pattern=str(pattern) if isinstance(pattern, str) else None,
        )
    return result


def merge_listing(
    listed: dict[str, ListedCollection], recorded: dict[str, ListedCollection]
) -> dict[str, ListedCollection]:
    """The listing, with path/pattern filled in from index.yml where the listing lacks them."""
    merged: dict[str, ListedCollection] = {}
    for name, entry in listed.items():
        extra = recorded.get(name)
        merged[name] = ListedCollection(
            name=name,
            path=entry.path or (extra.path if extra else None),
            pattern=entry.pattern or (extra.pattern if extra else None),
        )
    return merged


def conflicting_collection(message: str) -> str | None:
    """The other collection's name in `A collection already exists for this path and pattern: Name: <n>`."""
    if "already exists for this path and pattern" not in message:
        return None
    match = _CONFLICT_NAME.search(message)
    return match.group(1) if match else None


def is_name_taken(message: str) -> bool:
    """`Collection '<n>' already exists.`"""
    return "already exists" in message and "path and pattern" not in message


def is_not_found(message: str) -> bool:
    lowered = message.lower()
    return any(s in lowered for s in ("not found", "does not exist", "missing"))


def is_retryable_update_error(message: str) -> bool:
    lowered = message.lower()
    return any(s in lowered for s in RETRYABLE_UPDATE_ERRORS)


def repairable_update_error(message: str) -> str | None:
    """Upstream's one-shot repairs: duplicate document rows, or collection metadata with a NUL byte."""
    if "UNIQUE constraint failed" in message and "documents.path" in message:
        return "duplicate document constraint"
    if "ENOTDIR" in message and ("\\u0000" in message or "\x00" in message or "\\0" in message):
        return "suspected null-byte collection metadata"
    return None


def parse_version(text: str) -> str:
    """`qmd 2.8.3 (facd35e)` → the whole first line, trimmed (kept verbatim in fingerprints)."""
    lines = text.strip().splitlines()
    return lines[0].strip() if lines else ""
