"""Finding the installed openclaw from its files (real files and links; Node is never started)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memwarm_cli.profiles.installed import _entry_paths, find_installed, which
from tests.profiles.support import installer_wrapper, npm_global


def test_an_npm_global_link_is_followed_to_the_package(tmp_path: Path) -> None:
    bin_dir = npm_global(tmp_path / "prefix", "2026.8.2", build_version="2026.8.2")
    found = find_installed({"PATH": f"/nonexistent:{bin_dir}"})
    assert found is not None
    assert found.package_dir == os.path.realpath(tmp_path / "prefix/lib/node_modules/openclaw")
    assert found.version == "2026.8.2"
    assert found.node_range == ">=24.16.0 <25 || >=26.1.0"


def test_the_installer_wrapper_is_parsed_for_its_entry(tmp_path: Path) -> None:
    bin_dir = installer_wrapper(tmp_path / "oc", "2026.9.6", build_version="2026.9.6")
    found = find_installed({"PATH": str(bin_dir)})
    assert found is not None and found.version == "2026.9.6"
    assert found.package_dir.endswith("/tools/node-v24.21.0/lib/node_modules/openclaw")


def test_build_info_wins_over_package_json(tmp_path: Path) -> None:
    # The release's own --version reads dist/build-info.json first.
    bin_dir = npm_global(tmp_path / "p", "2026.6.35", build_version="2026.9.6")
    found = find_installed({"PATH": str(bin_dir)})
    assert found is not None and found.version == "2026.9.6"


def test_a_pnpm_style_basedir_wrapper(tmp_path: Path) -> None:
    npm_global(tmp_path / "store", "2026.7.35")
    shim_dir = tmp_path / "store" / "shims"
    shim_dir.mkdir()
    shim = shim_dir / "openclaw"
    shim.write_text(
        '#!/bin/sh\nbasedir=$(dirname "$0")\n'
        'exec node  "$basedir/../lib/node_modules/openclaw/openclaw.mjs" "$@"\n'
    )
    shim.chmod(0o755)
    found = find_installed({"PATH": str(shim_dir)})
    assert found is not None and found.version == "2026.7.35"


def test_other_programs_called_openclaw_are_not_the_package(tmp_path: Path) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "openclaw"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    assert which({"PATH": str(bin_dir)}) == str(script)
    assert find_installed({"PATH": str(bin_dir)}) is None
    # A package whose package.json is someone else's is not openclaw either.
    other = npm_global(tmp_path / "x", "1.0.0")
    (tmp_path / "x/lib/node_modules/openclaw/package.json").write_text('{"name": "not-openclaw"}')
    assert find_installed({"PATH": str(other)}) is None


def test_not_executable_or_absent_is_not_found(tmp_path: Path) -> None:
    bin_dir = npm_global(tmp_path / "p", "2026.9.6")
    (tmp_path / "p/lib/node_modules/openclaw/openclaw.mjs").chmod(0o644)
    assert find_installed({"PATH": str(bin_dir)}) is None
    assert find_installed({"PATH": ""}) is None
    assert find_installed({"PATH": str(tmp_path / "missing")}) is None


def test_a_package_without_a_version_is_found_without_one(tmp_path: Path) -> None:
    bin_dir = npm_global(tmp_path / "p", None)
    found = find_installed({"PATH": str(bin_dir)})
    assert found is not None and found.version is None


# ---- round 5, class 3: a wrapper read in linear time, PATH searched by the shell's rules ----------------

_DETECT_UNDER_CPU_LIMIT = """
import resource, sys
resource.setrlimit(resource.RLIMIT_CPU, (CPU_SECONDS, CPU_SECONDS))
from memwarm_cli.profiles.installed import find_installed
print(find_installed({"PATH": sys.argv[1]}))
"""
CPU_SECONDS = 20  # the linear scan needs milliseconds; the quadratic regex took over 60 s on 64 KiB


def _wrapper(bin_dir: Path, body: str) -> Path:
    bin_dir.mkdir(parents=True, exist_ok=True)
    wrapper = bin_dir / "openclaw"
    wrapper.write_text(body, encoding="utf-8")
    wrapper.chmod(0o755)
    return wrapper


@pytest.mark.parametrize("filler", ["/", "$basedir", "/dist/entry", "a/"])
def test_a_wrapper_of_64_kib_of_slashes_is_read_within_a_cpu_budget(tmp_path: Path, filler: str) -> None:
    # A CPU-time limit, not a wall-clock one: a busy machine does not use up the child's CPU seconds. The
    # child is killed by SIGXCPU when the read is quadratic (every start of a slash rescanned the rest).
    import subprocess
    import sys

    from memwarm_cli.profiles.installed import MAX_WRAPPER_BYTES
    from tests.conftest import REPO_ROOT

    head = "#!/bin/sh\nexec node "
    body = head + filler * ((MAX_WRAPPER_BYTES - len(head) - 1) // len(filler)) + "\n"
    assert len(body.encode()) <= MAX_WRAPPER_BYTES
    _wrapper(tmp_path / "bin", body)
    code = _DETECT_UNDER_CPU_LIMIT.replace("CPU_SECONDS", str(CPU_SECONDS))
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "bin")],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only: the CPU limit decides
    )
    assert done.returncode == 0, f"killed by the CPU limit or failed: {done.returncode} {done.stderr}"
    assert done.stdout.strip() == "None"


@pytest.mark.parametrize(
    "line",
    [
        'exec node "$basedir/../lib/node_modules/openclaw/openclaw.mjs" "$@"',
        "exec node ${basedir}/../lib/node_modules/openclaw/dist/entry.js",
        "exec node '{package}/dist/entry.mjs' \"$@\"",
        "NODE_OPTIONS= exec env x=1 --require={package}/openclaw.mjs",
        "exec node {package}/openclaw.mjs",
    ],
)
def test_the_entry_is_found_in_each_wrapper_spelling(tmp_path: Path, line: str) -> None:
    from tests.profiles.support import fake_package

    package = fake_package(tmp_path / "store", "2026.7.35")
    (package / "dist" / "entry.mjs").write_text("// entry\n", encoding="utf-8")
    bin_dir = tmp_path / "store" / "shims"
    _wrapper(bin_dir, "#!/bin/sh\n" + line.replace("{package}", str(package)) + "\n")
    found = find_installed({"PATH": str(bin_dir)})
    assert found is not None and found.package_dir == os.path.realpath(package)


@pytest.mark.parametrize("path", ["", ":", "/nonexistent:", ":/nonexistent", "/nonexistent::/x", "."])
def test_an_empty_path_entry_or_dot_is_the_working_directory_as_in_the_shell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    # sh, dash and bash all run ./openclaw for each of these PATHs (and execvp does): so memwarm reads that
    # openclaw, and names it by its absolute path (a relative `./openclaw` would mean another file after
    # a chdir).
    bin_dir = npm_global(tmp_path / "p", "2026.9.6")
    monkeypatch.chdir(bin_dir)
    assert which({"PATH": path}) == str(bin_dir / "openclaw")
    found = find_installed({"PATH": path})
    assert found is not None and found.version == "2026.9.6"
    assert found.executable == str(bin_dir / "openclaw")


def test_a_relative_path_entry_is_taken_against_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    npm_global(tmp_path / "p", "2026.9.6")
    monkeypatch.chdir(tmp_path)
    assert which({"PATH": "/nonexistent:p/bin"}) == str(tmp_path / "p" / "bin" / "openclaw")
    monkeypatch.chdir(tmp_path / "p")
    assert which({"PATH": "/nonexistent:p/bin"}) is None


def test_without_path_the_os_default_is_searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    npm_global(tmp_path / "p", "2026.9.6")
    monkeypatch.chdir(tmp_path / "p" / "bin")
    assert which({}) == next(
        (
            os.path.join(d, "openclaw")
            for d in os.defpath.split(":")
            if os.path.isfile(os.path.join(d, "openclaw"))
        ),
        None,
    )


# The regex the wrapper was read with before (quadratic on long runs of `/`): on short texts it is the
# oracle for which paths the linear scan takes.
_OLD_WRAPPER_PATH = re.compile(
    r"""["']?((?:\$\{?basedir\}?|/)[^"'\s]*?(?:/openclaw\.mjs|/dist/entry\.m?js))["']?(?=[\s"']|$)"""
)
_PIECES = [
    "/",
    "$basedir",
    "${basedir}",
    "${basedir",
    "$",
    "x",
    " ",
    "\n",
    '"',
    "'",
    "/openclaw.mjs",
    "/dist/entry.js",
    "/dist/entry.mjs",
    "openclaw.mjs",
    "dist",
    "\u3000",
    "=",
    "}",
]


@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=12))
def test_the_linear_scan_takes_the_paths_the_old_regex_took(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert list(_entry_paths(text)) == [m.group(1) for m in _OLD_WRAPPER_PATH.finditer(text)]
