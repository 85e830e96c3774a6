"""Installing and scheduling memwarm as the README's Install section says: a fresh venv from a copy of the
repository (no editable install, the copy deleted before memwarm runs), the sdist and wheel that
`python -m build` makes, and the documented crontab line and systemd units (README's First run,
docs/install.md), run as cron and systemd would run them (their PATH, `$HOME` and `%h`).

The fresh-venv installs take tens of seconds (pip builds and installs memwarm and its dependencies, from
the local pip cache or PyPI); it carries the `install` marker: `make test` runs it, in parallel with the
rest, and `-m "not install"` leaves it out while developing.
"""

from __future__ import annotations

import configparser
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.backends.support import require_real_qmd
from tests.conftest import MEMWARM, REPO_ROOT, RunCli

# The README's First run and docs/install.md: where the crontab and the systemd units are written.
DOCUMENTED = "\n".join(
    page.read_text(encoding="utf-8")
    for page in (REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md")))
)
# What a copy of the repository leaves out: what the project's .gitignore names (what `make`, the tools
# and test runs make: .venv, tools, caches, .hypothesis, ...) and git's own folder. By base name, as
# shutil matches them.
_NOT_SOURCES = shutil.ignore_patterns(
    ".git",
    *(
        line.strip().rstrip("/").rsplit("/", 1)[-1]
        for line in (REPO_ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ),
)


def _blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", DOCUMENTED, flags=re.M | re.S)


def _tiny_setup(home: Path, qmd_command: str | None = None) -> Path:
    """`~/.openclaw/openclaw.json` with one agent whose workspace has a daily note; with `qmd_command`,
    memory search on qmd with that command (the README's other fix for cron's PATH)."""
    workspace = home / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "memory" / "2026-04-11.md").write_text("Deploy the billing fix first.\n", encoding="utf-8")
    config: dict[str, object] = {"agents": {"list": [{"id": "main", "workspace": str(workspace)}]}}
    if qmd_command is not None:
        config["memory"] = {"backend": "qmd", "qmd": {"command": qmd_command, "searchMode": "search"}}
    (home / ".openclaw").mkdir(parents=True)
    (home / ".openclaw" / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    return workspace


@pytest.mark.install
def test_a_fresh_venv_install_runs_without_the_repository(tmp_path: Path) -> None:
    source, venv, elsewhere, home = (tmp_path / name for name in ("src", "venv", "elsewhere", "home"))
    shutil.copytree(REPO_ROOT, source, ignore=_NOT_SOURCES)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "--quiet"]
    # The README's form from inside the checkout (`pip install .`).
    installed = subprocess.run([*pip, "."], cwd=source, capture_output=True, text=True, timeout=600)
    assert installed.returncode == 0, installed.stderr
    shutil.rmtree(source)  # nothing of the repository is needed at run time
    elsewhere.mkdir()
    _tiny_setup(home)
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "TZ": "UTC", "LANG": "C.UTF-8"}
    memwarm = str(venv / "bin" / "memwarm")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [memwarm, *args], cwd=elsewhere, env=env, capture_output=True, text=True, timeout=60
        )

    version = run("--version")
    assert (version.returncode, version.stderr) == (0, "") and version.stdout.startswith("memwarm ")
    prelude = run("prelude", "--at", "2026-04-11T18:00:00Z")
    assert prelude.returncode == 0, prelude.stderr
    assert "Deploy the billing fix first." in prelude.stdout
    scan = run("scan", "--at", "2026-04-11T18:00:00Z", "--format", "plain", "-q")
    assert scan.returncode == 0 and "2026-04-11.md\tincluded" in scan.stdout
    assert run("completion", "bash").stdout.startswith("_memwarm_completion()")
    # memwarm's own console script (SIGINT-safe from its first line), and the package from this venv.
    assert "_signal" in Path(memwarm).read_text(encoding="utf-8").split("from memwarm_cli", 1)[0]
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import memwarm_cli; print(memwarm_cli.__file__)"],
        cwd=elsewhere,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert where.stdout.startswith(str(venv))


