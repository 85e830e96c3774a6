"""From transcript to export text, as the released 2026.6.35 exporter makes it (transcript_text.py).

`transcript_cases.json` holds small transcripts and the export text the release's own code made of
each (computed once with /tmp/research/sessions-635-code's tools; see its "source"): directive tags
kept, metadata stripped for user messages only, the new sentinels, delivery hints, active-memory
blocks, the timestamp prefix, blocks joined before cleaning, runtime context, the filters, relayed
messages, dreaming and cron runs, the 800-unit wrap and the chunked redaction. The golden cases cover the
rest; the edges below pin what neither reaches.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.backends.sessions.transcript_json import parse_json_line
from memwarm_cli.backends.sessions.transcript_names import (
    export_name,
    header_name,
    is_counted_archive,
    is_session_transcript,
)
from memwarm_cli.backends.sessions.transcript_text import (
    ExportWriter,
    normalize_session_text,
    render_transcript,
    split_long_session_line,
)
from memwarm_cli.jsstring import to_utf16_units

CASES: dict[str, Any] = json.loads(
    (Path(__file__).with_name("transcript_cases.json")).read_text(encoding="utf-8")
)["cases"]


def render_bytes(data: bytes, header: str, *, archive: bool = False) -> str:
    """The whole export text of a transcript given as bytes."""
    writer = ExportWriter(header, keep_bytes=1 << 62)
    render_transcript(io.BytesIO(data), writer, archive=archive)
    kept = writer.data
    assert kept is not None
    return kept.decode("utf-8")


def _record(content: object, role: str = "user") -> str:
    return json.dumps({"type": "message", "message": {"role": role, "content": content}})


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_release_exports_this_transcript_so(name: str) -> None:
    case = CASES[name]
    data = ("\n".join(case["lines"]) + "\n").encode("utf-8")
    file_name = case["file"]
    text = render_bytes(data, header_name(file_name), archive=is_counted_archive(file_name))
    assert text == case["release"], ascii(text)


def test_json_numbers_beyond_pythons_int_digit_limit_are_accepted_as_js_does() -> None:
    huge = "9" * 5000  # Python's int() refuses more than 4300 digits; JSON.parse reads a double
    line = f'{{"type":"message","n":{huge},"message":{{"role":"user","content":"kept"}}}}'
    assert render_bytes(line.encode(), "s") == "# Session s\n\nUser: kept\n"


@pytest.mark.parametrize("bad", ["NaN", "Infinity", "-Infinity", "'x'", "[1,]", "\ufeff{}", "{} x"])
def test_json_parse_rejects_what_javascript_rejects(bad: str) -> None:
    with pytest.raises(ValueError):
        parse_json_line(bad)


def test_nesting_too_deep_for_python_skips_only_that_line() -> None:
    deep = "[" * 100_000 + "]" * 100_000
    data = "\n".join([deep, _record("after")]).encode()
    assert render_bytes(data, "s") == "# Session s\n\nUser: after\n"


def test_whitespace_is_the_js_set() -> None:
    assert normalize_session_text("\ufeffa\u00a0\u2028b\u3000") == "a b"
    assert normalize_session_text("a\x1cb\x85c\u200bd") == "a\x1cb\x85c\u200bd"


def test_the_wrap_counts_utf16_units_and_never_splits_a_pair() -> None:
    assert split_long_session_line("a" * 800) == ["a" * 800]
    # A space right after 800 units makes an exact 800-unit segment.
    assert split_long_session_line("a" * 800 + " b") == ["a" * 800, "b"]
    emoji = to_utf16_units("\U0001f600")
    units = "a" * 799 + emoji + "b"  # the pair straddles unit 800: the cut moves one unit back
    assert split_long_session_line(units) == ["a" * 799, emoji + "b"]


@pytest.mark.parametrize(
    ("name", "session", "export", "header"),
    [
        ("a.jsonl", True, "a.md", "a"),
        ("..jsonl", True, "..md", "."),
        ("x.jsonl.jsonl", True, "x.jsonl.md", "x.jsonl"),
        (
            "a.jsonl.reset.2026-01-02T03-04-05Z",
            True,
            "a.jsonl.reset.2026-01-02T03-04-05Z.md",
            "a.jsonl.reset",
        ),
        (
            "a.jsonl.deleted.2026-01-02T03-04-05.678Z",
            True,
            "a.jsonl.deleted.2026-01-02T03-04-05.678Z.md",
            "a.jsonl.deleted.2026-01-02T03-04-05",
        ),
        ("a.jsonl.reset.2026-13-99T99-99-99Z", True, None, None),  # only the digit shape counts
        (".jsonl", False, None, None),  # its session id would be ""
        ("x.JSONL", False, None, None),
        ("a.jsonl.bak.2026-01-02T03-04-05Z", False, None, None),
        ("a.jsonl.Reset.2026-01-02T03-04-05Z", False, None, None),
        ("x.jsonl.reset.1775000000000", False, None, None),
        (".jsonl.reset.2026-01-02T03-04-05Z", False, None, None),
        ("sessions.json.bak.3", False, None, None),
        ("a.trajectory.jsonl", False, None, None),
        ("a.checkpoint.0123abcd-0123-4abc-8abc-0123456789ab.jsonl", False, None, None),
        ("a.checkpoint.0123abcd-0123-6abc-8abc-0123456789ab.jsonl", True, None, None),  # a v6 uuid: primary
    ],
)
def test_which_names_are_sessions_and_their_export_names(
    name: str, session: bool, export: str | None, header: str | None
) -> None:
    assert is_session_transcript(name) is session
    if export is not None:
        assert (export_name(name), header_name(name)) == (export, header)


def test_a_line_longer_than_the_cap_is_skipped_with_its_number_and_never_held_whole() -> None:
    class Reads(io.BytesIO):
        """Records the largest single read the renderer asked for."""

        largest = 0

        def readline(self, size: int | None = -1) -> bytes:
            chunk = super().readline(size)
            Reads.largest = max(Reads.largest, len(chunk))
            return chunk

    long_line = _record("x" * 5000)
    data = "\n".join([_record("one"), long_line, _record("three")]).encode()
    writer = ExportWriter("s", keep_bytes=1 << 20)
    notes = render_transcript(Reads(data), writer, archive=False, max_record_bytes=1000)
    assert notes.oversized_lines == (2,)
    assert writer.data == b"# Session s\n\nUser: one\nUser: three\n"
    assert Reads.largest <= 1001  # the long line was read in steps no larger than the cap (+1)


def test_the_writer_forgets_everything_on_reset_and_keeps_only_small_exports() -> None:
    out: list[bytes] = []
    writer = ExportWriter("s", write=out.append, truncate=out.clear, keep_bytes=40)
    writer.line("User: " + "a" * 10)
    writer.reset()
    writer.line("User: b")
    writer.finish()
    assert b"".join(out) == b"# Session s\n\nUser: b\n" == writer.data
    big = ExportWriter("s", keep_bytes=10)
    big.line("User: " + "c" * 20)
    big.finish()
    assert big.data is None and big.size == len("# Session s\n\nUser: " + "c" * 20 + "\n")
