"""Where a bare command name is found on a PATH: POSIX execvp's rules, the ones sh, dash and bash follow.

- PATH unset: `os.defpath` (`/bin:/usr/bin`, glibc's `confstr(_CS_PATH)`, what execvp uses).
- Every entry is a directory; an empty entry (`PATH=""`, a leading or trailing `:`, `::`) and `.` mean
  the current directory, and a relative entry is relative to it. `shutil.which` differs here: it finds
  nothing on `PATH=""`, where the shells (and execvp) look in the current directory.
- The first entry holding a regular file (a link is followed) that may be executed wins; a directory or a
  file without the execute bit is passed over, as execvp passes over EACCES.

"The current directory" is the directory the program would be started in: memwarm's own working
directory for the `openclaw` a user's shell runs (profiles/installed.py), the agent's workspace for qmd,
which OpenClaw spawns (and memwarm execs) with that cwd (backends/qmd/process.py). The answer is an
absolute path, so it names the same file whatever the working directory is later.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping


def search_path(env: Mapping[str, str]) -> str:
    """The PATH a bare command is looked up on: the environment's, else the OS default (as exec does)."""
    found = env.get("PATH")
    return os.defpath if found is None else found


def find_on_path(name: str, path: str, cwd: str | None) -> str | None:
    """The absolute path of the first executable regular file `name` in `path`'s directories, empty and
    relative ones taken against `cwd` (None: a working directory that was deleted, which holds nothing);
    None without one."""
    for directory in path.split(os.pathsep):
        if not os.path.isabs(directory):
            if cwd is None:
                continue
            directory = cwd if directory in ("", ".") else os.path.join(cwd, directory)
        candidate = os.path.join(directory, name)
        try:
            st = os.stat(candidate)
        except (OSError, ValueError):  # ValueError: a NUL in the entry
            continue
        if stat.S_ISREG(st.st_mode) and os.access(candidate, os.X_OK):
            return candidate
    return None


def working_directory() -> str | None:
    """os.getcwd(), or None where the working directory was deleted."""
    try:
        return os.getcwd()
    except OSError:
        return None
