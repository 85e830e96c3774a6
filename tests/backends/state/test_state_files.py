"""memwarm's own files under the state dir: never through a symlink, never outside it, no temp file
left behind, and reads that say why a file cannot be used (issue 10, classes 9 to 11)."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli import safe_files
from memwarm_cli.backends.freshness import fingerprint as fp
from memwarm_cli.backends.state import state_files, state_records
from memwarm_cli.backends.state.locks import FileLock, agent_lock_path
from memwarm_cli.backends.state.state_files import StatePath


@pytest.fixture
def state(tmp_path: Path) -> Path:
    path = tmp_path / "state"
    path.mkdir()
    return path


def test_state_paths_stay_below_the_state_dir(state: Path) -> None:
    assert StatePath.of(state, state / "agents" / "main").parts == ("agents", "main")
    for bad in (state.parent / "elsewhere", state / "agents" / ".." / ".." / "x", state):
        with pytest.raises(OSError):
            StatePath.of(state, bad)


@pytest.mark.parametrize("linked", ["agents", "agents/main", "agents/main/qmd"])
def test_make_dirs_refuses_a_symlinked_directory_below_the_state_dir(
    state: Path, outside: Path, linked: str
) -> None:
    target = state / "agents" / "main" / "qmd" / "xdg-cache" / "qmd"
    link = state / linked
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside.parent, target_is_directory=True)
    with pytest.raises(OSError) as caught:
        state_files.make_dirs(StatePath.of(state, target))
    assert caught.value.errno == errno.ELOOP
    assert caught.value.filename == str(link)
    assert "it is a symbolic link" in str(caught.value.strerror)


def test_a_symlinked_state_dir_itself_is_followed(tmp_path: Path) -> None:
    real = tmp_path / "real-state"
    real.mkdir()
    (tmp_path / "state").symlink_to(real, target_is_directory=True)
    state_files.make_dirs(StatePath.of(tmp_path / "state", tmp_path / "state" / "agents" / "a"))
    assert (real / "agents" / "a").is_dir()


def test_write_replaces_a_symlink_at_the_target_never_writing_through_it(state: Path, outside: Path) -> None:
    target = StatePath.of(state, state / "memwarm" / "qmd-versions.json")
    target.path.parent.mkdir()
    target.path.symlink_to(outside)
    state_files.write_atomically(target, b"{}\n")
    assert not target.path.is_symlink() and target.path.read_bytes() == b"{}\n"


def test_write_never_opens_a_file_planted_at_its_temp_name(
    state: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = StatePath.of(state, state / "f.json")
    names = iter([".f.json.planted.tmp", ".f.json.fresh.tmp"])
    monkeypatch.setattr(safe_files, "temp_name", lambda name: next(names))
    (state / ".f.json.planted.tmp").symlink_to(outside)
    state_files.write_atomically(target, b"new\n")
    assert target.path.read_bytes() == b"new\n"
    assert (state / ".f.json.planted.tmp").is_symlink()  # left alone, never opened


def test_fingerprint_temp_names_cannot_be_predicted(state: Path, outside: Path) -> None:
    """The temp name was `.<name>.<pid>.<thread>.tmp`: a symlink planted there was written through."""
    target = StatePath.of(state, state / "qmd" / fp.FINGERPRINT_NAME)
    target.path.parent.mkdir()
    predictable = target.path.with_name(f".{fp.FINGERPRINT_NAME}.{os.getpid()}.{threading.get_ident()}.tmp")
    predictable.symlink_to(outside)
    fp.write_fingerprint(target, fp.StoredFingerprint("a" * 64, 1.0, True, 0, ("c",), 1))
    assert fp.read_fingerprint(target) is not None


FULL_DISK_WRITER = """
import resource, sys
from pathlib import Path
from memwarm_cli.backends.state import state_files, state_records
resource.setrlimit(resource.RLIMIT_FSIZE, (16, 16))
state = Path(sys.argv[1])
try:
    state_files.write_atomically(state_files.StatePath.of(state, state / "memwarm" / "big.json"), b"x" * 4096)
except OSError as exc:
    print(exc.errno, exc.filename)
