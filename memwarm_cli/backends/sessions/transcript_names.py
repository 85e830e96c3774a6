"""Which file names in an agent's sessions dir the release exports, and the names it gives the exports.

openclaw@2026.6.35 `src/config/sessions/artifacts.ts`: a name is a session when it is usage-counted with
a non-empty session id. That is a primary transcript (`<id>.jsonl`, but not `sessions.json`, not
`*.trajectory.jsonl`, not a compaction checkpoint `<id>.checkpoint.<uuid v1-5>.jsonl`, not an archive),
or a reset or deleted archive (`<id>.jsonl.reset.<timestamp>`, `<id>.jsonl.deleted.<timestamp>`, the
timestamp `YYYY-MM-DDTHH-MM-SS[.mmm]Z` by shape only). A file named exactly `.jsonl` has the empty id and
is no session. Matching is case-sensitive except the checkpoint's uuid.

The export is `<name without a final .jsonl>.md` (`path.basename(file, ".jsonl")`), its header
`# Session <name up to its last dot>` (`path.basename(file, path.extname(file))`): the two differ for
archives (`a.jsonl.reset.2026-01-02T03-04-05Z` -> `a.jsonl.reset.2026-01-02T03-04-05Z.md`, header
`a.jsonl.reset`).
"""

from __future__ import annotations

from memwarm_cli.jsstring import js_regex

TRANSCRIPT_SUFFIX = ".jsonl"
EXPORT_SUFFIX = ".md"
_ARCHIVE_TIMESTAMP = js_regex(r"^\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}(?:\.\d{3})?Z$")
_LEGACY_STORE_BACKUP = js_regex(r"^sessions\.json\.bak\.\d+$")
_COMPACTION_CHECKPOINT = js_regex(
    r"^(.+)\.checkpoint\.([0-9a-f]{8}-[0-9a-f]{4}-[1-5][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})\.jsonl$",
    ignore_case=True,
)
_COUNTED_ARCHIVE_REASONS = ("reset", "deleted")


def _has_archive_suffix(name: str, reason: str) -> bool:
    marker = f".{reason}."
    index = name.rfind(marker)
    return index >= 0 and _ARCHIVE_TIMESTAMP.search(name[index + len(marker) :]) is not None


def is_archive_artifact(name: str) -> bool:
    """`isSessionArchiveArtifactName`."""
    if _LEGACY_STORE_BACKUP.search(name):
        return True
    return any(_has_archive_suffix(name, reason) for reason in ("deleted", "reset", "bak"))


def _is_primary(name: str) -> bool:
    """`isPrimarySessionTranscriptFileName`."""
    if name == "sessions.json" or not name.endswith(TRANSCRIPT_SUFFIX):
        return False
    if name.endswith(".trajectory.jsonl") or _COMPACTION_CHECKPOINT.search(name):
        return False
    return not is_archive_artifact(name)


def is_usage_counted(name: str) -> bool:
    """`isUsageCountedSessionTranscriptFileName`."""
    return _is_primary(name) or any(_has_archive_suffix(name, reason) for reason in _COUNTED_ARCHIVE_REASONS)


def session_id(name: str) -> str | None:
    """`parseUsageCountedSessionIdFromFileName` (the empty string for `.jsonl`)."""
    if _is_primary(name):
        return name[: -len(TRANSCRIPT_SUFFIX)]
    for reason in _COUNTED_ARCHIVE_REASONS:
        index = name.rfind(f".jsonl.{reason}.")
        if index > 0 and _has_archive_suffix(name, reason):
            return name[:index]
    return None


def is_session_transcript(name: str) -> bool:
    """The release exports this directory entry (if it is a regular file): counted, with an id."""
    return is_usage_counted(name) and bool(session_id(name))


def is_counted_archive(name: str) -> bool:
    """`isUsageCountedSessionArchiveTranscriptPath`: where the content decides about cron runs."""
    return is_usage_counted(name) and is_archive_artifact(name) and session_id(name) is not None


def export_name(name: str) -> str:
    """`${path.basename(file, ".jsonl")}.md`."""
    stem = name[: -len(TRANSCRIPT_SUFFIX)] if name.endswith(TRANSCRIPT_SUFFIX) else name
    return stem + EXPORT_SUFFIX


def header_name(name: str) -> str:
    """`path.basename(file, path.extname(file))` for a session name (its last dot is never its first
    character, so the extension is never empty)."""
    dot = name.rfind(".")
    return name[:dot] if dot > 0 else name
