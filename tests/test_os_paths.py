"""memwarm_cli.os_paths joins and normalises `str` paths exactly as pathlib does, and
config.formats.format_for reads a suffix as `PurePath.suffix` does, neither importing pathlib."""

from __future__ import annotations

import subprocess
import sys
from pathlib import PurePosixPath

from hypothesis import given
from hypothesis import strategies as st

from memwarm_cli.config.formats import format_for
from memwarm_cli.os_paths import join_path, pure_path

# The characters that matter to the rules: separators, dots, a name character, a NUL, a tilde.
_TEXT = st.text(alphabet="/.a\0~", max_size=12)


@given(_TEXT)
def test_pure_path_is_str_of_pure_posix_path(text: str) -> None:
    assert pure_path(text) == str(PurePosixPath(text))


@given(_TEXT, st.lists(_TEXT, max_size=3))
def test_join_path_is_str_of_pure_posix_path(base: str, parts: list[str]) -> None:
    assert join_path(base, *parts) == str(PurePosixPath(base, *parts))


def test_the_cases_written_out() -> None:
    assert pure_path("") == "."
    assert pure_path("//x//y/./") == "//x/y"
    assert pure_path("///x") == "/x"
    assert pure_path("a/../b") == "a/../b"  # pathlib keeps "..": it is not normpath
    assert join_path("/home/u", ".openclaw", "workspace-a/./b/") == "/home/u/.openclaw/workspace-a/b"
    assert join_path("/state", "/elsewhere") == "/elsewhere"


@given(
    st.text(alphabet="/.aYyTt\0", max_size=12).map(lambda t: t.replace("Y", ".yaml").replace("T", ".toml"))
)
def test_format_for_reads_the_suffix_as_pathlib_does(name: str) -> None:
    suffix = PurePosixPath(name).suffix.lower()
    expected = {".yaml": "yaml", ".yml": "yaml", ".toml": "toml"}.get(suffix, "json5")
    assert format_for(name) == expected


def test_format_for_examples() -> None:
    assert format_for("/c/openclaw.YAML") == "yaml"
    assert format_for("/c/..yaml") == "yaml"  # os.path.splitext would say no suffix
    assert format_for("/c/conf.toml/") == "toml"
    assert format_for("/c/.toml") == "json5"  # a dot file: no suffix
    assert format_for("/c/a.yml.json5") == "json5"


def test_importing_them_does_not_import_pathlib() -> None:
    code = "import sys, memwarm_cli.os_paths, memwarm_cli.config.formats; print('pathlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
