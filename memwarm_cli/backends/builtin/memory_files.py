"""The memory files 2026.9.6 indexes for one agent, found as its `listMemoryFiles` finds them
(packages/memory-host-sdk/src/host/internal.ts), and their hashes as `buildFileEntry` computes them.

In this order, each only when it is a regular file (never through a symlink):
- the workspace's root `MEMORY.md`: the directory entry spelled exactly so (`memory.md` is never read);
- `USER.md`;
- every `*.md` under `memory/` (a symlinked `memory/` is not read), walked without following symlinks,
  skipping `.openclaw-repair` directories and the legacy/repair root-memory paths; each directory's
  files sorted by path;
- `memory.search.extraPaths`: a path resolved against the workspace (`~` is the OS home), a directory
  walked like `memory/` (its `pattern`, when given, a glob its files must match), a file taken when it
  ends in `.md`; a symlinked root is skipped (the release reports it as an issue);
then de-duplicated by real path, the first kept. The path stored is relative to the workspace, with `/`.

The hash is sha256 of the file read as UTF-8 text (`buffer.toString("utf-8")`, malformed bytes as
U+FFFD) and encoded again: for valid UTF-8, the sha256 of the bytes. Multimodal files (images, audio in
extraPaths when `memory.search.multimodal` is on) are hashed by the release with their detected MIME
type, which memwarm does not reproduce: they are listed, and compared by presence only.
"""

from __future__ import annotations

import codecs
import hashlib
import os
import re
import stat

from memwarm_cli.backends.builtin.search_settings import BuiltinSearch, ExtraPath, Multimodal
from memwarm_cli.backends.freshness import qmd_glob
from memwarm_cli.frozen_records import record
from memwarm_cli.safe_files import FileChangedError, NotRegularFileError, open_regular

MULTIMODAL_EXTENSIONS = {
    "image": (".jpg", ".jpeg", ".png", ".webp", ".gif", ".heic", ".heif"),
    "audio": (".mp3", ".wav", ".ogg", ".opus", ".m4a", ".aac", ".flac"),
}
REPAIR_DIR = ".openclaw-repair"
HASH_CHUNK = 1 << 20
ROOT_MEMORY_REPAIR = ".openclaw-repair/root-memory"


class MemoryScanError(Exception):
    """A directory of the agent's memory cannot be read (the release fails its scan too)."""


@record
class MemoryFile:
    path: str  # relative to the workspace, `/`-separated: memory_index_sources.path
    abs_path: str
    mtime_ms: float  # Node's stat.mtimeMs
    size: int
    multimodal: bool = False


@record
class MemoryListing:
    files: tuple[MemoryFile, ...]
    issues: tuple[str, ...]  # symlinked extra-path roots, patterns memwarm cannot read


def _lstat(path: str) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:
        return None


def _mtime_ms(st: os.stat_result) -> float:
    return st.st_mtime_ns // 1_000_000_000 * 1000 + (st.st_mtime_ns % 1_000_000_000) / 1_000_000


def _skip_auxiliary(workspace: str, abs_path: str) -> bool:
    """`shouldSkipRootMemoryAuxiliaryPath`: the legacy `memory.md` and the root-memory repair dir."""
    relative = os.path.relpath(abs_path, workspace)
    if relative.startswith("..") or os.path.isabs(relative):
        return False
    normalized = relative.strip().replace("\\", "/").removeprefix("./")
    if normalized == ".":
        normalized = ""
    return (
        normalized == "memory.md"
        or normalized == ROOT_MEMORY_REPAIR
        or normalized.startswith(ROOT_MEMORY_REPAIR + "/")
    )


def _multimodal_kind(path: str, multimodal: Multimodal | None) -> str | None:
    if multimodal is None or not multimodal.active:
        return None
    lower = path.lower()
    for modality in multimodal.modalities:
        if lower.endswith(MULTIMODAL_EXTENSIONS.get(modality, ())):
            return modality
    return None


def _allowed(path: str, multimodal: Multimodal | None) -> bool:
    return path.endswith(".md") or _multimodal_kind(path, multimodal) is not None


def _pattern_test(pattern: str) -> re.Pattern[str] | None:
    """The glob `pattern` over a path relative to its extra path (braces, `*`, `**`, `?`, classes);
    None when memwarm cannot read it exactly."""
    try:
        expanded = qmd_glob.expand_braces(pattern.replace("\\", "/"))
        body = "|".join(qmd_glob._pattern_regex(p)[0] for p in expanded)
        return re.compile("(?:" + body + r")\Z")
    except (qmd_glob._Unsure, re.error):
        return None