"""


def test_a_write_past_the_file_size_limit_leaves_no_temp_file(state: Path) -> None:
    """EFBIG from RLIMIT_FSIZE in a child process, as a full disk fails a write part-way."""
    (state / "memwarm").mkdir()
    done = subprocess.run(
        [sys.executable, "-c", FULL_DISK_WRITER, str(state)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.split() == [str(errno.EFBIG), str(state / "memwarm" / "big.json")]
    assert list((state / "memwarm").iterdir()) == []


def test_a_failed_rename_leaves_no_temp_file(state: Path) -> None:
    target = StatePath.of(state, state / "taken.json")
    (state / "taken.json").mkdir()
    (state / "taken.json" / "keep").write_text("x")
    with pytest.raises(OSError) as caught:
        state_files.write_atomically(target, b"{}")
    assert caught.value.filename == str(target.path)
    assert sorted(p.name for p in state.iterdir()) == ["taken.json"]


def _read(state: Path, name: str = "s.json", max_bytes: int = 1024) -> state_files.StateRead:
    return state_files.read_json(StatePath.of(state, state / name), max_bytes=max_bytes)


def test_reads_say_why_a_file_cannot_be_used(state: Path, outside: Path) -> None:
    assert _read(state) == state_files.StateRead(found=False)
    cases = {
        "it is not valid JSON: nested too deeply": b"[" * 100_000,
        "it is not valid JSON: NaN is not JSON": b'{"a": NaN}',
        "it is not UTF-8": b'{"a": "\xff"}',
        "it is larger than 1048576 bytes": b" " * (1 << 20) + b"{}",
    }
    for problem, data in cases.items():
        (state / "s.json").write_bytes(data)
        assert _read(state, max_bytes=1 << 20).problem == problem
    (state / "s.json").unlink()
    (state / "s.json").symlink_to(outside)
    assert "it is a symbolic link" in str(_read(state).problem)
    (state / "s.json").unlink()
    os.mkfifo(state / "s.json")  # never waited on
    assert _read(state).problem == "it is not a regular file"
    (state / "sub").symlink_to(outside.parent, target_is_directory=True)
    read = _read(state, "sub/user-file")
    assert read.found and str(read.problem).startswith(f"{state / 'sub'}: it is a symbolic link")
    (state / "s.json").unlink()
    (state / "s.json").write_text(json.dumps({"ok": [1, 2.5]}))
    assert _read(state) == state_files.StateRead(found=True, data={"ok": [1, 2.5]})


def _parse_counter(data: Any) -> int | None:
    if not isinstance(data, dict) or type(data.get("count")) is not int:
        raise state_records.InvalidStateFile("count is not an integer")
    return None if data["count"] < 0 else data["count"]


def test_a_record_read_warns_once_about_an_unusable_file_and_reads_it_as_absent(state: Path) -> None:
    target = StatePath.of(state, state / "r.json")
    warnings: list[str] = []

    def read() -> int | None:
        return state_records.read_record(target, _parse_counter, max_bytes=64, warn=warnings.append)

    assert read() is None and warnings == []  # absent: nothing to say
    state_records.write_json_atomically(target, {"count": 3})
    assert target.path.read_text() == '{\n  "count": 3\n}\n'
    assert read() == 3 and warnings == []
    state_records.write_json_atomically(target, {"count": -1})  # parse's None: another format, no warning
    assert read() is None and warnings == []
    state_records.write_json_atomically(target, {"count": "3"})
    assert read() is None
    assert warnings == [f"ignoring {target}: count is not an integer; continuing as if it were absent"]
    target.path.write_bytes(b" " * 65)
    assert state_records.read_record(target, _parse_counter, max_bytes=64, warn=None) is None
    assert read() is None
    assert warnings[1:] == [f"ignoring {target}: it is larger than 64 bytes; continuing as if it were absent"]


@pytest.mark.parametrize("planted", ["symlink", "fifo"])
def test_a_lock_never_opens_a_symlink_or_fifo_planted_at_its_name(
    state: Path, outside: Path, planted: str
) -> None:
    qmd_dir = state / "agents" / "main" / "qmd"
    qmd_dir.mkdir(parents=True)
    lock_file = qmd_dir / "memwarm-init.lock"
    if planted == "symlink":
        lock_file.symlink_to(outside)
    else:
        os.mkfifo(lock_file)
    with pytest.raises(OSError) as caught:
        FileLock(agent_lock_path(state, qmd_dir)).try_acquire()
    assert caught.value.filename == str(lock_file)


def test_a_lock_does_not_write_its_pid_through_a_hard_link(state: Path, outside: Path) -> None:
    qmd_dir = state / "agents" / "main" / "qmd"
    qmd_dir.mkdir(parents=True)
    os.link(outside, qmd_dir / "memwarm-init.lock")
    lock = FileLock(agent_lock_path(state, qmd_dir))
    assert lock.try_acquire()
    lock.release()
    (qmd_dir / "memwarm-init.lock").unlink()  # for the fixture: the hard link is not a file outside


def test_remove_takes_a_symlink_away_never_its_target(state: Path, outside: Path) -> None:
    (state / "f.json").symlink_to(outside)
    state_files.remove_file(StatePath.of(state, state / "f.json"))
    assert not os.path.lexists(state / "f.json")
    (state / "d.json").mkdir()
    state_files.remove_file(StatePath.of(state, state / "d.json"))  # a directory is left alone
    assert (state / "d.json").is_dir()
    state_files.remove_file(StatePath.of(state, state / "missing" / "f.json"))


def test_make_symlink_refuses_a_symlinked_parent(state: Path, outside: Path) -> None:
    (state / "cache").symlink_to(outside.parent, target_is_directory=True)
    with pytest.raises(OSError) as caught:
        state_files.make_symlink(StatePath.of(state, state / "cache" / "models"), state)
    assert caught.value.errno == errno.ELOOP


def test_a_write_sweeps_temp_files_that_a_killed_run_left(state: Path) -> None:
    """SIGKILL mid-write cannot clean up: the next successful write removes old temp files of its name."""
    target = StatePath.of(state, state / "f.json")
    old_time = time.time() - safe_files.STALE_TEMP_SECONDS - 60
    leftover, recent, other = (safe_files.temp_name(n) for n in ("f.json", "f.json", "other.json"))
    for name in [leftover, recent, other]:
        (state / name).write_text("partial")
        if name != recent:
            os.utime(state / name, (old_time, old_time))
    state_files.write_atomically(target, b"{}")
    assert sorted(p.name for p in state.iterdir()) == sorted(
        [
            recent,  # recent: it may be a live writer's
            other,  # another file's
            "f.json",
        ]
    )
