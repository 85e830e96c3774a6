"""One output stream of a qmd child, held in bounded memory: decoded as it arrives, counted and capped in
characters as OpenClaw counts them.

OpenClaw's runCliCommand appends each chunk to a JS string and keeps its last `MAX_OUTPUT_CHARS` UTF-16
units (`appended.slice(-max)`); going past the cap marks the stream truncated. The same is done here, so
a child that writes gigabytes costs at most about 200,000 characters of memory.
"""

from __future__ import annotations

import codecs
from collections import deque

from memwarm_cli.jsstring import js_length, js_slice

MAX_OUTPUT_CHARS = 200_000  # OpenClaw's MAX_QMD_OUTPUT_CHARS


class CappedOutput:
    """The last `limit` UTF-16 units of a byte stream decoded as UTF-8 (invalid bytes become U+FFFD)."""

    def __init__(self, limit: int = MAX_OUTPUT_CHARS) -> None:
        self.limit = limit
        self.overflowed = False  # more than `limit` units arrived: the head was dropped
        self._decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._pieces: deque[str] = deque()
        self._units = 0  # UTF-16 units held in _pieces

    def feed(self, data: bytes) -> None:
        self._append(self._decoder.decode(data))

    def close(self) -> None:
        """End of stream: a trailing partial UTF-8 sequence becomes U+FFFD."""
        self._append(self._decoder.decode(b"", final=True))

    def text(self) -> str:
        return "".join(self._pieces)

    def _append(self, text: str) -> None:
        if not text:
            return
        self._pieces.append(text)
        self._units += js_length(text)
        if self._units <= self.limit:
            return
        self.overflowed = True
        # Drop whole pieces from the front, then cut the first one to what still fits.
        while self._units - js_length(self._pieces[0]) >= self.limit:
            self._units -= js_length(self._pieces.popleft())
        excess = self._units - self.limit
        if excess > 0:
            first = self._pieces[0]
            self._pieces[0] = js_slice(first, excess)
            self._units -= excess
