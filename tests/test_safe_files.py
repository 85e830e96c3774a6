"""safe_files: the one bounded reader and the one atomic writer, and a scan of the package that finds no
other way of reading or writing a file (no builtin `open`, no `os.replace`/`os.rename`, no `os.open` of a
non-directory outside the two named exceptions)."""

from __future__ import annotations

import ast
import errno
import os
import socket
import stat
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from memwarm_cli import safe_files
from memwarm_cli.safe_files import (
    FileChangedError,
    FileTooLargeError,
    FileWriter,
    HardLinkedError,
    NotRegularFileError,
    open_regular,
    read_bounded,
    read_kernel_table,
    write_atomically,
)

PACKAGE = Path(__file__).resolve().parent.parent / "memwarm_cli"


@pytest.fixture
def unix_socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    try:
        yield path
    finally:
        server.close()


# --- reading ----------------------------------------------------------------------------------------------


def test_a_regular_file_is_read_whole_with_its_stat(tmp_path: Path) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(b"x" * 5000)
    data, st = read_bounded(path, 5000)
    assert data == b"x" * 5000 and st.st_size == 5000 and stat.S_ISREG(st.st_mode)


def test_a_file_over_the_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 101)
    with pytest.raises(FileTooLargeError) as caught:
        read_bounded(path, 100)
    assert (caught.value.size, caught.value.limit) == (101, 100)


def test_head_only_returns_the_first_bytes_of_a_larger_file(tmp_path: Path) -> None:
    path = tmp_path / "script"
    path.write_bytes(b"#!/usr/bin/env node\n" + b"x" * 10_000)
    assert read_bounded(path, 8, head_only=True)[0] == b"#!/usr/bi"[:8]


def test_a_fifo_is_refused_from_its_stat_and_never_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError) as caught:
        read_bounded(fifo, 100)  # an open of a FIFO with no writer would block without O_NONBLOCK
    assert caught.value.kind == "a FIFO"


def test_a_socket_a_directory_and_a_device_are_named_for_what_they_are(
    tmp_path: Path, unix_socket: Path
) -> None:
    kinds = {}
    for path in (unix_socket, tmp_path, Path("/dev/null")):
        with pytest.raises(NotRegularFileError) as caught:
            read_bounded(path, 100)
        kinds[path] = caught.value.kind
    assert kinds == {
        unix_socket: "a socket",
        tmp_path: "a directory",
        Path("/dev/null"): "a character device",
    }


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="no /proc")
def test_a_pseudo_file_system_file_is_refused_though_it_claims_to_be_regular() -> None:
    assert stat.S_ISREG(os.stat("/proc/self/status").st_mode)
    with pytest.raises(NotRegularFileError) as caught:
        read_bounded("/proc/self/status", 1 << 20)
    assert caught.value.kind == "a file of the proc pseudo file system"


@pytest.mark.skipif(not os.path.exists("/proc/self/mountinfo"), reason="no /proc")
def test_the_kernel_tables_are_the_one_pseudo_file_read() -> None:
    table = read_kernel_table("/proc/self/mountinfo")
    assert " - " in table.splitlines()[0]  # "<id> <parent> <dev> <root> <mount point> ... - <type> ..."


def test_a_symlink_is_followed_only_when_asked(tmp_path: Path) -> None:
    (tmp_path / "real").write_bytes(b"content")
    (tmp_path / "link").symlink_to(tmp_path / "real")
    assert read_bounded(tmp_path / "link", 100)[0] == b"content"
    with pytest.raises(NotRegularFileError) as caught:
        read_bounded(tmp_path / "link", 100, follow_symlinks=False)
    assert caught.value.kind == "a symbolic link"


def test_single_link_refuses_a_hard_linked_file(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"shared")
    os.link(tmp_path / "a", tmp_path / "b")
    assert read_bounded(tmp_path / "a", 100)[0] == b"shared"
    with pytest.raises(HardLinkedError) as caught:
        read_bounded(tmp_path / "a", 100, single_link=True)
    assert caught.value.errno == errno.EMLINK and caught.value.links == 2


def test_a_file_that_is_not_the_one_listed_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    path.write_bytes(b"first")
    listed = os.lstat(path)
    path.rename(tmp_path / "aside")  # kept, so that its inode cannot be reused
    path.write_bytes(b"swapped in")  # a new inode under the listed name
    assert os.lstat(path).st_ino != listed.st_ino
    with pytest.raises(FileChangedError) as caught:
        open_regular(path, follow_symlinks=False, expect=listed)
    assert caught.value.errno == errno.ESTALE


def test_relative_to_an_open_directory(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"in the dir")
    dir_fd = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        assert read_bounded("f", 100, dir_fd=dir_fd, follow_symlinks=False)[0] == b"in the dir"
    finally:
        os.close(dir_fd)


