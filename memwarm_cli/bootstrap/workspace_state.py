"""Whether the workspace's first-run setup is completed, read from OpenClaw's state files (spec §3.3 step 2).

`openclaw-workspace-state.json`, else the legacy `.openclaw/workspace-state.json`, carries
`setupCompletedAt` (or `onboardingCompletedAt`); a completed setup drops BOOTSTRAP.md. Read only.
Up to 2026.7.x; from 2026.8.1 those files make the session fail instead (`check_legacy_state`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

from memwarm_cli.config.paths import LEGACY_STATE_DIRNAMES, resolve_home_dir, resolve_state_dir
from memwarm_cli.errors import MemwarmError
from memwarm_cli.jsstring import js_trim
from memwarm_cli.os_paths import join_path
from memwarm_cli.safe_files import FileTooLargeError, NotRegularFileError, read_bounded

# typing.TYPE_CHECKING without importing typing: ~2.5 ms of `context`'s start (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:
    from memwarm_cli.named_tuples import NamedTuple

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
        data, _ = read_bounded(path, MAX_STATE_BYTES)
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


# ---- 2026.8.1+: legacy setup state fails the session (`assertNoUnmigratedWorkspaceState`) --------
# Setup state moved into OpenClaw's SQLite state store; a workspace still holding one of the old files
# (or a doctor claim, or an attestation) must be migrated by `openclaw doctor --fix` first. Presence is
# all that counts: a path whose lstat fails with anything but ENOENT exists (a `.openclaw` that is a
# file gives ENOTDIR, and counts). memwarm reads nothing of OpenClaw's SQLite store, so on those
# releases BOOTSTRAP.md is never hidden by a completed setup (research B.8).

_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")


def _name_ok(text: str, extra: str, max_len: int) -> bool:
    """`^[a-zA-Z0-9][a-zA-Z0-9<extra>]{0,max_len-1}$`."""
    allowed = _ALNUM | frozenset(extra)
    return 0 < len(text) <= max_len and text[0] in _ALNUM and all(ch in allowed for ch in text)


LEGACY_ERROR_CODE = "gateway.maintenance_required"  # the named error's code (2026.9.3+)
ATTESTATION_DIR = "workspace-attestations"
ATTESTATION_SUFFIX = ".attested"
ATTESTATION_HEADER = b"openclaw-workspace-attestation:v1\n"
CLAIM_SUFFIX = ".doctor-importing"


class LegacyWorkspaceStateError(MemwarmError):
    """The release refuses to start a session in this workspace (exit 1, the command's failure)."""

    def __init__(self, workspace: str, blocked: str, error_name: str, command: str) -> None:
        self.workspace = workspace
        self.blocked = blocked  # the first legacy path found
        self.error_name = error_name  # "StartupMaintenanceRequiredError" (9.3+) or "Error"
        self.error_code = LEGACY_ERROR_CODE if error_name != "Error" else None
        self.release_message = (
            f"Legacy workspace setup state requires migration for {workspace}; run {command}."
        )
        super().__init__(self.release_message)


def _may_exist(path: str) -> bool:
    """`pathMayExistSync`: only a definite ENOENT makes a path absent."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    except (OSError, ValueError):
        return True
    return True


def _owned_attestation(path: str) -> bool:
    """A sibling `<workspace>.attested` counts only as a regular file starting with the header (one
    that is there but cannot be read counts as owned)."""
    try:
        head, _ = read_bounded(path, len(ATTESTATION_HEADER), follow_symlinks=False, head_only=True)
    except (NotRegularFileError, FileNotFoundError, NotADirectoryError, ValueError):
        return False
    except OSError:  # FileChangedError too: something is there
        return True
    return head == ATTESTATION_HEADER


def canonical_workspace(workspace: str) -> str:
    """The workspace's canonical path: links resolved (a missing tail kept), normalised, NFC."""
    # unicodedata: only the 2026.8.1+ legacy-state check and the state database reach here; off 6.35's context
    import unicodedata

    return unicodedata.normalize("NFC", os.path.normpath(os.path.realpath(workspace)))


def doctor_command(env: Mapping[str, str]) -> str:
    """`formatCliCommand("openclaw doctor --fix", env)`: with the container hint or the profile."""
    container = js_trim(env.get("OPENCLAW_CONTAINER_HINT") or "")
    if container and _name_ok(container, "_.-", 128):
        return f"openclaw --container {container} doctor --fix"
    profile = js_trim(env.get("OPENCLAW_PROFILE") or "")
    if profile and profile.lower() != "default" and _name_ok(profile, "_-", 64):
        return f"openclaw --profile {profile} doctor --fix"
    return "openclaw doctor --fix"


def legacy_state_sources(workspace: str, env: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """(paths that count when present, sibling attestations that count when owned)."""
    # hashlib: loads OpenSSL (~3.5 ms by -X importtime), only for the 2026.8.1+ legacy-state check
    import hashlib

    lexical = os.path.abspath(workspace)
    canonical = canonical_workspace(workspace)
    keys = dict.fromkeys(
        hashlib.sha256(p.encode("utf-8", "surrogatepass")).hexdigest() for p in (lexical, canonical)
    )
    home = resolve_home_dir(env)
    state_dirs = dict.fromkeys(
        [str(resolve_state_dir(env)), *(join_path(home, name) for name in LEGACY_STATE_DIRNAMES)]
    )
    present = [os.path.join(canonical, STATE_FILE), os.path.join(canonical, LEGACY_STATE_FILE)]
    present += [
        os.path.join(d, ATTESTATION_DIR, f"{key}{ATTESTATION_SUFFIX}") for d in state_dirs for key in keys
    ]
    siblings = [f"{p}{ATTESTATION_SUFFIX}" for p in dict.fromkeys((lexical, canonical))]
    return present, siblings


def check_legacy_state(workspace: str, env: Mapping[str, str], error_name: str) -> None:
    """LegacyWorkspaceStateError when the workspace still has legacy setup state (2026.8.1+)."""
    present, siblings = legacy_state_sources(workspace, env)
    found = next((p for path in present for p in (path, path + CLAIM_SUFFIX) if _may_exist(p)), None)
    if found is None:
        found = next(
            (p for path in siblings for p in (path, path + CLAIM_SUFFIX) if _owned_attestation(p)), None
        )
    if found is not None:
        raise LegacyWorkspaceStateError(
            canonical_workspace(workspace), found, error_name, doctor_command(env)
        )
