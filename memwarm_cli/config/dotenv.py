"""`.env` files, read the way the `dotenv` npm package reads them (config.md §6.3 step 1).

OpenClaw loads `./.env` and then `<stateDir>/.env` into the real process environment, never replacing a
variable that is already set. memwarm does the same on its own copy of the environment, when
`load_config` is asked to (the CLI always asks: a memwarm process is the real-process.env case).
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterator, MutableMapping

from memwarm_cli.frozen_records import record
from memwarm_cli.jsstring import JS_LINE_TERMINATORS, JS_WHITESPACE_CLASS_BODY, js_regex, js_trim
from memwarm_cli.safe_files import FileTooLargeError, NotRegularFileError, read_bounded

# dotenv 16's LINE expression and its quote stripping, both with the `m` flag, run as JavaScript runs them
# (jsstring.js_regex: JS's `\s` includes a BOM, its `\w` is ASCII, `^`/`$` also stand at U+2028/U+2029).
# LINE is `(?:^|^)\s*` followed by this (see _line_matches).
_LINE_REST = (
    r"(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*\"(?:\\\"|[^\"])*\"|\s*`(?:\\`|[^`])*`|"
    r"[^#\r\n]+)?\s*(?:#.*)?(?:$|$)"
)


@record  # not a typing.NamedTuple: importing typing costs every start ~4 ms
class _Patterns:
    rest: re.Pattern[str]
    quoted: re.Pattern[str]
    space_run: re.Pattern[str]
    line_end: re.Pattern[str]


@functools.cache
def _patterns() -> _Patterns:
    """Compiled when a `.env` is first parsed: most runs have none, and every run (the prelude's fast
    route too) asks for the files."""
    return _Patterns(
        js_regex(_LINE_REST, multiline=True),
        js_regex(r"^(['\"`])([\s\S]*)\1$", multiline=True),
        re.compile(f"[{JS_WHITESPACE_CLASS_BODY}]*"),
        re.compile(f"[{JS_LINE_TERMINATORS}]"),
    )


# A `.env` holds a few variables: a bigger file is a mistake, not settings, and is not read. Python's
# regex engine keeps state per character of a quoted value it scans, so an unterminated quote cost about
# 170 bytes of memory per byte of file (15 MiB took 2.6 GB); 1 MiB bounds that.
MAX_DOTENV_BYTES = 1024 * 1024


def _line_matches(text: str) -> Iterator[re.Match[str]]:
    r"""`LINE.exec` in its /g loop, in linear time where whitespace runs are long.

    A match starts at a line start, where `\s*` takes the whole whitespace run (newlines included) and
    the key must begin right after it: backing off inside the run cannot help, since `export` and the key
    start with a non-space. So each run is tried once, at its end, and every line start inside it fails
    with it; run as one regex, each of n blank lines rescanned the rest of the file (8,000 took 8 s).
    """
    patterns = _patterns()
    pos = 0
    while pos <= len(text):
        if pos > 0 and text[pos - 1] not in JS_LINE_TERMINATORS:
            line_end = patterns.line_end.search(text, pos)
            if line_end is None:
                return
            pos = line_end.end()
        space = patterns.space_run.match(text, pos)
        key_at = space.end() if space is not None else pos  # `*` always matches
        match = patterns.rest.match(text, key_at)
        if match is not None:
            yield match
            pos = match.end()
        else:
            pos = key_at + 1


def parse_dotenv(text: str) -> dict[str, str]:
    r"""dotenv's `parse(src)`: each LINE match a variable, its value JS-trimmed, one layer of quotes off
    (`value.replace(/^(['"`])([\s\S]*)\1$/mg, '$2')`), and `\n`/`\r` expanded in double quotes."""
    result: dict[str, str] = {}
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    for match in _line_matches(text):
        key = match.group(1)
        value = js_trim(match.group(2) or "")
        maybe_quote = value[:1]
        value = _patterns().quoted.sub(lambda quoted: quoted.group(2), value)
        if maybe_quote == '"':
            value = value.replace("\\n", "\n").replace("\\r", "\r")
        result[key] = value
    return result


def load_dotenv_file(path: str | os.PathLike[str], env: MutableMapping[str, str]) -> list[str]:
    """Add the file's variables that `env` does not have yet; returns their names. Errors are ignored."""
    try:
        data, _ = read_bounded(path, MAX_DOTENV_BYTES)
    except (OSError, ValueError, NotRegularFileError, FileTooLargeError):
        return []
    try:
        variables = parse_dotenv(data.decode("utf-8", errors="replace"))
    except (MemoryError, RecursionError):  # under a tight memory limit: unreadable, as dotenv's errors are
        return []
    added: list[str] = []
    for key, value in variables.items():
        # Node's process.env keeps a value up to its first NUL; `obj.__proto__ = "x"` sets nothing.
        value = value.split("\0", 1)[0]
        if key not in env and key != "__proto__":
            env[key] = value
            added.append(key)
    return added
