"""The one escaping policy for text that came from outside, before it reaches a terminal or a log line.

Outside text is everything memwarm did not write itself: file names, config values and keys, config,
include, workspace and index paths, qmd's output, OS error messages, command-line arguments. Before it
is put into a human view (a table, a TSV row, a stderr diagnostic) it goes through `escape_text`:

- a backslash is doubled, so every escape below reads back unambiguously;
- tab, line feed and carriage return become `\\t`, `\\n`, `\\r`;
- a byte that is not valid UTF-8 (decoded with surrogateescape) becomes `\\xNN`, and so do the other C0
  controls and DEL (for them the byte and the character are the same);
- every other character that a terminal acts on or that is invisible becomes `\\uNNNN` (`\\UNNNNNNNN`
  above U+FFFF): C1 controls (U+0080-U+009F, U+009B is CSI), format characters (Unicode category Cf:
  bidi marks, embeddings, overrides and isolates, zero-width space, joiners, word joiner, invisible
  operators, BOM, soft hyphen, tag characters), the line and paragraph separators U+2028/U+2029, and
  lone surrogates.

So `\\xNN` is always a byte and `\\u` a character, as in bash's `$'...'` and Python string literals
(`shell_quote` relies on that). Invisible characters are escaped too, not only dangerous ones: a note
named `2026-04-11<U+200B>.md` must not look like the daily note it is not. The price is that text
which needs joiners (emoji sequences, ZWNJ in Persian) shows them as `\\u200d`/`\\u200c`.

A message echoes a piece of outside text (a version, a config value, an argument) through `clip`: at
most OUTSIDE_TEXT_CHARS characters, then an ellipsis. Paths are echoed whole (the OS bounds them).

JSON keeps the raw text: `json_text` (cli/terminal/output.py) writes the same characters as `\\uNNNN` JSON
escapes, which a JSON reader turns back into exactly the original string.

Text that is data (a prelude, a bootstrap file) goes to a pipe byte for byte; on a terminal it goes
through `visible_text`, the same escapes without doubled backslashes, its tabs, line feeds and CRLF line
ends kept: a note's OSC 52 or clear-screen is shown, never acted on.
"""

from __future__ import annotations

import functools
import re

# json.dumps's own string encoder, from its C module: `json` itself costs every start ~2 ms CPU.
from _json import encode_basestring as _encode_json_string

from memwarm_cli.frozen_records import record

# Unicode categories Cc, Cf, Zl and Zp (checked against unicodedata by tests/test_textsafe.py), plus
# every surrogate: D800-DFFF holds both lone surrogates and surrogateescape's undecodable bytes.
_UNSAFE_BEYOND_C0 = (
    "\x7f-\x9f\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e"
    "\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ud800-\udfff\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f"
)
_UNSAFE_CLASS = "\x00-\x1f" + _UNSAFE_BEYOND_C0


@record  # not a typing.NamedTuple: importing typing costs every start ~4 ms
class _Patterns:
    unsafe: re.Pattern[str]  # what the policy escapes, backslash aside
    # The same beyond the C0 controls: for JSON and TOML writers, which escape C0 in strings themselves
    # and whose line feeds are the document's own.
    beyond_c0: re.Pattern[str]
    unsafe_or_backslash: re.Pattern[str]
    unsafe_but_tab: re.Pattern[str]
    # What visible_text shows: the unsafe characters but a line's layout (tab, line feed, the CR of CRLF).
    unsafe_in_text: re.Pattern[str]


@functools.cache
def patterns() -> _Patterns:
    """Compiled when first needed: printable ASCII, nearly all text memwarm writes, is told apart at C
    speed without them, and compiling these classes cost every start about 2 ms (the prelude's too)."""
    return _Patterns(
        re.compile(f"[{_UNSAFE_CLASS}]"),
        re.compile(f"[{_UNSAFE_BEYOND_C0}]"),
        re.compile(f"[{_UNSAFE_CLASS}\\\\]"),
        re.compile(f"[\\x00-\\x08\\x0a-\\x1f{_UNSAFE_BEYOND_C0}]"),
        re.compile(f"[\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f{_UNSAFE_BEYOND_C0}]|\\r(?!\\n)"),
    )


