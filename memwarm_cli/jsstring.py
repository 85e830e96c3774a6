"""JavaScript string semantics, in one place, for byte-for-byte parity with OpenClaw (Node).

JS strings are sequences of UTF-16 code units: `.length` and `.slice` count units, so a character
outside the BMP counts 2 and a slice can split it, leaving a lone surrogate. Python `str` holds code
points, so lengths and slices here go through UTF-16. Lone surrogates are kept as surrogate code points.

JS `trim()` strips a different set from Python's `str.strip()`: it strips U+FEFF but not U+001C-U+001F
or U+0085.

OpenClaw's two cutting helpers over UTF-16 code units live here too: `truncate_utf16_safe`
(`truncateUtf16Safe`) and `clamp_to_budget` (`clampToBudget`, bootstrap-context.md §5.3-5.4). A cut may
leave a lone surrogate, kept as a surrogate code point, exactly where OpenClaw leaves one.

This module is longer than 400 lines because it is the one home of JavaScript string semantics (lengths,
trims, cuts, regex translation for both flag sets, `decodeURIComponent`): split, each part would be a
second place other modules must know to look.
"""

from __future__ import annotations

import functools
import math
import re

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

JS_WHITESPACE = (
    "\t\n\v\f\r \u00a0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)

_ASTRAL_START = "\U00010000"


@functools.cache
def _surrogates() -> re.Pattern[str]:
    """Compiled when first needed: ASCII text never asks, and compiling the 2,048-point class cost every
    start ~0.15 ms (the prelude's too)."""
    return re.compile("[\ud800-\udfff]")


def js_trim(text: str) -> str:
    """`String.prototype.trim()`."""
    return text.strip(JS_WHITESPACE)


def js_trim_end(text: str) -> str:
    """`String.prototype.trimEnd()`."""
    return text.rstrip(JS_WHITESPACE)


def js_trim_start(text: str) -> str:
    """`String.prototype.trimStart()`."""
    return text.lstrip(JS_WHITESPACE)


def _is_bmp_only(text: str) -> bool:
    return text.isascii() or max(text) < _ASTRAL_START


def js_length(text: str) -> int:
    """`.length`: the number of UTF-16 code units."""
    if _is_bmp_only(text):
        return len(text)
    return len(text) + sum(1 for ch in text if ch >= _ASTRAL_START)


def js_slice(text: str, start: int, end: int | None = None) -> str:
    """`.slice(start, end)` for non-negative indices, in UTF-16 code units.

    A cut inside a surrogate pair keeps the half that falls inside as a lone surrogate code point.
    """
    if start < 0 or (end is not None and end < 0):
        raise ValueError("js_slice supports non-negative indices only")
    if _is_bmp_only(text):
        return text[start:end]
    units = text.encode("utf-16-le", "surrogatepass")
    stop = len(units) if end is None else min(len(units), 2 * end)
    return units[2 * start : stop].decode("utf-16-le", "surrogatepass")


def to_well_formed(text: str) -> str:
    """`String.prototype.toWellFormed()`: lone surrogates become U+FFFD, as Node does when writing UTF-8.

    Adjacent high+low surrogate code points form the character they encode.
    """
    if text.isascii() or _surrogates().search(text) is None:  # C speed: whole scan outputs pass here
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def well_formed_with_escapes(text: str) -> tuple[str, str]:
    """Text decoded from `\\u` escapes, as Node writes it to the OS: adjacent surrogate escapes form
    their character, lone ones become U+FFFD. Also returns the lone ones as escapes (`\\ud800`), or ""."""
    if _surrogates().search(text) is None:
        return text, ""
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    lone = _surrogates().findall(joined)
    if not lone:
        return joined, ""
    return to_well_formed(joined), "".join(f"\\u{ord(ch):04x}" for ch in lone)


_ASTRAL = "[\U00010000-\U0010ffff]"  # compiled by re's cache for the first astral text (rare)


def _as_pair(match: re.Match[str]) -> str:
    point = ord(match.group()) - 0x10000
    return chr(0xD800 + (point >> 10)) + chr(0xDC00 + (point & 0x3FF))


def to_utf16_units(text: str) -> str:
    """The JS string as Python sees it one UTF-16 code unit per character: a character outside the BMP
    becomes its two surrogates. `len`, slices and a non-`u` regex on the result are JS's on the string."""
    if _is_bmp_only(text):
        return text
    return re.sub(_ASTRAL, _as_pair, text)


def from_utf16_units(units: str) -> str:
    """Back from `to_utf16_units`: each adjacent high+low surrogate pair becomes its character (as a `u`
    regex and Node's UTF-8 encoder read them); a lone surrogate stays a surrogate code point."""
    if units.isascii() or _surrogates().search(units) is None:
        return units
    return units.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def js_decode_uri_component(text: str) -> str:
    """`decodeURIComponent`: every `%XX` escape decoded (none is reserved); raises ValueError where JS
    throws URIError: a `%` without two hex digits after it, and escapes that are not one well-formed UTF-8
    sequence (a stray continuation byte, a truncated, overlong or surrogate sequence, beyond U+10FFFF)."""
    if "%" not in text:
        return text
    out: list[str] = []
    i, n = 0, len(text)

    def byte_at(k: int) -> int:
        if k + 2 >= n or text[k] != "%" or not {text[k + 1], text[k + 2]} <= _HEX_DIGITS:
            raise ValueError("URI malformed")
        return int(text[k + 1 : k + 3], 16)

    while i < n:
        ch = text[i]
        if ch != "%":
            out.append(ch)
            i += 1
            continue
        first = byte_at(i)
        i += 3
        if first < 0x80:
            out.append(chr(first))
            continue
        if first & 0xE0 == 0xC0:
            count = 1
        elif first & 0xF0 == 0xE0:
            count = 2
        elif first & 0xF8 == 0xF0:
            count = 3
        else:  # a continuation byte first, or a 5/6-byte lead
            raise ValueError("URI malformed")
        octets = bytearray([first])
        for _ in range(count):
            if i >= n:
                raise ValueError("URI malformed")
            octet = byte_at(i)
            if octet & 0xC0 != 0x80:
                raise ValueError("URI malformed")
            octets.append(octet)
            i += 3
        try:  # Python's strict decoder refuses overlong, surrogate and > U+10FFFF sequences, as JS does
            out.append(bytes(octets).decode("utf-8"))
        except UnicodeDecodeError:
            raise ValueError("URI malformed") from None
    return "".join(out)


# ---- values as JavaScript shows them (messages, env assignment, object keys) ----------------------


MAX_EXACT_INT = 2**53  # every integer up to here is exactly a double


def js_int(value: int) -> int | float:
    """An integer as JS holds it: a double. Beyond 2**53 it becomes the nearest float (inf if too big)."""
    if -MAX_EXACT_INT <= value <= MAX_EXACT_INT:
        return value
    try:
        return float(value)
    except OverflowError:
        return float("inf") if value > 0 else float("-inf")


def js_number_text(value: float) -> str:
    """`String(number)` for the numbers a config can hold (integral floats print without `.0`)."""
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "Infinity" if value > 0 else "-Infinity"
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return repr(value)


def js_typeof(value: Any) -> str:
    """`typeof value` for JSON-like values (null and arrays are "object")."""
    if value is None or isinstance(value, dict | list):
        return "object"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "undefined"


def js_string(value: Any) -> str:
    """`String(value)` for JSON-like values."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return js_number_text(value)
    if isinstance(value, dict):
        return "[object Object]"
    if isinstance(value, list):
        return ",".join("" if v is None else js_string(v) for v in value)
    return str(value)


def js_is_finite_number(value: Any) -> bool:
    """`typeof value === "number" && Number.isFinite(value)`; bool is not a number.

    An int too large for a double is what JS would hold as Infinity, so it is not finite.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


def js_truthy(value: Any) -> bool:
    """JavaScript truthiness for JSON values: empty containers are truthy, NaN and "" are falsy."""
    if value is None or value is False:
        return False
    if isinstance(value, bool):
        return True
    if isinstance(value, int | float):
        return value != 0 and not (isinstance(value, float) and math.isnan(value))
    if isinstance(value, str):
        return value != ""
    return True


def js_trimmed_string(value: Any) -> str | None:
    """A string setting as OpenClaw reads it: the JS-trimmed text, or None if not a string or blank."""
    if not isinstance(value, str):
        return None
    return js_trim(value) or None


# ---- regular expressions and String.prototype.replace as JavaScript runs them -------------------------

# The JS whitespace set as the body of a regex character class (`\s` in a JS regex is exactly this set).
JS_WHITESPACE_CLASS_BODY = "".join(f"\\u{ord(ch):04x}" for ch in JS_WHITESPACE)
JS_LINE_TERMINATORS = "\n\r\u2028\u2029"  # where a JS `.` stops and an `m`-flag `^`/`$` matches
_JS_LINE_TERMINATORS_BODY = r"\n\r\u2028\u2029"  # the same, as a regex character class body


def js_regex_source(source: str, *, multiline: bool = False) -> str:
    r"""Translate a JS regex source (no `u`, `s` or `y` flag; `m` as `multiline`) into Python `re` syntax.

    Compile the result with `re.ASCII` (see `js_regex`). What differs between the two engines is
    rewritten: `\s`/`\S` become the explicit JS whitespace class (Python's differs: it includes
    U+001C-U+001F and U+0085, and lacks U+FEFF), `.` excludes all four JS line terminators, `$` is end of
    input only; with `multiline`, `^` and `$` also match next to any of the four line terminators.
    `[\s\S]` (any character) is the only class that may hold `\S`; anything this function cannot
    translate faithfully raises ValueError rather than compiling to a different meaning.
    """
    out: list[str] = []
    in_class = False
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            if i + 1 >= len(source):
                raise ValueError("regex source ends with a lone backslash")
            escape = source[i : i + 2]
            i += 2
            if escape == r"\s":
                out.append(JS_WHITESPACE_CLASS_BODY if in_class else f"[{JS_WHITESPACE_CLASS_BODY}]")
            elif escape == r"\S":
                if in_class:
                    raise ValueError(r"\S inside a character class is only supported as [\s\S]")
                out.append(f"[^{JS_WHITESPACE_CLASS_BODY}]")
            else:
                out.append(escape)
            continue
        if in_class:
            if ch == "]":
                in_class = False
            out.append(ch)
        elif source.startswith(r"[\s\S]", i):
            out.append(r"[\s\S]")  # any character, in either engine
            i += len(r"[\s\S]")
            continue
        elif ch == "[":
            in_class = True
            out.append(ch)
            # `]` right after `[` or `[^` closes an empty class in JS but is a literal in Python.
            rest = source[i + 1 :]
            if rest.startswith("]") or rest.startswith("^]"):
                raise ValueError("empty character classes are not supported")
        elif ch == ".":
            out.append(f"[^{_JS_LINE_TERMINATORS_BODY}]")
        elif ch == "$":
            out.append(f"(?=[{_JS_LINE_TERMINATORS_BODY}]|\\Z)" if multiline else r"\Z")
        elif ch == "^" and multiline:
            out.append(f"(?:\\A|(?<=[{_JS_LINE_TERMINATORS_BODY}]))")
        elif source.startswith("(?<", i) and not source.startswith(("(?<=", "(?<!"), i):
            raise ValueError("named groups are not supported")
        else:
            out.append(ch)
        i += 1
    if in_class:
        raise ValueError("unterminated character class")
    return "".join(out)


def js_regex(source: str, *, ignore_case: bool = False, multiline: bool = False) -> re.Pattern[str]:
    r"""A JS regex (source without slashes; flags `g` and optionally `i` and `m`) as a compiled Python
    pattern.

    `re.ASCII` gives JS's ASCII `\b`, `\d`, `\w` and, with `i`, ASCII-only case folding, which is what JS
    does without the `u` flag for patterns whose letters are ASCII (a non-ASCII character never folds to
    an ASCII one there, so `K` U+212A does not match `k`); keep pattern letters ASCII.
    """
    if not source.isascii():
        raise ValueError("only ASCII regex sources are supported (JS folds non-ASCII letters itself)")
    flags = re.ASCII | (re.IGNORECASE if ignore_case else 0)
    return re.compile(js_regex_source(source, multiline=multiline), flags)


_FOLDS_TO_ASCII = {"s": "\u017f", "k": "\u212a"}  # the only non-ASCII characters `iu` folds to ASCII
_IU_WORD = "A-Za-z0-9_\u017f\u212a"
_IU_BOUNDARY = f"(?:(?<=[{_IU_WORD}])(?![{_IU_WORD}])|(?<![{_IU_WORD}])(?=[{_IU_WORD}]))"


def _class_folds(body: str) -> str:
    """The characters an `iu` class with this (ASCII-range) body also holds: ſ if it has an s, K a k."""
    letters: set[str] = set()
    i = 0
    while i < len(body):
        if body[i] == "\\":
            i += 10 if body.startswith("\\U", i) else 6 if body.startswith("\\u", i) else 2
            continue
        low = body[i]
        if i + 2 < len(body) and body[i + 1] == "-" and body[i + 2] != "\\":
            high, i = body[i + 2], i + 3
        else:
            high, i = low, i + 1
        letters.update(ch for ch in "sSkK" if low <= ch <= high)
    return "".join(sorted({_FOLDS_TO_ASCII[ch.lower()] for ch in letters}))


def js_unicode_regex(source: str, *, ignore_case: bool = False) -> re.Pattern[str]:
    r"""A JS regex with the `u` flag (and `i` when `ignore_case`) for code-point strings, as Python `re`.

    The source is ASCII; Python `\U0001xxxx` / `\uXXXX` escapes stand for the non-ASCII characters of a
    class (`\p{…}` is not translated: put its ranges in as escapes). `\s` is the JS whitespace class, `.`
    stops at the four line terminators, `$` is the end of input. With `i`, JS folds `ſ` (U+017F) to `s` and
    `K` (U+212A) to `k` and no other non-ASCII character to an ASCII one: those two are added to each `s`
    and `k` (literal or in a class) and to `\b`/`\w`, and case folding is otherwise ASCII (`re.ASCII`).
    Python-only syntax in the source (possessive quantifiers) passes through.
    """
    if not source.isascii():
        raise ValueError("only ASCII regex sources are supported; escape other characters")
    out: list[str] = []
    body: list[str] | None = None  # the class being read
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\":
            width = 10 if source.startswith("\\U", i) else 6 if source.startswith("\\u", i) else 2
            escape = source[i : i + width]
            i += width
            if escape == "\\p" or escape == "\\P":
                raise ValueError("\\p{...} is not supported: write the class's ranges")
            if escape == "\\s":
                escape = JS_WHITESPACE_CLASS_BODY if body is not None else f"[{JS_WHITESPACE_CLASS_BODY}]"
            elif escape == "\\S":
                raise ValueError("\\S is not supported")
            elif ignore_case and escape == "\\b" and body is None:
                escape = _IU_BOUNDARY
            elif ignore_case and escape == "\\w":
                escape = _IU_WORD if body is not None else f"[{_IU_WORD}]"
            (out if body is None else body).append(escape)
            continue
        i += 1
        if body is not None:
            if ch == "]" and body in ([], ["^"]):
                raise ValueError("empty character classes are not supported")
            if ch == "]":
                text = "".join(body)
                negated, text = (text[:1], text[1:]) if text.startswith("^") else ("", text)
                # The folds go first: after a trailing `-` they would make a range.
                out.append(f"[{negated}{_class_folds(text) if ignore_case else ''}{text}]")
                body = None
            else:
                body.append(ch)
        elif ch == "[":
            body = []
        elif ch == ".":
            out.append(f"[^{_JS_LINE_TERMINATORS_BODY}]")
        elif ch == "$":
            out.append(r"\Z")
        elif ignore_case and ch.lower() in _FOLDS_TO_ASCII:
            out.append(f"[{ch}{_FOLDS_TO_ASCII[ch.lower()]}]")
        else:
            out.append(ch)
    if body is not None:
        raise ValueError("unterminated character class")
    flags = re.ASCII | (re.IGNORECASE if ignore_case else 0)
    return re.compile("".join(out), flags)


ELLIPSIS = "\u2026"


def _is_high(unit: str) -> bool:
    return "\ud800" <= unit <= "\udbff"


def _is_low(unit: str) -> bool:
    return "\udc00" <= unit <= "\udfff"


def truncate_utf16_safe(text: str, limit: int) -> str:
    """The first `limit` units, one fewer when the cut would split a surrogate pair."""
    limit = max(0, limit)
    if js_length(text) <= limit:
        return text
    if limit > 0 and _is_high(js_slice(text, limit - 1, limit)) and _is_low(js_slice(text, limit, limit + 1)):
        return js_slice(text, 0, limit - 1)
    return js_slice(text, 0, limit)


def slice_utf16_safe(text: str, start: int, end: int | None = None) -> str:
    """`sliceUtf16Safe` (OpenClaw 2026.7.33+): `text.slice(start, end)` in UTF-16 units, the start moved
    forward past a low surrogate and the end back before a high one, so no surrogate pair is split."""
    length = js_length(text)
    begin = max(length + start, 0) if start < 0 else min(start, length)
    stop = length if end is None else max(length + end, 0) if end < 0 else min(end, length)
    if stop <= begin:
        return ""
    if (
        0 < begin < length
        and _is_low(js_slice(text, begin, begin + 1))
        and _is_high(js_slice(text, begin - 1, begin))
    ):
        begin += 1
    if (
        0 < stop < length
        and _is_high(js_slice(text, stop - 1, stop))
        and _is_low(js_slice(text, stop, stop + 1))
    ):
        stop -= 1
    return js_slice(text, begin, stop)


def clamp_to_budget(text: str, budget: int) -> str:
    """`clampToBudget`: the text if it fits, else a safe cut ending in `…` (a bare cut for 3 or fewer)."""
    if budget <= 0:
        return ""
    if js_length(text) <= budget:
        return text
    if budget <= 3:
        return truncate_utf16_safe(text, budget)
    return truncate_utf16_safe(text, budget - 1) + ELLIPSIS
