"""Escapers that make outside text (file names, qmd's output, config keys) one line and terminal-safe.

Two policies, kept apart on purpose: `one_line` for log and finding lines (control and line-break
characters only), `escape_name` for file names in scan's table and TSV cells (also backslashes, bidi
overrides and undecodable bytes).
"""

from __future__ import annotations

import re

# Control characters and everything str.splitlines() breaks on (C1 controls include NEL, U+0085).
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(text: str) -> str:
    """`text` on one line: control and line-break characters as `\\xNN` / `\\uNNNN` (tabs stay)."""
    return _CONTROL.sub(
        lambda m: f"\\x{ord(m.group()):02x}" if m.group() < "\u0100" else f"\\u{ord(m.group()):04x}", text
    )


def escape_name(name: str) -> str:
    """A raw file name made safe for one table cell or TSV field: no control, bidi or undecodable bytes."""
    out: list[str] = []
    for ch in name:
        code = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch in "\t\n\r":
            out.append({"\t": "\\t", "\n": "\\n", "\r": "\\r"}[ch])
        elif 0xDC80 <= code <= 0xDCFF:  # an undecodable byte (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}")
        elif 0x202A <= code <= 0x202E or 0x2066 <= code <= 0x2069 or code in (0x200E, 0x200F, 0x061C):
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    return "".join(out)
