"""`status --textfile` replaces only a regular file: a device, FIFO, socket, symlink or directory at the
target's name is the user's and stays as it was (a rename used to put a regular file in place of
`--textfile /dev/null`)."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from memwarm_cli.cli.commands.status_prometheus import write_textfile
from memwarm_cli.errors import OutputError, UsageError
from tests.conftest import RunCli


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.bind(str(path))


def _symlink(path: Path) -> None:
    (path.parent / "elsewhere.prom").write_text("the user's\n")
    path.symlink_to(path.parent / "elsewhere.prom")


def _directory(path: Path) -> None:
    path.mkdir()


@pytest.mark.parametrize(
    ("make", "kind"),
    [(_fifo, "a FIFO"), (_socket, "a socket"), (_symlink, "a symbolic link"), (_directory, "a directory")],
)
def test_a_target_that_is_not_a_regular_file_is_refused_and_left_alone(
    tmp_path: Path, make: Callable[[Path], None], kind: str
) -> None:
    target = tmp_path / "memwarm.prom"
    make(target)
    before = os.lstat(target)
    with pytest.raises(OutputError, match=f"^cannot write {target}: it is {kind}, "):
        write_textfile(str(target), "memwarm_agent_warm 1\n")
    after = os.lstat(target)
    assert (stat.S_IFMT(after.st_mode), after.st_ino) == (stat.S_IFMT(before.st_mode), before.st_ino)
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]  # no temp file left
    if kind == "a symbolic link":
        assert (tmp_path / "elsewhere.prom").read_text() == "the user's\n"


def test_a_regular_file_or_no_file_is_written(tmp_path: Path) -> None:
    target = tmp_path / "memwarm.prom"
    write_textfile(str(target), "one\n")
    write_textfile(str(target), "two\n")
    assert target.read_text() == "two\n" and sorted(os.listdir(tmp_path)) == ["memwarm.prom"]


@pytest.mark.parametrize("path", ["", "x.prom/", "dir/", "prom/.", "./x.prom/.", "a/.."])
def test_a_path_that_names_no_file_is_a_usage_error(
    tmp_path: Path, path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`x.prom/` wrote a file named x.prom; '' renamed onto the directory (EBUSY). Relative paths are
    tried in tmp_path: a regression must not leave files in the checkout (stray `prom`, `x.prom`)."""
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match="names no file"):
        write_textfile(path, "memwarm_agent_warm 1\n")
    assert os.listdir(tmp_path) == []


def test_a_long_legal_name_is_written(tmp_path: Path) -> None:
    """A 245-byte name is legal (255 is the limit); the temp name beside it must stay legal too."""
    target = tmp_path / ("a" * 240 + ".prom")
    write_textfile(str(target), "memwarm_agent_warm 1\n")
    assert target.read_text() == "memwarm_agent_warm 1\n" and len(os.listdir(tmp_path)) == 1


def test_a_status_run_that_judges_nothing_replaces_the_textfile_with_status_ok_0(
    tmp_path: Path, run_cli: RunCli
) -> None:
    """A config error left the last good textfile, and node_exporter went on reporting its warm agents."""
    target = tmp_path / "memwarm.prom"
    target.write_text('memwarm_status_ok 1\nmemwarm_agent_warm{agent="main"} 1\n')
    config = tmp_path / "broken.json5"
    config.write_text("{memory: ")
    result = run_cli(["--config", str(config), "status", "--textfile", str(target)])
    assert result.returncode == 3, result.stderr
    families = {f.name: f for f in text_string_to_metric_families(target.read_text())}
    assert set(families) == {"memwarm_status_ok"}
    assert [s.value for s in families["memwarm_status_ok"].samples] == [0.0]
    config.write_text("{}")
    target.write_text("memwarm_status_ok 1\n")
    for bad in (["--agent", "x"], ["--max-age", "bogus"], ["--format", "bogus"], ["-a", "x", "--all-agents"]):
        target.write_text("memwarm_status_ok 1\n")
        result = run_cli(["--config", str(config), "status", *bad, "--textfile", str(target)])
        assert result.returncode == 2 and target.read_text().endswith("memwarm_status_ok 0\n"), (bad, result)


def test_a_path_longer_than_the_os_takes_is_one_error(tmp_path: Path) -> None:
    """`d/d/.../x` past PATH_MAX: checking its directory raised ENAMETOOLONG, a traceback."""
    with pytest.raises(OutputError, match="File name too long"):
        write_textfile(str(tmp_path) + "/d" * 2100 + "/x.prom", "memwarm_agent_warm 1\n")
