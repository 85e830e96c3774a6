"""memwarm_cli.sqlite_driver hands out sqlite3's own objects, without importing the datetime module."""

from __future__ import annotations

import sqlite3
import subprocess
import sys

from memwarm_cli.sqlite_driver import sqlite3 as driver

USED = ("connect", "Connection", "Error", "OperationalError", "DatabaseError", "Row")


def test_the_names_memwarm_uses_are_sqlite3s() -> None:
    for name in USED:
        assert getattr(driver, name) is getattr(sqlite3, name), name


def test_a_read_only_connection_reads(tmp_path: object) -> None:
    db = driver.connect(":memory:")
    try:
        assert db.execute("select sqlite_version()").fetchone()[0] == sqlite3.sqlite_version
    finally:
        db.close()


def test_importing_it_does_not_import_datetime_or_the_package() -> None:
    code = "import sys, memwarm_cli.sqlite_driver; print(sorted({'datetime', 'sqlite3'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
