"""One output stream held in bounded memory, counted in UTF-16 units as OpenClaw counts it."""

from __future__ import annotations

from memwarm_cli.backends.qmd.child_watch import MAX_OUTPUT_CHARS, CappedOutput
from memwarm_cli.jsstring import js_length


def test_keeps_the_last_units_like_a_js_slice_of_the_tail() -> None:
    out = CappedOutput(limit=10)
    for chunk in (b"0123", b"456789", b"abc"):
        out.feed(chunk)
    out.close()
    assert out.overflowed
    assert out.text() == "3456789abc"  # appended.slice(-10)


def test_counts_utf16_units_not_code_points() -> None:
    """An emoji is one code point but two units: 100,001 of them pass OpenClaw's 200,000-char cap."""
    at_cap = CappedOutput()
    at_cap.feed("😀".encode() * (MAX_OUTPUT_CHARS // 2))
    assert not at_cap.overflowed
    at_cap.feed("😀".encode())
    assert at_cap.overflowed
    assert js_length(at_cap.text()) == MAX_OUTPUT_CHARS


def test_a_cut_inside_a_surrogate_pair_keeps_the_low_half_as_js_does() -> None:
    out = CappedOutput(limit=3)
    out.feed("😀ab".encode())  # 4 units: the cut falls between the emoji's two halves
    assert out.text() == "\ude00ab"
    assert js_length(out.text()) == 3


def test_utf8_split_across_reads_is_decoded_whole_and_a_torn_end_is_replaced() -> None:
    out = CappedOutput()
    data = "é€😀".encode()
    for index in range(len(data)):
        out.feed(data[index : index + 1])
    out.feed(b"\xe2\x82")  # a sequence the stream ends in the middle of
    out.close()
    assert out.text() == "é€😀\ufffd"
    assert not out.overflowed
