"""Output discipline shared by every command.

Data goes to stdout only when requested; diagnostics go to stderr. JSON is written with json.dumps,
never through Rich. Consoles are built per invocation because tests change the environment.
"""

from __future__ import annotations

import json
import os
import re
import sys
from typing import TYPE_CHECKING, Any

from memwarm_cli.jsstring import to_well_formed

if TYPE_CHECKING:
    from rich.console import Console

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def color_allowed(stream_is_tty: bool) -> bool:
    """Colour only on a terminal and never when NO_COLOR is set (to anything non-empty)."""
    return stream_is_tty and not os.environ.get("NO_COLOR")


def make_console(*, stderr: bool = False) -> Console:
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    tty = stream.isatty()
    return Console(
        file=stream,
        no_color=not color_allowed(tty),
        force_terminal=None,
        highlight=False,
        soft_wrap=False,
    )


def json_text(data: Any) -> str:
    """JSON like JSON.stringify: non-ASCII kept, lone surrogates escaped as \\udXXX."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def write_stdout(text: str) -> None:
    """Write exactly `text` as UTF-8 (lone surrogates become U+FFFD, as Node writes them)."""
    sys.stdout.flush()
    sys.stdout.buffer.write(to_well_formed(text).encode("utf-8"))
    sys.stdout.buffer.flush()


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