def test_a_missing_file_is_the_oserror_of_stat(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_bounded(tmp_path / "missing", 100)


# --- writing ----------------------------------------------------------------------------------------------


def _temps(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_a_write_replaces_the_file_and_leaves_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "out.prom"
    target.write_bytes(b"old")
    write_atomically(target, b"new", durable=True)
    assert target.read_bytes() == b"new" and _temps(tmp_path) == []


def test_a_streamed_write_may_start_over(tmp_path: Path) -> None:
    def produce(out: FileWriter) -> None:
        out.write(b"a first draft")
        out.restart()
        out.write(b"final")

    write_atomically(tmp_path / "x.md", produce, durable=False)
    assert (tmp_path / "x.md").read_bytes() == b"final"


def test_a_failing_producer_leaves_the_old_file_and_no_temp(tmp_path: Path) -> None:
    target = tmp_path / "x.md"
    target.write_bytes(b"kept")

    def produce(out: FileWriter) -> None:
        out.write(b"half")
        raise KeyboardInterrupt  # what a signal handler raises mid-write

    with pytest.raises(KeyboardInterrupt):
        write_atomically(target, produce, durable=True)
    assert target.read_bytes() == b"kept" and _temps(tmp_path) == []


def test_what_the_user_put_at_the_target_is_refused_before_anything_is_written(
    tmp_path: Path, unix_socket: Path
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    directory = tmp_path / "dir"
    directory.mkdir()
    for target, kind in ((fifo, "a FIFO"), (directory, "a directory"), (unix_socket, "a socket")):
        with pytest.raises(NotRegularFileError) as caught:
            write_atomically(target, b"data", durable=False)
        assert caught.value.kind == kind
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and stat.S_ISSOCK(os.lstat(unix_socket).st_mode)
    assert list(directory.iterdir()) == [] and _temps(tmp_path) == []


def test_a_symlink_or_fifo_at_an_own_name_is_replaced_only_when_asked_and_never_written_through(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(b"the user's")
    link = tmp_path / "link"
    link.symlink_to(outside)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for target in (link, fifo):
        with pytest.raises(NotRegularFileError):
            write_atomically(target, b"mine", durable=False)
        write_atomically(target, b"mine", durable=False, replace_any_file=True)  # a FIFO is never opened
        assert stat.S_ISREG(os.lstat(target).st_mode) and target.read_bytes() == b"mine"
    assert outside.read_bytes() == b"the user's"
    directory = tmp_path / "dir"
    directory.mkdir()
    with pytest.raises(NotRegularFileError) as caught:
        write_atomically(directory, b"mine", durable=False, replace_any_file=True)
    assert isinstance(safe_files.not_replaced(caught.value, "dir"), IsADirectoryError)


def test_keep_mode_keeps_the_mode_of_the_file_replaced(tmp_path: Path) -> None:
    target = tmp_path / "export.md"
    target.write_bytes(b"old")
    target.chmod(0o640)
    write_atomically(target, b"new", durable=False, keep_mode=True)
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    write_atomically(tmp_path / "fresh.md", b"new", durable=False, mode=0o600)
    assert stat.S_IMODE((tmp_path / "fresh.md").stat().st_mode) == 0o600 & ~_umask()


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


def test_a_failed_write_names_the_target_and_leaves_no_temp(tmp_path: Path) -> None:
    missing_dir = tmp_path / "no" / "such"
    with pytest.raises(OSError) as caught:
        write_atomically(missing_dir / "f", b"x", durable=False)
    assert caught.value.errno == errno.ENOENT and caught.value.filename == str(missing_dir / "f")


def test_a_temp_name_fits_a_255_byte_name_and_is_never_reused(tmp_path: Path) -> None:
    name = "é" * 127  # 254 bytes
    temps = {safe_files.temp_name(name) for _ in range(50)}
    assert len(temps) == 50 and all(len(os.fsencode(t)) <= 255 for t in temps)
    write_atomically(tmp_path / name, b"x", durable=False)
    assert (tmp_path / name).read_bytes() == b"x"


def test_a_file_planted_at_the_temp_name_is_never_opened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(b"the user's")
    names = iter([".f.planted.tmp", ".f.fresh.tmp"])
    monkeypatch.setattr(safe_files, "temp_name", lambda name: next(names))
    (tmp_path / ".f.planted.tmp").symlink_to(outside)
    write_atomically(tmp_path / "f", b"new", durable=False)
    assert (tmp_path / "f").read_bytes() == b"new" and outside.read_bytes() == b"the user's"


def test_old_temps_of_a_killed_run_are_swept_and_recent_ones_kept(tmp_path: Path) -> None:
    old = time.time() - safe_files.STALE_TEMP_SECONDS - 60
    mine_old, mine_new, other_old = (
        safe_files.temp_name("f"),
        safe_files.temp_name("f"),
        safe_files.temp_name("g"),
    )
    for name in (mine_old, mine_new, other_old):
        (tmp_path / name).write_bytes(b"partial")
        if name != mine_new:
            os.utime(tmp_path / name, (old, old))
    write_atomically(tmp_path / "f", b"x", durable=False)
    assert _temps(tmp_path) == sorted([mine_new, other_old])


def test_the_sweep_leaves_the_users_files_that_only_look_like_temps(tmp_path: Path) -> None:
    """Round 5, class 2: any `.<name>.<16 hex>.tmp` or `.<name>.<n>.<n>.tmp` older than 10 minutes next to
    a written file was deleted, whoever's it was."""
    old = time.time() - safe_files.STALE_TEMP_SECONDS - 3600
    mine = safe_files.temp_name("notes")
    forged = mine[: -len(".tmp") - 1] + ("0" if mine[-5] != "0" else "1") + ".tmp"  # check digits wrong
    lookalikes = [
        ".notes.0123456789abcdef.tmp",
        ".notes.4242.139872.tmp",
        ".notes.memwarm-0123456789abcdef.tmp",
    ]
    for name in (*lookalikes, forged, mine):
        (tmp_path / name).write_bytes(b"the user's")
        os.utime(tmp_path / name, (old, old))
    hard_linked = safe_files.temp_name("notes")
    (tmp_path / hard_linked).write_bytes(b"linked")
    os.link(tmp_path / hard_linked, tmp_path / "elsewhere")
    os.utime(tmp_path / hard_linked, (old, old))
    write_atomically(tmp_path / "notes", b"x", durable=False)
    assert _temps(tmp_path) == sorted([*lookalikes, forged, hard_linked])  # only `mine` went
    assert all(safe_files.is_own_temp_name(safe_files.temp_name("notes"), "notes") for _ in range(20))
    assert not safe_files.is_own_temp_name(forged, "notes")


# --- the package reads and writes through safe_files only ------------------------------------------------

_PATH_IO_METHODS = frozenset({"read_text", "read_bytes", "write_text", "write_bytes"})
# os.open of something that is not a directory, outside safe_files: what each one is and why it stays.
_OS_OPEN_EXCEPTIONS = {
    ("backends/state/state_files.py", "open_lock_file"),  # flock target, created O_RDWR; never read
    ("cli/main.py", "_discard"),  # /dev/null, to point stdout at after a failed write
}


def _flag_names(node: ast.AST, constants: Mapping[str, ast.AST]) -> set[str]:
    names: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute):
            names.add(sub.attr)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):  # getattr(os, "O_DIRECTORY", 0)
            names.add(sub.value)
        elif isinstance(sub, ast.Name):
            names.add(sub.id)
            if sub.id in constants:
                names |= _flag_names(constants[sub.id], constants)
    return names


def _findings(path: Path, relative: str) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    constants = {
        target.id: node.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found: list[str] = []
    functions = [node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]

    def enclosing(call: ast.Call) -> str:
        inside = [f for f in functions if f.lineno <= call.lineno <= (f.end_lineno or f.lineno)]
        return min(inside, key=lambda f: (f.end_lineno or f.lineno) - f.lineno).name if inside else "<module>"

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        where = f"{relative}:{node.lineno}"
        if isinstance(func, ast.Name) and func.id == "open":
            found.append(f"{where}: builtin open()")
        elif isinstance(func, ast.Attribute):
            owner = func.value.id if isinstance(func.value, ast.Name) else None
            if owner == "os" and func.attr in ("replace", "rename"):
                found.append(f"{where}: os.{func.attr}()")
            elif owner == "io" and func.attr == "open":
                found.append(f"{where}: io.open()")
            elif func.attr in _PATH_IO_METHODS:
                found.append(f"{where}: .{func.attr}()")
            elif owner == "os" and func.attr == "open" and len(node.args) >= 2:
                if "O_DIRECTORY" in _flag_names(node.args[1], constants):
                    continue
                if (relative, enclosing(node)) not in _OS_OPEN_EXCEPTIONS:
                    found.append(f"{where}: os.open() of a file")
    return found


def test_every_file_is_read_and_written_through_safe_files() -> None:
    modules = [p for p in sorted(PACKAGE.rglob("*.py")) if p.name != "safe_files.py" or p.parent != PACKAGE]
    findings = [
        finding for module in modules for finding in _findings(module, module.relative_to(PACKAGE).as_posix())
    ]
    assert findings == [], "read or write through memwarm_cli/safe_files.py instead:\n" + "\n".join(findings)


def test_the_scan_finds_what_it_looks_for(tmp_path: Path) -> None:
    """The scan itself can fail: each forbidden form is found in a module written to hold them."""
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import os\nfrom pathlib import Path\n"
        "def f(p):\n"
        "    open(p)\n    os.replace(p, p)\n    os.rename(p, p)\n    Path(p).read_text()\n"
        "    os.open(p, os.O_RDONLY | os.O_NOFOLLOW)\n    os.open(p, os.O_RDONLY | os.O_DIRECTORY)\n",
        encoding="utf-8",
    )
    found = [finding.split(": ", 1)[1] for finding in _findings(sample, "sample.py")]
    assert found == ["builtin open()", "os.replace()", "os.rename()", ".read_text()", "os.open() of a file"]
