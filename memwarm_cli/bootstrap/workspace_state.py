"""Whether the workspace's first-run setup is completed, read from OpenClaw's state files (spec §3.3 step 2).

`openclaw-workspace-state.json`, else the legacy `.openclaw/workspace-state.json`, carries
`setupCompletedAt` (or `onboardingCompletedAt`); a completed setup drops BOOTSTRAP.md. Read only.
"""

from __future__ import annotations

import json
import os
from typing import Any, NamedTuple

from memwarm_cli.config.regularfile import FileTooLargeError, NotRegularFileError, read_regular_file
from memwarm_cli.jsstring import js_trim

STATE_FILE = "openclaw-workspace-state.json"
LEGACY_STATE_FILE = os.path.join(".openclaw", "workspace-state.json")
# State files are a few hundred bytes; a bigger one is not OpenClaw's and is not worth reading whole.
MAX_STATE_BYTES = 1024 * 1024


class SetupState(NamedTuple):
    completed: bool
    source: str | None  # the state file that decided, relative to the workspace
    marker: str | None  # the completion timestamp found there


class _Unusable(Exception):
    """Absent, not JSON, or not an object: the next state file is tried."""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")  # JSON.parse has no NaN or Infinity


def _load(path: str) -> Any:
    try:
        # A FIFO or device planted there is refused from its stat, never opened for a blocking read.
        data, _ = read_regular_file(path, MAX_STATE_BYTES)
    except FileNotFoundError as exc:
        raise _Unusable from exc
    except (NotRegularFileError, FileTooLargeError) as exc:
        raise OSError(str(exc)) from exc  # a read error: setup counts as not completed
    try:
        value = json.loads(data.decode("utf-8", "replace"), parse_constant=_reject_constant)
    except ValueError as exc:
        raise _Unusable from exc
    if not isinstance(value, dict | list):  # null or a scalar; arrays count as objects, as in JS
        raise _Unusable
    return value


def _marker(state: Any) -> str | None:
    if not isinstance(state, dict):
        return None
    for key in ("setupCompletedAt", "onboardingCompletedAt"):
        if isinstance(state.get(key), str):
            value: str = state[key]
            return value
    return None


def read_setup_state(workspace: str) -> SetupState:
    """Any read error other than "absent" or "not an object" counts as not completed, as upstream."""
    for relative in (STATE_FILE, LEGACY_STATE_FILE):
        try:
            state = _load(os.path.join(workspace, relative))
        except _Unusable:
            continue
        except (OSError, RecursionError):
            return SetupState(False, relative, None)
        marker = _marker(state)
        return SetupState(marker is not None and bool(js_trim(marker)), relative, marker)
    return SetupState(False, None, None)