def _project_files(root: Path) -> set[str]:
    """The project's files: git's tracked ones that exist (others' deletions in progress left out), or,
    outside a git checkout (an unpacked sdist), every file of the tree but what builds make."""
    listed = subprocess.run(
        ["git", "-C", str(root), "ls-files", "-z"], capture_output=True, text=True, check=False
    )
    if listed.returncode == 0 and (root / ".git").exists():
        return {name for name in listed.stdout.split("\0") if name and (root / name).is_file()}
    copy = root.parent / (root.name + "-files")
    shutil.copytree(root, copy, ignore=_NOT_SOURCES)
    found = {str(path.relative_to(copy)) for path in copy.rglob("*") if path.is_file()}
    shutil.rmtree(copy)
    return found - {"PKG-INFO", "setup.cfg"}


@pytest.mark.install
def test_the_sdist_is_the_whole_project_and_its_wheel_installs(tmp_path: Path) -> None:
    """`python -m build` as a release runs it (the wheel built from the sdist), from outside the source
    tree: the sdist holds every project file, so its tests run from it; the wheel installs into a fresh
    venv with the licence, py.typed and memwarm's own console script."""
    source, dist, venv, elsewhere = (tmp_path / name for name in ("src", "dist", "venv", "elsewhere"))
    shutil.copytree(REPO_ROOT, source, ignore=_NOT_SOURCES)
    elsewhere.mkdir()
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(dist), str(source)],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    (sdist,) = dist.glob("memwarm-*.tar.gz")
    (wheel,) = dist.glob("memwarm-*-py3-none-any.whl")
    with tarfile.open(sdist) as archive:
        top = sdist.name.removesuffix(".tar.gz")
        shipped = {member.name.removeprefix(f"{top}/") for member in archive.getmembers() if member.isfile()}
    missing = _project_files(REPO_ROOT) - shipped
    assert not missing, f"not in the sdist: {sorted(missing)[:20]}"
    assert {"LICENSE", "Makefile", "tests/golden/MANIFEST.sha256", "toolchain/package-lock.json"} <= shipped

    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        dist_info = next(name.split("/")[0] for name in names if name.endswith(".dist-info/METADATA"))
        metadata = archive.read(f"{dist_info}/METADATA").decode()
    assert {"memwarm_cli/py.typed", f"{dist_info}/licenses/LICENSE"} <= names
    assert "License-Expression: MIT" in metadata.splitlines()
    assert not any(name.startswith(("tests/", "bench/")) for name in names)  # the wheel is the package

    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", "--quiet"]
    installed = subprocess.run([*pip, str(wheel)], capture_output=True, text=True, timeout=600)
    assert installed.returncode == 0, installed.stderr
    shutil.rmtree(source)
    version = subprocess.run(
        [str(venv / "bin" / "memwarm"), "--version"],
        cwd=elsewhere,
        env={"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (version.returncode, version.stderr) == (0, "")
    assert version.stdout.startswith("memwarm 0.1.0\nreproduces these OpenClaw releases")


# --- the documented crontab line and systemd units -------------------------------------------------


# The documented crontabs, by where they call memwarm: pipx's (README's First run, docs/install.md) and
# a venv's (README's Install, docs/install.md).
PIPX_MEMWARM = "$HOME/.local/bin/memwarm"
VENV_MEMWARM = "$HOME/.venvs/memwarm/bin/memwarm"


def _crontab(memwarm: str = PIPX_MEMWARM) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """The documented crontab calling `memwarm`: its variables, and each job as (schedule, command)."""
    (block,) = {block for block in _blocks("cron") if f'"{memwarm}"' in block}
    variables: dict[str, str] = {}
    jobs: list[tuple[str, str]] = []
    for line in block.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if re.fullmatch(r"[A-Z_]+=\S*", line):
            name, _, value = line.partition("=")
            variables[name] = value
            continue
        fields = line.split(None, 5)
        jobs.append((" ".join(fields[:5]), fields[5]))
    return variables, jobs


def test_the_crontabs_are_pipxs_and_a_venvs() -> None:
    """Every documented crontab calls one of the two memwarms tested here."""
    blocks = set(_blocks("cron"))
    assert len(blocks) == 2 and all(
        ('"' + PIPX_MEMWARM + '"' in b) != (f'"{VENV_MEMWARM}"' in b) for b in blocks
    )


def test_the_venv_path_line_finds_the_venvs_memwarm(tmp_path: Path) -> None:
    """README's `export PATH=...` line for a venv, as a login shell runs it: `memwarm` alone then runs
    the venv's."""
    (line,) = [
        line
        for line in re.findall(r"^```sh\n(.*?)^```", _section_of_readme("## Install"), flags=re.M | re.S)
        for line in line.splitlines()
        if line.startswith("export PATH=")
    ]
    home = _home_with_memwarm(tmp_path, VENV_MEMWARM)
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}
    done = subprocess.run(
        ["/bin/sh", "-c", f"{line}\ncommand -v memwarm && memwarm --version"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    found, version = done.stdout.split("\n", 1)
    assert found == str(home / ".venvs" / "memwarm" / "bin" / "memwarm") and version.startswith("memwarm ")


def _section_of_readme(heading: str) -> str:
    text = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    return text.split(f"\n{heading}\n", 1)[1].split("\n## ", 1)[0]


_CRON_FIELD = re.compile(r"(\*|\d+(-\d+)?)(/\d+)?(,(\*|\d+(-\d+)?)(/\d+)?)*")


def _home_with_memwarm(tmp_path: Path, memwarm: str = PIPX_MEMWARM) -> Path:
    """A home whose ~/.local/bin/memwarm (where pipx puts it), or the venv's, is this checkout's memwarm."""
    home = tmp_path / "home"
    link = home / memwarm.removeprefix("$HOME/")
    link.parent.mkdir(parents=True)
    link.symlink_to(MEMWARM)
    return home


@pytest.mark.parametrize("memwarm", [PIPX_MEMWARM, VENV_MEMWARM])
def test_the_crontab_is_one_valid_job(memwarm: str) -> None:
    variables, jobs = _crontab(memwarm)
    assert set(variables) == {"PATH"} and "/usr/bin" in variables["PATH"].split(":")
    ((schedule, command),) = jobs
    assert all(_CRON_FIELD.fullmatch(field) for field in schedule.split()), schedule
    words = shlex.split(command)
    assert words[0] == memwarm and words[1:] == ["init-backends", "-q"]


@pytest.mark.qmd
@pytest.mark.parametrize("memwarm", [PIPX_MEMWARM, VENV_MEMWARM])
def test_the_crontab_line_runs_as_cron_runs_it(tmp_path: Path, memwarm: str) -> None:
    """cron runs the command with /bin/sh, its own HOME and the crontab's PATH: silent when it works."""
    qmd = require_real_qmd()
    home = _home_with_memwarm(tmp_path, memwarm)
    _tiny_setup(home, qmd_command=str(qmd))  # qmd is not in /usr/local/bin here: pinned instead
    variables, [(_, command)] = _crontab(memwarm)
    env = {"HOME": str(home), "LOGNAME": "cron", "SHELL": "/bin/sh", **variables}
    done = subprocess.run(["/bin/sh", "-c", command], env=env, capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")  # nothing for cron to mail
    index = home / ".openclaw" / "agents" / "main" / "qmd" / "xdg-cache" / "qmd" / "index.sqlite"
    assert index.is_file()
    # Without the pin, cron's PATH has no qmd, and the one line cron mails says where it looked.
    (home / ".openclaw" / "openclaw.json").write_text(
        json.dumps(
            {
                "agents": {"list": [{"id": "main", "workspace": str(home / "ws")}]},
                "memory": {"backend": "qmd"},
            }
        ),
        encoding="utf-8",
    )
    failed = subprocess.run(["/bin/sh", "-c", command], env=env, capture_output=True, text=True, timeout=120)
    assert failed.returncode == 1 and failed.stdout == ""
    assert f'looked for "qmd" on PATH={variables["PATH"]}; install qmd' in failed.stderr


def _units() -> dict[str, configparser.ConfigParser]:
    """The documented systemd units by file name (each block's first line names its file)."""
    units: dict[str, configparser.ConfigParser] = {}
    for block in _blocks("ini"):
        first, _, body = block.partition("\n")
        name = first.removeprefix("# ~/.config/systemd/user/")
        parser = configparser.ConfigParser(interpolation=None, strict=True)
        parser.optionxform = str  # type: ignore[assignment,method-assign]  # systemd keys are case-sensitive
        parser.read_string(body)
        units[name] = parser
    return units


def test_the_systemd_units_are_a_oneshot_service_and_its_timer() -> None:
    units = _units()
    assert set(units) == {"memwarm-init.service", "memwarm-init.timer"}  # the timer starts its namesake
    service, timer = units["memwarm-init.service"], units["memwarm-init.timer"]
    assert service["Service"]["Type"] == "oneshot"
    assert shlex.split(service["Service"]["ExecStart"]) == ["%h/.local/bin/memwarm", "init-backends", "-q"]
    assert service["Service"]["Environment"].startswith("PATH=")
    assert timer["Timer"]["OnUnitActiveSec"] and timer["Install"]["WantedBy"] == "timers.target"


def test_systemd_accepts_the_units(tmp_path: Path) -> None:
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("no systemd-analyze on this machine")
    home = _home_with_memwarm(tmp_path)
    units = tmp_path / "units"
    units.mkdir()
    for block in _blocks("ini"):
        first, _, body = block.partition("\n")
        (units / first.removeprefix("# ~/.config/systemd/user/")).write_text(body, encoding="utf-8")
    done = subprocess.run(
        [analyze, "verify", str(units / "memwarm-init.service"), str(units / "memwarm-init.timer")],
        env={**os.environ, "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    if "Failed to initialize manager" in done.stderr:
        pytest.skip(f"systemd-analyze cannot run here: {done.stderr.strip()}")
    # It reports a unit it cannot parse (a bad Type=, a bad time span) on stderr, yet exits 0.
    assert (done.returncode, done.stderr) == (0, "")


@pytest.mark.qmd
def test_the_services_exec_start_runs_as_systemd_runs_it(tmp_path: Path) -> None:
    qmd = require_real_qmd()
    home = _home_with_memwarm(tmp_path)
    _tiny_setup(home, qmd_command=str(qmd))
    service = _units()["memwarm-init.service"]["Service"]
    name, _, value = service["Environment"].partition("=")
    argv = [word.replace("%h", str(home)) for word in shlex.split(service["ExecStart"])]
    done = subprocess.run(
        argv, env={"HOME": str(home), name: value}, capture_output=True, text=True, timeout=120
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_make_demo_shows_the_prelude_and_the_scan_before_it_installs_node_and_qmd(tmp_path: Path) -> None:
    make = shutil.which("make")
    if make is None:
        pytest.skip("no make on this machine")
    # Dry run, with the tools' stamp pointed somewhere that does not exist: as on a fresh checkout.
    plan = subprocess.run(
        [make, "-n", "demo", f"TOOLS_STAMP={tmp_path / 'never-installed'}"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.splitlines()

    def first(fragment: str) -> int:
        return next(i for i, line in enumerate(plan) if fragment in line)

    assert first(" prelude --at ") < first(" scan --all ") < first("npm ci") < first(" init-backends --probe")


SAMPLE = REPO_ROOT / "sample_workspace"


def test_the_sample_config_gives_the_same_agents_from_any_directory(run_cli: RunCli, tmp_path: Path) -> None:
    """OpenClaw resolves a relative workspace against the current directory (path.resolve), so the
    sample names its workspaces through ${MEMWARM_SAMPLE_DIR}, which `make demo` sets: the same
    existing workspaces and the same prelude from the repository root and from elsewhere."""
    config = str(SAMPLE / "openclaw.json5")
    env = {"MEMWARM_SAMPLE_DIR": str(SAMPLE)}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    runs = {}
    for cwd in (REPO_ROOT, elsewhere):
        shown = run_cli(["--config", config, "config", "show", "--json"], env=env, cwd=cwd)
        assert shown.returncode == 0, shown.stderr
        agents = {agent["agentId"]: agent for agent in json.loads(shown.stdout)["agents"]}
        assert {agent_id: agent["workspace"] for agent_id, agent in agents.items()} == {
            "main": str(SAMPLE / "workspaces" / "main"),
            "research": str(SAMPLE / "workspaces" / "research"),
        }
        assert all(agent["workspaceExists"] for agent in agents.values())
        prelude = run_cli(["--config", config, "prelude", "--at", "2026-11-28T09:30:00Z"], env=env, cwd=cwd)
        assert prelude.returncode == 0 and prelude.stderr == "", prelude.stderr
        runs[cwd] = prelude.stdout
    assert runs[REPO_ROOT] == runs[elsewhere] and "[Startup context loaded by runtime]" in runs[elsewhere]
    # Without the variable, memwarm says which one is missing, as OpenClaw does.
    unset = run_cli(["--config", config, "config", "show", "--json"], cwd=elsewhere)
    assert 'missing env var "MEMWARM_SAMPLE_DIR" at agents.defaults.workspace' in unset.stderr


def test_make_demo_names_the_sample_by_absolute_paths(tmp_path: Path) -> None:
    make = shutil.which("make")
    if make is None:
        pytest.skip("no make on this machine")
    plan = subprocess.run(
        [make, "-n", "-C", str(REPO_ROOT), "demo", f"TOOLS_STAMP={tmp_path / 'never-installed'}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    runs = [line for line in plan.splitlines() if "bin/memwarm " in line]
    assert runs and all(
        f'MEMWARM_SAMPLE_DIR="{SAMPLE}"' in line and f'--config "{SAMPLE}/openclaw.json5"' in line
        for line in runs
    )


_TOOLS_NEEDS = {
    "npm": "make tools: npm not found on PATH",
    "python3": "make tools: python3 not found on PATH: node-gyp (qmd's native modules) needs Python 3",
    "make": "make tools: make not found on PATH",
    "g++": "make tools: C++ compiler g++ not found on PATH: node-gyp (qmd's native modules) needs one",
}


@pytest.mark.parametrize("missing", list(_TOOLS_NEEDS))
def test_make_tools_names_a_missing_prerequisite_before_it_installs_anything(
    tmp_path: Path, missing: str
) -> None:
    """In a copy of the Makefile and toolchain/ (never the checkout's tools/), with a PATH that has all
    of npm, python3, make and g++ but one: one line naming it, and no tools/ made."""
    make = shutil.which("make")
    if make is None:
        pytest.skip("no make on this machine")
    project, path_dir = tmp_path / "project", tmp_path / "bin"
    project.mkdir()
    shutil.copy(REPO_ROOT / "Makefile", project / "Makefile")
    shutil.copytree(REPO_ROOT / "toolchain", project / "toolchain")
    path_dir.mkdir()
    for name in _TOOLS_NEEDS:
        found = shutil.which(name) or "/bin/true"  # only looked up here, never run
        if name != missing:
            (path_dir / name).symlink_to(found)
    done = subprocess.run(
        [make, "--no-print-directory", "tools"],
        cwd=project,
        env={"PATH": str(path_dir), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    (line,) = done.stderr.splitlines()[:1]
    assert line.startswith(_TOOLS_NEEDS[missing]), done.stderr
    assert not (project / "tools").exists()