def _walk(
    root: str,
    workspace: str,
    multimodal: Multimodal | None,
    pattern: re.Pattern[str] | None,
) -> list[str]:
    """`walkDirectory(root, {symlinks: "skip"})` with the release's descend/include rules: the files'
    absolute paths, sorted (JS sort: UTF-16 code units; for paths, code points agree but for astral)."""
    found: list[str] = []
    visited: set[str] = set()
    stack = [root]
    while stack:
        directory = stack.pop()
        try:
            real = os.path.realpath(directory)
            if real in visited:
                continue
            visited.add(real)
            with os.scandir(directory) as entries:
                listing = list(entries)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise MemoryScanError(
                f"memory source scan failed at {directory}: {exc.strerror or exc}"
            ) from None
        for entry in listing:
            full = os.path.join(directory, entry.name)
            try:
                if entry.is_symlink():
                    continue
                is_dir, is_file = entry.is_dir(follow_symlinks=False), entry.is_file(follow_symlinks=False)
            except OSError:
                continue
            if _skip_auxiliary(workspace, full):
                continue
            if is_dir:
                if entry.name != REPAIR_DIR:
                    stack.append(full)
            elif is_file and _allowed(full, multimodal):
                if pattern is not None:
                    rel = os.path.relpath(full, root).replace(os.sep, "/")
                    if not pattern.match(rel):
                        continue
                found.append(full)
    return sorted(found, key=_utf16_key)


def _utf16_key(text: str) -> bytes:
    return text.encode("utf-16-be", "surrogatepass")


def _expand_home(value: str) -> str:
    """`expandHomePath`: `~` and `~/…` against the OS home (Node's os.homedir(): $HOME)."""
    if value == "~" or value.startswith(("~/", "~\\")):
        return os.path.join(os.path.expanduser("~"), value[2:]) if value != "~" else os.path.expanduser("~")
    return value


def resolved_extra_path(workspace: str, extra: ExtraPath) -> str:
    return os.path.normpath(os.path.join(workspace, _expand_home(extra.path)))


def list_memory_files(search: BuiltinSearch) -> MemoryListing:
    """The agent's memory files (see the module docstring). Raises MemoryScanError for an unreadable
    directory."""
    workspace = str(search.workspace)
    candidates: list[tuple[str, bool]] = []  # (absolute path, multimodal)
    issues: list[str] = []

    def add_markdown(path: str) -> None:
        st = _lstat(path)
        if st is not None and stat.S_ISREG(st.st_mode) and path.endswith(".md"):
            candidates.append((path, False))

    try:
        with os.scandir(workspace) as entries:
            root_memory = any(e.name == "MEMORY.md" and e.is_file(follow_symlinks=False) for e in entries)
    except (FileNotFoundError, NotADirectoryError):
        root_memory = False
        issues.append(f"the workspace {workspace} does not exist")
    except OSError as exc:
        raise MemoryScanError(f"memory source scan failed at {workspace}: {exc.strerror or exc}") from None
    if root_memory:
        add_markdown(os.path.join(workspace, "MEMORY.md"))
    add_markdown(os.path.join(workspace, "USER.md"))
    memory_dir = os.path.join(workspace, "memory")
    st = _lstat(memory_dir)
    if st is not None and stat.S_ISDIR(st.st_mode):
        candidates += [(p, False) for p in _walk(memory_dir, workspace, None, None)]
    for extra in search.extra_paths:
        root = resolved_extra_path(workspace, extra)
        if _skip_auxiliary(workspace, root):
            continue
        st = _lstat(root)
        if st is None:
            continue
        if stat.S_ISLNK(st.st_mode):
            issues.append(
                f'extra path "{root}" is a symlink root; symlinked roots are not traversed, so configure '
                "its canonical absolute directory instead"
            )
            continue
        if stat.S_ISDIR(st.st_mode):
            pattern = None
            if extra.pattern is not None:
                pattern = _pattern_test(extra.pattern)
                if pattern is None:
                    issues.append(f'extra path "{root}": memwarm cannot read the pattern {extra.pattern!r}')
                    continue
            for path in _walk(root, workspace, search.multimodal, pattern):
                candidates.append((path, _multimodal_kind(path, search.multimodal) is not None))
        elif stat.S_ISREG(st.st_mode) and _allowed(root, search.multimodal):
            candidates.append((root, not root.endswith(".md")))
    files: list[MemoryFile] = []
    seen: set[str] = set()
    for path, multimodal in candidates:
        key = os.path.realpath(path) if len(candidates) > 1 else path
        if key in seen:
            continue
        seen.add(key)
        st = _lstat(path)
        if st is None or not stat.S_ISREG(st.st_mode):
            continue
        if multimodal and st.st_size > search.multimodal.max_file_bytes:
            continue
        rel = os.path.relpath(path, workspace).replace(os.sep, "/")
        files.append(MemoryFile(rel, path, _mtime_ms(st), st.st_size, multimodal))
    return MemoryListing(tuple(files), tuple(issues))


def content_hash(path: str) -> str | None:
    """`hashText(buffer.toString("utf-8"))`, streamed in bounded memory (memory files have no size cap
    in the release); None when the file is gone or is no longer a regular file."""
    try:
        fd, _ = open_regular(path, follow_symlinks=False)
    except (OSError, ValueError, NotRegularFileError, FileChangedError):
        return None
    digest = hashlib.sha256()
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    try:
        while chunk := os.read(fd, HASH_CHUNK):
            digest.update(decoder.decode(chunk).encode("utf-8"))
        digest.update(decoder.decode(b"", final=True).encode("utf-8"))
    except OSError:
        return None
    finally:
        os.close(fd)
    return digest.hexdigest()
