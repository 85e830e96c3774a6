"""Output discipline shared by every command.

Data goes to stdout only when requested; diagnostics go to stderr. JSON is written with json.dumps,
never through Rich. Consoles are built per invocation because tests change the environment.
"""

from __future__ import annotations

import errno
import io
import json
import os
import re
import sys
from typing import TYPE_CHECKING, Any

from memwarm_cli.jsstring import to_well_formed

if TYPE_CHECKING:
    from collections.abc import Callable

    from rich.console import Console

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def stdout_is_terminal() -> bool:
    # sys.stdout is None when fd 1 was closed at startup (`memwarm ... >&-`); write_stdout reports that.
    return sys.stdout is not None and sys.stdout.isatty()


def color_allowed(stream_is_tty: bool) -> bool:
    """Colour only on a terminal and never when NO_COLOR is set (to anything non-empty)."""
    return stream_is_tty and not os.environ.get("NO_COLOR")


def make_console(*, stderr: bool = False) -> Console:
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    tty = stream is not None and stream.isatty()  # None: the fd was closed when Python started
    return Console(
        file=stream,
        no_color=not color_allowed(tty),
        force_terminal=None,
        highlight=False,
        soft_wrap=False,
    )


def render_to_stdout(render: Callable[[Console], None]) -> None:
    """Let `render` print to a console shaped like stdout (width, colours), then write it all at once.

    Rich writing to stdout itself would turn a full disk into a traceback and a closed pipe into exit 1;
    going through write_stdout gives every command the same errors and exit codes.
    """
    from rich.console import Console

    shape = make_console()
    buffer = io.StringIO()
    render(
        Console(
            file=buffer,
            width=shape.width,
            color_system="auto" if shape.color_system is not None else None,  # same detection, same env
            force_terminal=shape.is_terminal,
            no_color=shape.no_color,
            highlight=False,
            soft_wrap=False,
        )
    )
    write_stdout(buffer.getvalue())


def json_text(data: Any) -> str:
    """JSON like JSON.stringify: non-ASCII kept, lone surrogates escaped as \\udXXX."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


class ReaderGone(Exception):
    """The reader of stdout went away (`memwarm scan | head`): cli/main.py exits 0 quietly."""


def write_stdout(text: str) -> None:
    """Write exactly `text` as UTF-8 (lone surrogates become U+FFFD, as Node writes them).

    Raises OutputError when stdout is closed or the write fails (disk full, I/O error), and ReaderGone
    when the reader went away (EPIPE).
    """
    from memwarm_cli.errors import OutputError

    stdout = sys.stdout
    if stdout is None:  # fd 1 was closed when Python started
        raise OutputError("cannot write to stdout: it is closed")
    data = memoryview(to_well_formed(text).encode("utf-8"))
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
        # Not an OSError any more: Typer would catch EPIPE itself and exit 1, where prelude exits 0.
        raise ReaderGone from None
    except OSError as exc:
        reason = exc.strerror or str(exc) or "input/output error"
        raise OutputError(f"cannot write to stdout: {reason}") from exc


def write_json(data: Any) -> None:
    write_stdout(json_text(data) + "\n")


def write_stderr(line: str) -> None:
    sys.stderr.write(to_well_formed(line) + "\n")
    sys.stderr.flush()


def error(message: str) -> None:
    write_stderr(f"memwarm: error: {message}")


def warn(message: str) -> None:
    write_stderr(f"memwarm: warning: {message}")


def note(message: str) -> None:
    write_stderr(f"memwarm: {message}")
