"""From a transcript (`*.jsonl`) to the export's text, as the release's `buildSessionEntry` makes it.

openclaw@2026.6.35 `packages/memory-host-sdk/src/host/session-files.ts`. Per line (split on `\\n` only;
blank or not `JSON.parse`-able lines are skipped):

- a record marking a dreaming-narrative run leaves out every later message (earlier ones stay);
- in a reset/deleted archive, a cron-run record (or a user message that is a direct cron prompt) drops
  everything collected so far and every later message: the archive exports `(empty)`;
- a `message` record with role `user` or `assistant` (a user message relayed from another session,
  `provenance.kind: "inter_session"`, is left out) gives its text: a string content, or its
  `{type: "text", text}` blocks joined with `\\n`;
- the text is cleaned (inbound metadata for user messages only, then internal runtime context, both in
  transcript_cleaning.py), every run of JS whitespace becomes one space and it is trimmed, and what
  transcript_filters.py lists is left out;
- the rest is redacted (redaction/redact.py) and cut into lines of at most 800 UTF-16 units, each
  with its own `User: ` / `Assistant: ` prefix.

The file is `# Session <header>`, a blank line, the lines joined with `\\n` (or `(empty)`), a newline,
encoded as UTF-8 with each lone surrogate as U+FFFD (as Node writes it).

Memory is bounded: the transcript is read one line at a time (`render_transcript`), and a line longer than
`MAX_RECORD_BYTES` is skipped unread (a note says so) instead of held whole; the output goes to a sink as
it is made.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, BinaryIO, Protocol

from memwarm_cli.backends.sessions.redaction.clear_secrets import ClearSecretCounter
from memwarm_cli.backends.sessions.redaction.redact import redact_units
from memwarm_cli.backends.sessions.transcript_cleaning import (
    strip_inbound_metadata,
    strip_internal_runtime_context,
)
from memwarm_cli.backends.sessions.transcript_filters import is_generated_cron_prompt, is_left_out
from memwarm_cli.backends.sessions.transcript_json import parse_json_line
from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import JS_WHITESPACE, js_regex, js_trim, to_utf16_units

SESSION_EXPORT_CONTENT_WRAP_CHARS = 800
MAX_RECORD_BYTES = 16 * 1024 * 1024  # a longer transcript line is skipped, not read whole
# What finding a skipped line's end may read; past it, the rest is skipped too. V8's longest string: the
# release, which reads a transcript into one string, cannot export a longer one either.
MAX_DROPPED_LINE_BYTES = 512 * 1024 * 1024
_READ_CHUNK = 1024 * 1024
_LABELS = {"user": "User", "assistant": "Assistant"}
DREAMING_NARRATIVE_RUN_PREFIX = "dreaming-narrative-"
_CRON_RUN_REST = js_regex(r"^cron:[^:]+:run:[^:]+(?::|$)")

# --------------------------------------------------------------------------------------------------------
# Texts


_JS_WHITESPACE_TO_SPACE = dict.fromkeys(map(ord, JS_WHITESPACE), " ")
_NOT_JS_WHITESPACE_IN_PYTHONS = "\x1c\x1d\x1e\x1f"  # ASCII whitespace to str.split(), not to JS


def normalize_session_text(value: str) -> str:
    """`normalizeSessionText`: every run of JS whitespace becomes one space, then JS trim."""
    if value.isascii() and not any(ch in value for ch in _NOT_JS_WHITESPACE_IN_PYTHONS):
        return " ".join(value.split())  # the same sets on ASCII, at C speed
    return " ".join(filter(None, value.translate(_JS_WHITESPACE_TO_SPACE).split(" ")))


def collect_raw_session_text(content: Any) -> str | None:
    """`collectRawSessionText`: a string content, or its text blocks joined with `\\n` (None: none)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts = [
        block["text"]
        for block in content
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    ]
    return "\n".join(parts) if parts else None


def sanitize_session_text(text: str, role: str) -> str | None:
    """`sanitizeSessionText`: the cleaned, normalised text, or None when it is empty or left out."""
    stripped = strip_inbound_metadata(text) if role == "user" else text
    normalized = normalize_session_text(strip_internal_runtime_context(stripped))
    if not normalized or is_left_out(normalized, role):
        return None
    return normalized


def split_long_session_line(units: str, max_chars: int = SESSION_EXPORT_CONTENT_WRAP_CHARS) -> list[str]:
    """`splitLongSessionLine` on a UTF-16 unit string: segments of at most `max_chars` units, cut at the
    last ASCII space at or before the limit (else hard, one unit earlier if that splits a pair)."""
    normalized = js_trim(units)
    if not normalized:
        return []
    if len(normalized) <= max_chars:
        return [normalized]
    segments: list[str] = []
    cursor, length = 0, len(normalized)
    while cursor < length:
        if length - cursor <= max_chars:
            segments.append(js_trim(normalized[cursor:]))
            break
        limit = cursor + max_chars
        space = normalized.rfind(" ", cursor + 1, limit + 1)
        split_at = space if space != -1 else limit
        if (
            split_at < length
            and split_at > cursor
            and "\ud800" <= normalized[split_at - 1] <= "\udbff"
            and "\udc00" <= normalized[split_at] <= "\udfff"
        ):
            split_at -= 1
        segments.append(js_trim(normalized[cursor:split_at]))
        cursor = split_at
        while cursor < length and normalized[cursor] == " ":
            cursor += 1
    return [segment for segment in segments if segment]


