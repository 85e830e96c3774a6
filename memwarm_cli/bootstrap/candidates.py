"""Which bootstrap files are read, how, and which of them a session keeps (spec §3), per release.

Reading uses the boundary reader the prelude uses (memwarm_cli/boundary_read.py): the rules are the same
(symlinks only inside the workspace, or none at all from 2026.8.1; a regular file, one link, a byte cap,
one read); the cap is 2 MiB. Up to 2026.7.x every failure makes the file "missing"; from 2026.8.1
(`profile.unreadable_entries`) only an absent path does, and any other failure is a present entry whose
content is `[UNREADABLE: <reason>]` in fs-safe's words. The reason is kept either way so `context` can
show it.
"""

from __future__ import annotations

import errno
import os
from enum import StrEnum

from memwarm_cli.bootstrap.session_keys import SessionKey
from memwarm_cli.boundary_read import SYMLINK_REFUSED_DETAIL, ReadFailure, ReadOutcome, read_workspace_file
from memwarm_cli.jsstring import truncate_utf16_safe
from memwarm_cli.os_paths import absolute_path
from memwarm_cli.profiles.releases import Profile

# typing.TYPE_CHECKING without importing typing: ~2.5 ms of `context`'s start (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from memwarm_cli.named_tuples import NamedTuple

USER_MD = "USER.md"
HEARTBEAT_MD = "HEARTBEAT.md"
BOOTSTRAP_MD = "BOOTSTRAP.md"
MEMORY_MD = "MEMORY.md"
MAX_BOOTSTRAP_FILE_BYTES = 2 * 1024 * 1024
UNREADABLE_PREFIX = "[UNREADABLE: "
MAX_UNREADABLE_REASON = 300

# fs-safe's reasons for a present path it will not read (2026.8.1+, research B.2).
_FS_SAFE_REASONS = {
    ReadFailure.SYMLINK_REFUSED: SYMLINK_REFUSED_DETAIL,
    ReadFailure.SYMLINK_ESCAPE: SYMLINK_REFUSED_DETAIL,  # only a directory link can escape; none here
    ReadFailure.NOT_REGULAR: "path does not have the required file type",
    ReadFailure.HARDLINK: "path must not be hardlinked",
    ReadFailure.OVERSIZE: f"File exceeds {MAX_BOOTSTRAP_FILE_BYTES} bytes",
}
# libuv's words for the errors a read can meet, which Node's messages use (`EACCES: permission denied,
# open '<path>'`); any other error is its C library text, lower-cased.
_LIBUV_TEXT = {
    "EACCES": "permission denied",
    "EPERM": "operation not permitted",
    "EIO": "i/o error",
    "ELOOP": "too many symbolic links encountered",
    "ENAMETOOLONG": "name too long",
    "EMFILE": "too many open files",
    "ENFILE": "file table overflow",
    "EAGAIN": "resource temporarily unavailable",
    "EINVAL": "invalid argument",
}


class Dropped(StrEnum):
    """Why a file read from the workspace is not among the session's bootstrap files."""

    SESSION_FILTER = "session-filter"
    SETUP_COMPLETED = "setup-completed"
    HEARTBEAT_OFF = "heartbeat-off"
    MEMORY_INELIGIBLE = "memory-ineligible"


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

    @property
    def unreadable(self) -> bool:
        """A present entry that holds `[UNREADABLE: ...]` rather than the file (2026.8.1+)."""
        return self.content is not None and self.failure is not None


def workspace_root(workspace: str | os.PathLike[str]) -> str:
    """`path.resolve(W)`: absolute, normalised, no trailing slash (symlinks are not resolved)."""
    return absolute_path(os.fspath(workspace))


def listed_names(root: str) -> frozenset[str]:
    """The workspace directory's entry names; none when it cannot be listed."""
    try:
        return frozenset(os.listdir(root))
    except OSError:
        return frozenset()


def _os_error_reason(detail: str | None, path: str) -> str:
    """Node's message for an OS error of `open`, from the C library text boundary_read keeps."""
    text = detail or "unknown error"
    code = next((name for number, name in errno.errorcode.items() if os.strerror(number) == text), None)
    if code is None:
        return text
    return f"{code}: {_LIBUV_TEXT.get(code, text[:1].lower() + text[1:])}, open '{path}'"


def unreadable_reason(outcome: ReadOutcome, path: str) -> str:
    """`[UNREADABLE: reason]`'s reason: whitespace runs one space, cut at 300 units."""
    failure = outcome.failure or ReadFailure.UNREADABLE
    reason = _FS_SAFE_REASONS.get(failure)
    if reason is None:
        reason = _os_error_reason(outcome.detail, path)
    return truncate_utf16_safe(" ".join(reason.split()), MAX_UNREADABLE_REASON)


def read_bootstrap_files(root: str, *, profile: Profile) -> list[BootstrapFile]:
    """Every candidate in the profile's load order, read under the workspace boundary.

    A name of `profile.listed_only_files` is a candidate only when the workspace listing holds exactly
    that name (MEMORY.md always; USER.md too from 2026.8.1)."""
    listed = listed_names(root) if profile.listed_only_files else frozenset()
    files = []
    for name in profile.bootstrap_files:
        if name in profile.listed_only_files and name not in listed:
            continue
        path = os.path.join(root, name)
        outcome = read_workspace_file(
            root, name, MAX_BOOTSTRAP_FILE_BYTES, reject_symlinks=profile.refuse_symlinks
        )
        content = outcome.content
        if content is None and profile.unreadable_entries and outcome.failure is not ReadFailure.MISSING:
            content = f"{UNREADABLE_PREFIX}{unreadable_reason(outcome, path)}]"
        files.append(BootstrapFile(name, path, content, outcome.failure, outcome.detail, outcome.size))
    return files


def _names(names: frozenset[str], profile: Profile) -> str:
    ordered = [name for name in profile.bootstrap_files if name in names]
    return ", ".join(ordered[:-1]) + f" and {ordered[-1]}" if len(ordered) > 1 else ordered[0]


def session_filter_reason(name: str, session: SessionKey, *, profile: Profile) -> str | None:
    """Why a subagent, cron or (2026.8.1+) group-chat session does not get `name`, or None when it does."""
    if session.subagent and name not in profile.subagent_files:
        return f"subagent sessions get {_names(profile.subagent_files, profile)} only"
    if not session.subagent and session.cron and name not in profile.cron_files:
        return f"cron sessions get {_names(profile.cron_files, profile)} only"
    if session.group_chat and name == MEMORY_MD:
        return "group and channel sessions get no MEMORY.md"
    return None