_NAMED = {"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape_char(ch: str) -> str:
    named = _NAMED.get(ch)
    if named is not None:
        return named
    code = ord(ch)
    if code < 0x80:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _escape_match(match: re.Match[str]) -> str:
    return _escape_char(match.group())


def escape_text(text: str) -> str:
    """`text` made one line and safe for a terminal, by the policy above (backslashes doubled)."""
    if text.isascii():  # C-speed checks first: scan escapes every file name
        if text.isprintable() and "\\" not in text:
            return text
    elif not patterns().unsafe_or_backslash.search(text):
        return text
    return patterns().unsafe_or_backslash.sub(_escape_match, text)


def escape_unsafe(text: str, *, keep_tabs: bool = False) -> str:
    """The same policy without doubling backslashes: the last guard on a line whose parts are escaped.

    Writers apply it to every human line, so a part someone forgot to escape still cannot break the
    line or reach the terminal (it is only no longer unambiguous). `keep_tabs` for a TSV line, whose
    tabs are its own (its fields are escaped, so they hold none).
    """
    if text.isascii():  # C-speed checks first: a scan writes 100k lines
        # printable ASCII is 0x20-0x7e: with tabs kept, a tab is as good as a space
        if text.isprintable() or (keep_tabs and text.replace("\t", " ").isprintable()):
            return text
    elif not patterns().unsafe.search(text):
        return text
    return (patterns().unsafe_but_tab if keep_tabs else patterns().unsafe).sub(_escape_match, text)


_TEXT_LAYOUT = str.maketrans("", "", "\t\n")


def visible_text(text: str) -> str:
    """Multi-line text that is data (a prelude, a bootstrap file) for a terminal: every character the
    policy escapes shown as its escape (`\\x1b`, `\\u202e`), as `cat -v` shows them, but the text's own
    layout kept: tabs, line feeds, and a carriage return that ends a line (CRLF). Backslashes are not
    doubled (the text reads as written; its exact bytes are what a pipe gets)."""
    if text.isascii() and text.translate(_TEXT_LAYOUT).isprintable():  # C speed: the usual prelude
        return text
    return patterns().unsafe_in_text.sub(_escape_match, text)


def has_unsafe(text: str) -> bool:
    """Whether `text` holds a character the policy escapes (backslashes aside)."""
    return patterns().unsafe.search(text) is not None


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # a JSON escape holds 16 bits: a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_safe(json_text: str) -> str:
    """JSON text (from json.dumps, non-ASCII kept) with every character the policy escapes beyond the C0
    controls written as JSON's own \\u escape: the same data for a reader, nothing a terminal acts on."""
    if json_text.isascii() and "\x7f" not in json_text:  # C speed: most of a big scan is plain ASCII
        return json_text
    return patterns().beyond_c0.sub(_json_escape, json_text)


def json_string(text: str) -> str:
    """`text` as a JSON string literal, as json.dumps(text, ensure_ascii=False) and then json_safe."""
    return json_safe(_encode_json_string(text))


OUTSIDE_TEXT_CHARS = 200  # of one piece of outside text in a message: a version, a value, a name
ELLIPSIS = "\u2026"


def clip(text: str, limit: int = OUTSIDE_TEXT_CHARS) -> str:
    """Outside text as a message echoes it: whole up to `limit` characters, else its first ones and an
    ellipsis (a 900 KB version string in a package.json was printed whole on every command). A
    surrogate pair is never split; the text is escaped afterwards as any other (escape_text)."""
    if len(text) <= limit:
        return text
    end = limit - 1
    if "\ud800" <= text[end - 1] <= "\udbff":  # a high surrogate whose low half would be cut off
        end -= 1
    return text[:end] + ELLIPSIS


def shell_quote(word: str) -> str:
    """`word` as one shell word a human can paste: shlex's quoting, or bash's `$'...'` when it holds a
    character the policy escapes (its escapes are the ones bash reads back)."""
    # shlex: only messages that quote a path need it; kept off prelude, scan and context (test_imports)
    import shlex

    if not has_unsafe(word):
        return shlex.quote(word)
    return "$'" + escape_text(word).replace("'", "\\'") + "'"
