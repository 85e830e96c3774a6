"""A config (or `$include`, or `.env`) that is not a regular file: one error line and exit 3, never a hang.

Character and block devices, sockets and FIFOs are refused from their `stat`, before they are opened.
Files of pseudo file systems (`/proc`, `/sys`) claim to be regular but lie about their size, and some
block or consume what they return (`/proc/kmsg`): they are refused too, without a byte read.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from memwarm_cli.config.dotenv import load_dotenv_file
from memwarm_cli.config.includes import IncludeError, IncludeProcessor
from memwarm_cli.exitcodes import ExitCode
from memwarm_cli.safe_files import NotRegularFileError, read_available, read_bounded
from tests.conftest import RunCli

PROC_FILE = "/proc/self/status"  # S_ISREG, st_size 0, yet it has content
SYS_FILE = "/sys/kernel/mm/transparent_hugepage/enabled"  # S_ISREG, st_size 4096 whatever it holds
BLOCK_DEVICE = "/dev/loop0"

needs_proc = pytest.mark.skipif(not os.path.exists(PROC_FILE), reason="no /proc")


@pytest.fixture
def unix_socket(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "sock.json5"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    try:
        yield path
    finally:
        server.close()


def assert_refused(result: object, path: str, kind: str) -> None:
    assert result.returncode == ExitCode.CONFIG, result.stderr  # type: ignore[attr-defined]
    assert result.stdout == ""  # type: ignore[attr-defined]
    (line,) = result.stderr.splitlines()  # type: ignore[attr-defined]
    assert line == f"memwarm: error: {path}: is {kind}, not a regular file: cannot read it as a config"


def test_socket_as_config(run_cli: RunCli, unix_socket: Path) -> None:
    assert_refused(run_cli(["--config", str(unix_socket), "config", "path"]), str(unix_socket), "a socket")


@needs_proc
@pytest.mark.parametrize("command", [["config", "path"], ["config", "check"], ["prelude"]])
def test_proc_file_as_config(run_cli: RunCli, command: list[str]) -> None:
    result = run_cli(["--config", PROC_FILE, *command], timeout=20)
    assert_refused(result, PROC_FILE, "a file of the proc pseudo file system")


@needs_proc
def test_proc_file_from_the_environment(run_cli: RunCli) -> None:
    result = run_cli(["config", "show"], env={"OPENCLAW_CONFIG_PATH": "/proc/self/environ"}, timeout=20)
    assert_refused(result, "/proc/self/environ", "a file of the proc pseudo file system")


@pytest.mark.skipif(not os.path.exists(SYS_FILE), reason="no such sysfs file")
def test_sysfs_file_as_config(run_cli: RunCli) -> None:
    result = run_cli(["--config", SYS_FILE, "config", "check"], timeout=20)
    assert_refused(result, SYS_FILE, "a file of the sysfs pseudo file system")


@pytest.mark.skipif(not os.path.exists(BLOCK_DEVICE), reason="no block device to point at")
def test_block_device_as_config(run_cli: RunCli) -> None:
    assert_refused(run_cli(["--config", BLOCK_DEVICE, "config", "path"]), BLOCK_DEVICE, "a block device")


def test_fifo_and_socket_includes_fail_their_security_check(run_cli: RunCli, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "fifo.json5")  # no writer: opening or reading it would block forever
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(tmp_path / "sock.json5"))
    try:
        cfg = tmp_path / "openclaw.json5"
        cfg.write_text("{a: {$include: 'fifo.json5'}, b: {$include: 'sock.json5'}}")
        result = run_cli(["--config", str(cfg), "config", "check"], timeout=20)
    finally:
        server.close()
    assert result.returncode == ExitCode.FINDINGS, result.stderr
    security = "Include file failed security checks (regular file, max 2097152 bytes, no hardlinks)"
    assert f"error: a.$include: {security}: fifo.json5" in result.stdout
    assert f"error: b.$include: {security}: sock.json5" in result.stdout


@needs_proc
def test_proc_file_include_fails_its_security_check() -> None:
    # The include root is /proc/self itself, so only the file's nature can refuse it.
    processor = IncludeProcessor("/proc/self/openclaw.json5")
    with pytest.raises(IncludeError) as info:
        processor.process({"$include": "status"}, None)
    assert info.value.message.startswith("Include file failed security checks (regular file")


@needs_proc
def test_proc_file_as_dotenv_is_ignored(tmp_path: Path) -> None:
    env: dict[str, str] = {}
    assert load_dotenv_file(Path(PROC_FILE), env) == []  # "Name:\tpython" would otherwise set Name
    assert env == {}


def test_a_read_that_would_block_is_refused() -> None:
    # What /proc/kmsg gives when the kernel has nothing to say: a non-blocking read returns no data.
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    try:
        with pytest.raises(NotRegularFileError) as info:
            read_available(read_end, 1024)
    finally:
        os.close(read_end)
        os.close(write_end)
    assert "would block" in info.value.kind


def test_oversized_file_is_refused_before_reading(tmp_path: Path) -> None:
    from memwarm_cli.safe_files import FileTooLargeError

    big = tmp_path / "big.json5"
    with open(big, "wb") as handle:
        handle.truncate(10 * 1024 * 1024)  # sparse: claims 10 MiB
    with pytest.raises(FileTooLargeError) as info:
        read_bounded(str(big), 1024 * 1024)
    assert info.value.size == 10 * 1024 * 1024
