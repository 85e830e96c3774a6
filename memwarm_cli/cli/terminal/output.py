"""Output discipline shared by every command.

Data goes to stdout only when requested; diagnostics go to stderr. JSON is written with json.dumps,
never through Rich. The streams and the environment are the current invocation's (cli/terminal/invocation.py),
never sys.stdout, sys.stderr or os.environ, so an in-process run (cli/main.py `run`) writes where it was
told. stdout failures are errors (exit 5, or 0 when the reader went away); stderr failures are not.
"""

from __future__ import annotations

import errno
import io
import math
import os

from memwarm_cli.cli.terminal.invocation import Invocation, current, is_terminal, terminal_size
from memwarm_cli.errors import OutputError
from memwarm_cli.jsstring import to_well_formed
from memwarm_cli.textsafe import escape_text, escape_unsafe, json_safe, visible_text

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    import json
    from collections.abc import Callable, Iterable, Iterator
    from typing import Any, TextIO

    from rich.console import Console


def stdout_is_terminal() -> bool:
    # stdout is None when fd 1 was closed at startup (`memwarm ... >&-`); write_stdout reports that.
    return is_terminal(current().stdout)


def color_allowed(stream_is_tty: bool) -> bool:
    """Colour only on a terminal and never when NO_COLOR is set (to anything non-empty)."""
    return stream_is_tty and not current().env.get("NO_COLOR")


def make_console(*, stderr: bool = False) -> Console:
    """A Rich console on this invocation's stdout or stderr, sized and coloured from its own streams and
    environment (Rich would ask the process's fds and os.environ). Writes to stderr never raise."""
    # typing: rich loads it anyway; kept off the commands that draw nothing with it
    from typing import cast

    # rich (~23 ms by -X importtime): only the table views and init-backends' live display make a console
    from rich.console import Console

    invocation = current()
    stream = invocation.stderr if stderr else invocation.stdout
    tty = is_terminal(stream)
    width, height = terminal_size(invocation)
    if tty and invocation.env.get("TERM", "").lower() in ("dumb", "unknown"):
        width, height = 80, 25  # as Rich sizes a dumb terminal
    if stderr:
        file: TextIO = cast("TextIO", _StderrStream(invocation))
    else:
        file = stream if stream is not None else io.StringIO()  # closed: Rich would fall back to sys.stdout
    return Console(
        file=file,
        width=width,
        height=height,
        no_color=not color_allowed(tty),
        force_terminal=None,
        highlight=False,
        soft_wrap=False,
        _environ=invocation.env,
    )


def json_text(data: Any) -> str:
    """JSON like JSON.stringify: non-ASCII kept, lone surrogates escaped as \\udXXX, indented by 2.

    Beyond JSON.stringify, every character textsafe's policy escapes (C1 controls, bidi and other
    format characters, U+2028/U+2029) is written as a \\u escape too (textsafe.json_safe): JSON's own
    spelling of the same string, so a reader gets the raw text back and a terminal never acts on it.
    A number JSON cannot hold (NaN, Infinity: a qmd score of 1e400) is written as null, so every
    output parses with a strict JSON reader.
    """
    return json_safe(_dumps(data, indent=2))


def _dumps(value: Any, *, indent: int | None = None, encoder: json.JSONEncoder | None = None) -> str:
    import json  # here: ~2 ms CPU of every start, and only --json writes JSON

    try:
        if encoder is not None:
            return encoder.encode(value)
        return json.dumps(value, ensure_ascii=False, indent=indent, allow_nan=False)
    except ValueError:  # a NaN or an infinity somewhere (nearly never: checked only then)
        finite = _finite(value)
        if encoder is not None:
            return encoder.encode(finite)
        return json.dumps(finite, ensure_ascii=False, indent=indent, allow_nan=False)


