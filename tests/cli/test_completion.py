"""Shell completion: the scripts, the answers memwarm gives the shell, and bash completing for real."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from memwarm_cli.cli import completion, main
from memwarm_cli.exitcodes import ExitCode
from tests.conftest import MEMWARM, RunCli, isolated_env


def complete(run_cli: RunCli, shell: str, words: str, cword: int | str, **env: str) -> list[str]:
    result = run_cli(
        [],
        env={"_MEMWARM_COMPLETE": f"{shell}_complete", "COMP_WORDS": words, "COMP_CWORD": str(cword), **env},
    )
    assert result.returncode == ExitCode.OK and result.stderr == ""
    return result.stdout.splitlines()


def test_main_routes_the_variable_the_scripts_set() -> None:
    assert main._COMPLETE_VAR == completion.COMPLETE_VAR == "_MEMWARM_COMPLETE"
    for shell in completion.SHELLS:
        assert f"{completion.COMPLETE_VAR}={shell}_complete" in completion.completion_script(shell)


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_the_command_prints_the_script_the_variable_gives(run_cli: RunCli, shell: str) -> None:
    script = run_cli(["completion", shell])
    assert script.returncode == ExitCode.OK and script.stderr == ""
    assert script.stdout == run_cli([], env={"_MEMWARM_COMPLETE": f"{shell}_source"}).stdout
    assert "memwarm" in script.stdout


def test_an_unknown_shell_is_a_usage_error(run_cli: RunCli) -> None:
    result = run_cli(["completion", "tcsh"])
    assert result.returncode == ExitCode.USAGE and result.stdout == ""
    assert (
        result.stderr == "memwarm: error: completion: the shell must be one of bash, zsh, fish, not 'tcsh'\n"
    )


def test_bash_candidates(run_cli: RunCli, tmp_path: Path) -> None:
    assert complete(run_cli, "bash", "memwarm sc", 1) == ["plain,scan"]
    assert complete(run_cli, "bash", "memwarm config s", 2) == ["plain,show"]
    assert complete(run_cli, "bash", "memwarm scan --for", 2) == ["plain,--format"]
    assert complete(run_cli, "bash", "memwarm scan --format ", 2 + 1) == [
        "plain,table",
        "plain,plain",
        "plain,json",
    ]
    assert complete(run_cli, "bash", "memwarm context --action r", 3) == ["plain,reset"]
    assert complete(run_cli, "bash", "memwarm search --mode v", 3) == ["plain,vsearch"]
    assert complete(run_cli, "bash", "memwarm prelude -w ", 3) == ["dir,"]
    assert complete(run_cli, "bash", "memwarm prelude --config ", 3) == ["file,"]
    # The global option after the subcommand is offered there too.
    assert "plain,--config" in complete(run_cli, "bash", "memwarm status --", 2)
    # Agent ids from the config the command line names.
    config = tmp_path / "c.json5"
    config.write_text('{agents: {list: [{id: "main"}, {id: "ops"}, {id: "opsbot"}]}}', encoding="utf-8")
    assert complete(run_cli, "bash", f"memwarm -c {config} scan --agent op", 5) == [
        "plain,ops",
        "plain,opsbot",
    ]
    assert complete(run_cli, "bash", f"memwarm scan --config {config} -a ", 5) == [
        "plain,main",
        "plain,ops",
        "plain,opsbot",
    ]


def test_a_broken_command_line_or_config_completes_nothing_quietly(run_cli: RunCli, tmp_path: Path) -> None:
    config = tmp_path / "broken.json5"
    config.write_text("{agents: [", encoding="utf-8")
    assert complete(run_cli, "bash", f"memwarm -c {config} scan --agent ", 5) == []
    # An unknown command: click stays at the top level and offers its options.
    assert complete(run_cli, "bash", "memwarm nosuch --", 2) == [
        "plain,--config",
        "plain,--openclaw",
        "plain,--version",
        "plain,--help",
    ]
    # -V's callback must not print the version into the shell's candidates.
    assert complete(run_cli, "bash", "memwarm -V sc", 2) == ["plain,scan"]


def test_zsh_and_fish_answer_in_their_formats(run_cli: RunCli) -> None:
    zsh = complete(run_cli, "zsh", "memwarm prelude --ac", 2)
    assert zsh == ["plain", "--action", "Session action the gate is checked for."]
    fish = complete(run_cli, "fish", "memwarm status --format p", "p")
    assert fish == ["plain,plain", "plain,prometheus"]


def test_bash_completes_with_the_script_for_real(home_dir: Path, tmp_path: Path) -> None:
    env = isolated_env(home_dir, {"PATH": f"{Path(MEMWARM).parent}{os.pathsep}{os.environ['PATH']}"})
    config = tmp_path / "c.json"
    config.write_text(json.dumps({"agents": {"list": [{"id": "main"}, {"id": "ops"}]}}), encoding="utf-8")
    script = subprocess.run(
        [MEMWARM, "completion", "bash"], env=env, capture_output=True, text=True, check=True
    )

    def compreply(*words: str) -> list[str]:
        program = (
            f"{script.stdout}\n"
            f"COMP_WORDS=({' '.join(words)}); COMP_CWORD={len(words) - 1}\n"
            '_memwarm_completion memwarm; printf "%s\\n" "${COMPREPLY[@]}"\n'
        )
        done = subprocess.run(["bash", "--norc", "-c", program], env=env, capture_output=True, text=True)
        assert done.returncode == 0 and done.stderr == "", done.stderr
        return [line for line in done.stdout.splitlines() if line]

    assert compreply("memwarm", "init") == ["init-backends"]
    assert compreply("memwarm", "status", "--format", "p") == ["plain", "prometheus"]
    assert compreply("memwarm", "--config", str(config), "prelude", "--agent", "o") == ["ops"]
