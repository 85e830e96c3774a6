"""memwarm_cli.datetime_types hands out the very classes of the datetime module."""

from __future__ import annotations

import datetime
import subprocess
import sys

from memwarm_cli import datetime_types


def test_the_same_classes_as_the_datetime_module() -> None:
    for name in datetime_types.__all__:
        assert getattr(datetime_types, name) is getattr(datetime, name), name


def test_importing_it_does_not_import_the_datetime_module() -> None:
    code = "import sys, memwarm_cli.datetime_types; print('datetime' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