# --------------------------------------------------------------------------------------------------------
# Records


def _starts_dreaming(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(DREAMING_NARRATIVE_RUN_PREFIX)


def is_dreaming_narrative_record(item: Any) -> bool:
    """`isDreamingNarrativeGeneratedRecord`."""
    if not isinstance(item, dict):
        return False
    data = item.get("data")
    if (
        item.get("type") == "custom"
        and item.get("customType") == "openclaw:bootstrap-context:full"
        and isinstance(data, dict)
        and _starts_dreaming(data.get("runId"))
    ):
        return True
    if _starts_dreaming(item.get("runId")) or _starts_dreaming(item.get("sessionKey")):
        return True
    return isinstance(data, dict) and (
        _starts_dreaming(data.get("runId")) or _starts_dreaming(data.get("sessionKey"))
    )


def is_cron_run_session_key(value: Any) -> bool:
    """`isCronRunSessionKey` (session-key-utils.ts): `agent:<id>:cron:<job>:run:<run>...`, any case."""
    if not isinstance(value, str):
        return False
    raw = js_trim(value).lower()
    parts = [part for part in raw.split(":") if part]
    if len(parts) < 3 or parts[0] != "agent" or not js_trim(parts[1]):
        return False
    rest = ":".join(parts[2:])
    return bool(rest) and _CRON_RUN_REST.search(rest) is not None


def is_cron_run_record(item: Any) -> bool:
    """`isCronRunGeneratedRecord`."""
    if not isinstance(item, dict):
        return False
    if is_cron_run_session_key(item.get("sessionKey")):
        return True
    data = item.get("data")
    return isinstance(data, dict) and is_cron_run_session_key(data.get("sessionKey"))


def _is_inter_session_user(message: dict[str, Any]) -> bool:
    provenance = message.get("provenance")
    return isinstance(provenance, dict) and provenance.get("kind") == "inter_session"


class LineSink(Protocol):
    def line(self, units: str) -> None:
        """One export line (a UTF-16 unit string, its `User: ` / `Assistant: ` prefix included)."""

    def reset(self) -> None:
        """Forget every line given so far (a cron-run archive)."""


class TranscriptReader:
    """`buildSessionEntry`'s loop, one parsed line at a time, for one transcript."""

    def __init__(self, sink: LineSink, *, archive: bool, check: Callable[[], None] | None = None) -> None:
        self.sink = sink
        self.archive = archive  # a reset/deleted archive: its content can mark it a cron run
        self.check = check
        self.dreaming = False
        self.cron_run = False

    def _cron_run(self) -> None:
        self.cron_run = True
        self.sink.reset()

    def record(self, item: Any) -> None:
        if not self.dreaming and is_dreaming_narrative_record(item):
            self.dreaming = True
        if not self.cron_run and self.archive and is_cron_run_record(item):
            self._cron_run()
        if not isinstance(item, dict) or item.get("type") != "message":
            return
        message = item.get("message")
        if not isinstance(message, dict):
            return
        role = message.get("role")
        label = _LABELS.get(role) if isinstance(role, str) else None
        if label is None or (role == "user" and _is_inter_session_user(message)):
            return
        assert isinstance(role, str)
        raw = collect_raw_session_text(message.get("content"))
        if raw is None:
            return
        if not self.cron_run and self.archive and is_generated_cron_prompt(normalize_session_text(raw), role):
            self._cron_run()
        text = sanitize_session_text(raw, role)
        if not text or self.dreaming or self.cron_run:
            return
        safe = redact_units(to_utf16_units(text), self.check)
        for segment in split_long_session_line(safe):
            self.sink.line(f"{label}: {segment}")

    def json_line(self, line: str) -> None:
        if not js_trim(line):
            return
        try:
            item = parse_json_line(line)
        except (ValueError, RecursionError):
            return
        self.record(item)


@record
class RenderNotes:
    """What a render passed over: 1-based line numbers of transcript lines longer than the cap."""

    oversized_lines: tuple[int, ...] = ()


def _skip_to_line_end(stream: BinaryIO, step: int, check: Callable[[], None] | None, budget: int) -> bool:
    """Read past the rest of a line being dropped, at most `budget` bytes: whether its end was found."""
    while budget > 0 and (chunk := stream.readline(min(step, budget))):
        if check is not None:
            check()
        if chunk.endswith(b"\n"):
            return True
        budget -= len(chunk)
    return budget > 0  # the end of the file ended the line too


_OVERSIZED, _OVERSIZED_TO_THE_END = b"\0oversized", b"\0to the end"  # by identity: no line read is these


def _line(stream: BinaryIO, cap: int, step: int, check: Callable[[], None] | None) -> bytes | None:
    """The next line without its `\\n`, None at the end of the file, or _OVERSIZED for a line longer
    than `cap` bytes (then skipped; _OVERSIZED_TO_THE_END when its end is not within
    MAX_DROPPED_LINE_BYTES): read `step` bytes at a time."""
    chunk = stream.readline(step)
    if not chunk:
        return None
    if chunk.endswith(b"\n") or len(chunk) < step:  # the whole line in one read: the common case
        return chunk[:-1] if chunk.endswith(b"\n") else chunk
    parts, size = [chunk], len(chunk)
    while size <= cap and not parts[-1].endswith(b"\n"):
        if check is not None:
            check()
        more = stream.readline(step)
        if not more:
            break
        parts.append(more)
        size += len(more)
    ended = parts[-1].endswith(b"\n")
    if size - ended > cap:
        del parts
        if not ended and not _skip_to_line_end(stream, step, check, MAX_DROPPED_LINE_BYTES - size):
            return _OVERSIZED_TO_THE_END
        return _OVERSIZED
    line = b"".join(parts)
    return line[:-1] if ended else line


def read_transcript_lines(
    stream: BinaryIO,
    reader: TranscriptReader,
    *,
    max_record_bytes: int = MAX_RECORD_BYTES,
    check: Callable[[], None] | None = None,
) -> RenderNotes:
    """Feed each line of `stream` to `reader`, decoded as UTF-8 with U+FFFD for bad bytes (decoding line
    by line gives what decoding the whole file does: `\\n` never belongs to a multi-byte sequence). A line
    longer than `max_record_bytes` is skipped in steps of at most 1 MiB, never held whole; when its end
    is not within MAX_DROPPED_LINE_BYTES, the rest of the stream is not read (`check` is called per line
    and per step)."""
    oversized: list[int] = []
    step = min(max_record_bytes + 1, _READ_CHUNK)
    number = 0
    while True:
        number += 1
        if check is not None:
            check()
        line = _line(stream, max_record_bytes, step, check)
        if line is None:
            break  # end of file: the release's last, empty line is blank anyway
        if line is _OVERSIZED or line is _OVERSIZED_TO_THE_END:
            oversized.append(number)
            if line is _OVERSIZED_TO_THE_END:
                break
        else:
            reader.json_line(line.decode("utf-8", "replace"))
        del line
    return RenderNotes(tuple(oversized))


# --------------------------------------------------------------------------------------------------------
# The export's bytes


class ExportWriter:
    """Renders an export as bytes into `write`, as it is made; keeps its SHA-256 and size, its bytes too
    while they stay under `keep_bytes` (`data`, else None), and the secrets left in clear (`clear`)."""

    def __init__(
        self,
        header: str,
        write: Callable[[bytes], None] | None = None,
        truncate: Callable[[], None] | None = None,
        keep_bytes: int = 0,
    ) -> None:
        self._head = f"# Session {header}\n\n".encode()
        self._write = write
        self._truncate = truncate
        self._keep = keep_bytes
        self.reset()

    def reset(self) -> None:
        if self._truncate is not None:
            self._truncate()
        self._hash = hashlib.sha256()
        self._size = 0
        self._kept: list[bytes] | None = [] if self._keep > 0 else None
        self._lines = 0
        self.clear = ClearSecretCounter()
        self._emit(self._head)

    def _emit(self, data: bytes) -> None:
        self._hash.update(data)
        self._size += len(data)
        if self._write is not None:
            self._write(data)
        if self._kept is not None:
            if self._size > self._keep:
                self._kept = None
            else:
                self._kept.append(data)

    def line(self, units: str) -> None:
        text = units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
        self.clear.scan(text)
        self._emit(("\n" if self._lines else "").encode() + text.encode("utf-8"))
        self._lines += 1

    def finish(self) -> None:
        self._emit(b"\n" if self._lines else b"(empty)\n")

    @property
    def digest(self) -> str:
        return self._hash.hexdigest()

    @property
    def size(self) -> int:
        return self._size

    @property
    def data(self) -> bytes | None:
        return b"".join(self._kept) if self._kept is not None else None


def render_transcript(
    stream: BinaryIO,
    writer: ExportWriter,
    *,
    archive: bool,
    max_record_bytes: int = MAX_RECORD_BYTES,
    check: Callable[[], None] | None = None,
) -> RenderNotes:
    """The export of the transcript read from `stream` into `writer` (finished)."""
    reader = TranscriptReader(writer, archive=archive, check=check)
    notes = read_transcript_lines(stream, reader, max_record_bytes=max_record_bytes, check=check)
    writer.finish()
    return notes
