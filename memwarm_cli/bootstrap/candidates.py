"""Which bootstrap files are read, how, and which of them a session keeps (spec §3).

Reading uses the boundary reader the prelude uses (memwarm_cli/boundary_read.py): the rules are the same
(symlinks only inside the workspace, a regular file, one link, a byte cap, one read); the cap is 2 MiB.
Every failure makes the file "missing"; the reason is kept so `context` can show it.
"""

from __future__ import annotations

import os
from enum import StrEnum
from typing import NamedTuple

from memwarm_cli.bootstrap.session_keys import SessionKey
from memwarm_cli.boundary_read import ReadFailure, read_workspace_file
from memwarm_cli.cwd import absolute_path

AGENTS_MD = "AGENTS.md"
SOUL_MD = "SOUL.md"
TOOLS_MD = "TOOLS.md"
IDENTITY_MD = "IDENTITY.md"
USER_MD = "USER.md"
HEARTBEAT_MD = "HEARTBEAT.md"
BOOTSTRAP_MD = "BOOTSTRAP.md"
MEMORY_MD = "MEMORY.md"
LOAD_ORDER = (AGENTS_MD, SOUL_MD, TOOLS_MD, IDENTITY_MD, USER_MD, HEARTBEAT_MD, BOOTSTRAP_MD, MEMORY_MD)
SUBAGENT_FILES = frozenset({AGENTS_MD, TOOLS_MD})
CRON_FILES = frozenset({AGENTS_MD, TOOLS_MD, SOUL_MD, IDENTITY_MD, USER_MD})
MAX_BOOTSTRAP_FILE_BYTES = 2 * 1024 * 1024


class Dropped(StrEnum):
    """Why a file read from the workspace is not among the session's bootstrap files."""

    SESSION_FILTER = "session-filter"
    SETUP_COMPLETED = "setup-completed"
    HEARTBEAT_OFF = "heartbeat-off"


class BootstrapFile(NamedTuple):
    name: str
    path: str  # path.join(W, name), as OpenClaw shows it
    content: str | None  # None: missing (failure says why)
    failure: ReadFailure | None
    detail: str | None
    size: int | None
    dropped: Dropped | None = None
    dropped_reason: str | None = None

    @property
    def missing(self) -> bool:
        return self.content is None


def workspace_root(workspace: str | os.PathLike[str]) -> str:
    """`path.resolve(W)`: absolute, normalised, no trailing slash (symlinks are not resolved)."""
    return absolute_path(os.fspath(workspace))


def has_memory_entry(root: str) -> bool:
    """MEMORY.md is a candidate only when the workspace listing holds exactly that name."""
    try:
        return MEMORY_MD in os.listdir(root)
    except OSError:
        return False


def read_bootstrap_files(root: str) -> list[BootstrapFile]:
    """Every candidate in load order, read under the workspace boundary."""
    names = LOAD_ORDER if has_memory_entry(root) else LOAD_ORDER[:-1]
    files = []
    for name in names:
        outcome = read_workspace_file(root, name, MAX_BOOTSTRAP_FILE_BYTES)
        files.append(
            BootstrapFile(
                name, os.path.join(root, name), outcome.content, outcome.failure, outcome.detail, outcome.size
            )
        )
    return files


def session_filter_reason(name: str, session: SessionKey) -> str | None:
    """Why a subagent or cron session does not get `name`, or None when it does."""
    if session.subagent and name not in SUBAGENT_FILES:
        return "subagent sessions get AGENTS.md and TOOLS.md only"
    if not session.subagent and session.cron and name not in CRON_FILES:
        return "cron sessions get AGENTS.md, TOOLS.md, SOUL.md, IDENTITY.md and USER.md only"
    return None
