"""`.env` files, read the way the `dotenv` npm package reads them (config.md §6.3 step 1).

OpenClaw loads `./.env` and then `<stateDir>/.env` into the real process environment, never replacing a
variable that is already set. memwarm does the same on its own copy of the environment, and only when
no explicit environment was passed to `load_config`.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from pathlib import Path

# dotenv 16's LINE expression.
_LINE = re.compile(
    r"(?:^|^)\s*(?:export\s+)?([\w.-]+)(?:\s*=\s*?|:\s+?)(\s*'(?:\\'|[^'])*'|\s*\"(?:\\\"|[^\"])*\"|\s*`(?:\\`|[^`])*`|[^#\r\n]+)?\s*(?:#.*)?(?:$|$)",
    re.MULTILINE,
)
# A safety cap: a `.env` holds a few variables; a huge file there is a mistake, not settings.
MAX_DOTENV_BYTES = 16 * 1024 * 1024
_QUOTED = re.compile(r"^(['\"`])([\s\S]*)\1$")


def parse_dotenv(text: str) -> dict[str, str]:
    result: dict[str, str] = {}
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    for match in _LINE.finditer(text):
        key = match.group(1)
        value = (match.group(2) or "").strip()
        quoted = _QUOTED.match(value)
        if quoted is not None:
            quote = quoted.group(1)
            value = quoted.group(2)
            if quote == '"':
                value = value.replace("\\n", "\n").replace("\\r", "\r")
        result[key] = value
    return result


def load_dotenv_file(path: Path, env: MutableMapping[str, str]) -> list[str]:
    """Add the file's variables that `env` does not have yet; returns their names. Errors are ignored."""
    from memwarm_cli.config.regularfile import FileTooLargeError, NotRegularFileError, read_regular_file

    try:
        data, _ = read_regular_file(path, MAX_DOTENV_BYTES)
    except (OSError, ValueError, NotRegularFileError, FileTooLargeError):
        return []
    text = data.decode("utf-8", errors="replace")
    added: list[str] = []
    for key, value in parse_dotenv(text).items():
        if key not in env and "\0" not in value:
            env[key] = value
            added.append(key)
    return added