def _finite(value: Any) -> Any:
    """`value` with every NaN and infinity replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


def json_chunks(
    data: Any,
    *,
    rows_key: str | None = None,
    row_text: Callable[[Any], str] | None = None,
    walk: bool = False,
) -> Iterator[str]:
    """json_text(data) and a final newline, in pieces, for a writer that writes them as they come.

    With `rows_key`, each item of an iterable under that key (scan's `files`) is written on one line,
    by `row_text` (which must give safe one-line JSON) or the stdlib's C encoder: the stdlib indents only
    in pure Python, about 13 us per scan row. The rows may be a generator: a million of them are
    written without ever being held at once. With `walk` (or `rows_key`), objects and lists are written
    here and the IndentedRows among them by their own `render`: the same text as json_text gives.
    """
    if rows_key is None and not walk:
        yield json_text(data) + "\n"
        return
    yield from _json_with_rows(data, rows_key, row_text or _compact_json, "")
    yield "\n"


class IndentedRows:
    """A list in data for json_chunks(..., walk=True) whose items write themselves: `render(item, indent)`
    gives the item as json_text would write it in a list whose items stand at `indent` (the hand-written
    JSON of `context --json`'s file rows: the stdlib indents only in pure Python)."""

    def __init__(self, items: Iterable[Any], render: Callable[[Any, str], str]) -> None:
        self.items, self.render = items, render

    def __iter__(self) -> Iterator[Any]:
        return iter(self.items)

    def chunks(self, indent: str) -> Iterator[str]:
        inner = indent + "  "
        separator = f",\n{inner}"
        first = True
        for item in self.items:
            yield f"[\n{inner}" if first else separator
            yield self.render(item, inner)
            first = False
        yield "[]" if first else f"\n{indent}]"


_ROW_ENCODERS: list[json.JSONEncoder] = []  # made on first use (json is imported then)


def _compact_json(value: Any) -> str:
    if not _ROW_ENCODERS:
        import json  # as in _dumps: prelude and scan's text never load json (test_imports)

        _ROW_ENCODERS.append(json.JSONEncoder(ensure_ascii=False, separators=(", ", ": "), allow_nan=False))
    return json_safe(_dumps(value, encoder=_ROW_ENCODERS[0]))


def _json_with_rows(
    value: Any, rows_key: str | None, row_text: Callable[[Any], str], indent: str
) -> Iterator[str]:
    inner = indent + "  "
    if isinstance(value, IndentedRows):
        yield from value.chunks(indent)
    elif isinstance(value, dict) and value:
        yield "{"
        for index, (key, item) in enumerate(value.items()):
            yield f"{',' if index else ''}\n{inner}{_compact_json(str(key))}: "
            if key == rows_key and not isinstance(item, (dict, str)) and item is not None:
                yield from _rows(item, row_text, inner)
            else:
                yield from _json_with_rows(item, rows_key, row_text, inner)
        yield f"\n{indent}}}"
    elif isinstance(value, list) and value:
        yield "["
        for index, item in enumerate(value):
            yield f"{',' if index else ''}\n{inner}"
            yield from _json_with_rows(item, rows_key, row_text, inner)
        yield f"\n{indent}]"
    else:
        # JSON text holds no raw line feed inside a string: every line break here is indentation.
        yield json_text(value).replace("\n", "\n" + indent)


def _rows(rows: Iterable[Any], row_text: Callable[[Any], str], indent: str) -> Iterator[str]:
    """A list written one row a line, from any iterable (`[]` when it gives none)."""
    separator = f",\n{indent}  "
    first = True
    for row in rows:
        yield f"[\n{indent}  {row_text(row)}" if first else separator + row_text(row)
        first = False
    yield "[]" if first else f"\n{indent}]"


class ReaderGone(Exception):
    """The reader of stdout went away (`memwarm scan | head`): cli/main.py exits 0 quietly."""


def write_stdout(text: str) -> None:
    """Write exactly `text` as UTF-8 (lone surrogates become U+FFFD, as Node writes them).

    Raises OutputError when stdout is closed or the write fails (disk full, I/O error), and ReaderGone
    when the reader went away (EPIPE).
    """
    invocation = current()
    stdout = invocation.stdout
    if stdout is None:  # fd 1 was closed when the process started
        raise OutputError("cannot write to stdout: it is closed")
    try:
        encoded = text.encode("utf-8")  # fails on a lone surrogate: one C pass for the common case
    except UnicodeEncodeError:
        encoded = to_well_formed(text).encode("utf-8")
    data = memoryview(encoded)
    try:
        stdout.flush()
        # Under PYTHONUNBUFFERED stdout.buffer is the raw file, whose write may be short (a file size
        # limit, a disk filling up): write the rest, so the failure surfaces instead of a silent cut.
        while data:
            written = stdout.buffer.write(data)
            if written is None:  # a non-blocking raw stdout that is full: as BufferedWriter reports it
                raise BlockingIOError(errno.EAGAIN, os.strerror(errno.EAGAIN))
            data = data[written:]
        stdout.buffer.flush()
    except BrokenPipeError:
        invocation.stdout_failed = True
        # Not an OSError any more: Typer would catch EPIPE itself and exit 1, where prelude exits 0.
        raise ReaderGone from None
    except (OSError, ValueError) as exc:  # ValueError: the stream object itself was closed
        invocation.stdout_failed = True
        reason = (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or "input/output error"
        raise OutputError(f"cannot write to stdout: {reason}") from exc


# What write_chunks gathers before it writes: large enough that a 40 MB scan is a few dozen writes,
# small enough that it never holds more than this of text it has not written.
_CHUNK_CHARS = 1 << 20


def write_chunks(chunks: Iterable[str]) -> None:
    """The pieces of one output to stdout, as write_stdout writes text, about a megabyte at a time: an
    output of any size is never held whole (`scan --all --json` on a million notes)."""
    pending: list[str] = []
    size = 0
    for chunk in chunks:
        pending.append(chunk)
        size += len(chunk)
        if size >= _CHUNK_CHARS:
            write_stdout("".join(pending))
            pending.clear()
            size = 0
    if pending:
        write_stdout("".join(pending))


def data_for_stdout(text: str, *, raw: bool) -> str:
    """Outside text that is data (a prelude, a bootstrap block) as it goes to stdout: exact into a pipe
    or a file; on a terminal, unless `raw`, its control and invisible characters shown as escapes
    (textsafe.visible_text: a daily note's OSC 52 or clear-screen must not act on the terminal), and
    then a final newline."""
    if not stdout_is_terminal():
        return text
    if raw:
        return text + "\n"
    return visible_text(text) + "\n"


def guarded_lines(lines: Iterable[str], *, tsv: bool = False) -> Iterator[str]:
    """Lines of a human view for write_chunks, each guarded: their outside parts are escaped by the
    caller (textsafe.escape_text); anything unsafe that slipped through is escaped here, so a row stays a
    row. `tsv`: the lines' tabs separate fields and stay."""
    for line in lines:
        yield escape_unsafe(line, keep_tabs=tsv) + "\n"


def write_stderr(line: str) -> None:
    """One diagnostic line: whatever it holds, it stays one line and never reaches the terminal raw.

    A stderr that cannot be written (full, closed, its reader gone) loses the diagnostics and nothing
    else: the exit code and stdout stay what they would have been."""
    write_stderr_text(escape_unsafe(line) + "\n")  # escapes lone surrogates too


def write_stderr_text(text: str) -> None:
    """memwarm's own text to stderr as it is (a help page for a group called without a command)."""
    invocation = current()
    stream = invocation.stderr
    if stream is None or invocation.stderr_failed:
        return
    try:
        stream.write(to_well_formed(text))
        stream.flush()
    except (OSError, ValueError):  # ValueError: the stream object itself was closed
        invocation.stderr_failed = True


class _StderrStream:
    """stderr for a Rich console (init-backends' progress display): its writes never raise either.

    Only what Rich uses of a file: write, flush, isatty, fileno and encoding.
    """

    def __init__(self, invocation: Invocation) -> None:
        self._invocation = invocation
        self.encoding: str = getattr(invocation.stderr, "encoding", None) or "utf-8"

    def write(self, text: str) -> int:
        write_stderr_text(text)
        return len(text)

    def flush(self) -> None:  # every write is flushed already
        pass

    def isatty(self) -> bool:
        return is_terminal(self._invocation.stderr)

    def fileno(self) -> int:
        if self._invocation.stderr is None:
            raise io.UnsupportedOperation("stderr is closed")
        return self._invocation.stderr.fileno()


# The message of error/warn/note is a sentence of memwarm's (no backslashes, no controls) with outside
# text (paths, config values, qmd's output, arguments) put in raw: escaping the whole message escapes
# exactly those parts. Callers therefore pass raw text, never text escaped already.


def error(message: str, *, escaped: bool = False) -> None:
    """`escaped`: the message's outside text is escaped already (click quotes arguments with repr()):
    only the guard applies, so its backslashes are not doubled."""
    write_stderr(f"memwarm: error: {message if escaped else escape_text(message)}")


def warn(message: str) -> None:
    write_stderr(warning_line(message))


def note(message: str) -> None:
    write_stderr(note_line(message))


def warning_line(message: str) -> str:
    """The line `warn` writes, for a view's `notes`."""
    return f"memwarm: warning: {escape_text(message)}"


def note_line(message: str) -> str:
    """The line `note` writes, for a view's `notes` and `summary`."""
    return f"memwarm: {escape_text(message)}"
