"""Shell completion for bash, zsh and fish: `memwarm completion SHELL` prints the script, and the script
asks memwarm itself for the candidates (`_MEMWARM_COMPLETE=<shell>_complete`, the words in COMP_WORDS
and COMP_CWORD).

The scripts and the answer formats are click's (BSD-3-Clause), adapted: Typer's own classes read
os.environ and the process's streams, where an in-process run (cli/main.py `run`) must use its
invocation's. cli/main.py routes a completion request here before anything else, so a normal start pays
one dictionary lookup for it. Candidates: subcommands, options (with their help), the values of
options that take one of a few words (`--format`, `--action`, `--mode`, ...), the agent ids of the config
for `--agent`, and file or directory names for the options that take a path (the shell completes those).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any

import typer

from memwarm_cli.agents import resolve_agents
from memwarm_cli.cli.options import CONFIG_META_KEY, OPENCLAW_META_KEY
from memwarm_cli.cli.terminal.invocation import current
from memwarm_cli.cli.terminal.output import write_stdout
from memwarm_cli.cli.typer_private import (
    CompletionItem,
    resolve_context,
    resolve_incomplete,
    split_arg_string,
)
from memwarm_cli.errors import UsageError
from memwarm_cli.exitcodes import ExitCode  # the return annotation: Typer evaluates it
from memwarm_cli.textsafe import clip

if TYPE_CHECKING:
    from memwarm_cli.cli.typer_private import Command, Context, Parameter

COMPLETE_VAR = "_MEMWARM_COMPLETE"
SHELLS = ("bash", "zsh", "fish")
PROG_NAME = "memwarm"
_FUNCTION = "_memwarm_completion"

_BASH_SOURCE = """\
%(function)s() {
    local IFS=$'\\n'
    local response

    response=$(env COMP_WORDS="${COMP_WORDS[*]}" COMP_CWORD=$COMP_CWORD \\
%(var)s=bash_complete $1)

    for completion in $response; do
        IFS=',' read type value <<< "$completion"

        if [[ $type == 'dir' ]]; then
            COMPREPLY=()
            compopt -o dirnames
        elif [[ $type == 'file' ]]; then
            COMPREPLY=()
            compopt -o default
        elif [[ $type == 'plain' ]]; then
            COMPREPLY+=($value)
        fi
    done

    return 0
}

complete -o nosort -F %(function)s %(prog)s
"""

_ZSH_SOURCE = """\
#compdef %(prog)s

%(function)s() {
    local -a completions
    local -a completions_with_descriptions
    local -a response
    (( ! $+commands[%(prog)s] )) && return 1

    response=("${(@f)$(env COMP_WORDS="${words[*]}" COMP_CWORD=$((CURRENT-1)) \\
%(var)s=zsh_complete %(prog)s)}")

    for type key descr in ${response}; do
        if [[ "$type" == "plain" ]]; then
            if [[ "$descr" == "_" ]]; then
                completions+=("$key")
            else
                completions_with_descriptions+=("$key":"$descr")
            fi
        elif [[ "$type" == "dir" ]]; then
            _path_files -/
        elif [[ "$type" == "file" ]]; then
            _path_files -f
        fi
    done

    if [ -n "$completions_with_descriptions" ]; then
        _describe -V unsorted completions_with_descriptions -U
    fi

    if [ -n "$completions" ]; then
        compadd -U -V unsorted -a completions
    fi
}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    %(function)s "$@"
else
    compdef %(function)s %(prog)s
fi
"""

_FISH_SOURCE = """\
function %(function)s
    set -l response (env %(var)s=fish_complete COMP_WORDS=(commandline -cp) \\
COMP_CWORD=(commandline -t) %(prog)s)

    for completion in $response
        set -l metadata (string split "," $completion)

        if test $metadata[1] = "dir"
            __fish_complete_directories $metadata[2]
        else if test $metadata[1] = "file"
            __fish_complete_path $metadata[2]
        else if test $metadata[1] = "plain"
            echo $metadata[2]
        end
    end
end

complete --no-files --command %(prog)s --arguments "(%(function)s)"
"""

_SOURCES = {"bash": _BASH_SOURCE, "zsh": _ZSH_SOURCE, "fish": _FISH_SOURCE}
_CHOICES_METAVAR = re.compile(r"^<?([a-z][a-z-]*(?:\|[a-z][a-z-]*)+)>?$")  # new|reset, <table|plain|json>


def completion_script(shell: str) -> str:
    """The script that makes `shell` complete memwarm's command line."""
    return _SOURCES[shell] % {"function": _FUNCTION, "var": COMPLETE_VAR, "prog": PROG_NAME}


def complete(root: Command, instruction: str, env: Mapping[str, str]) -> tuple[str, int]:
    """Answer a completion request (`bash_complete`, ..., or `bash_source` for the script): the text
    for stdout and the exit code."""
    shell, _, action = instruction.partition("_")
    if shell not in SHELLS or action not in ("complete", "source"):
        return "", 1
    if action == "source":
        return completion_script(shell), 0
    args, incomplete = _words(shell, env)
    items = _candidates(root, args, incomplete)
    return "".join(_format(shell, item) + "\n" for item in items), 0


def _words(shell: str, env: Mapping[str, str]) -> tuple[list[str], str]:
    """The complete words after `memwarm`, and the word being completed, as the script passed them."""
    words = split_arg_string(env.get("COMP_WORDS", ""))
    if shell == "fish":
        # fish passes the command line up to the cursor, and the token under the cursor on its own.
        incomplete = env.get("COMP_CWORD", "")
        if incomplete:
            incomplete = split_arg_string(incomplete)[0]
        args = words[1:]
        if incomplete and args and args[-1] == incomplete:
            args.pop()
        return args, incomplete
    try:
        cword = int(env.get("COMP_CWORD", "0"))
    except ValueError:
        cword = len(words)
    args = words[1:cword]
    incomplete = words[cword] if 0 < cword < len(words) else ""
    return args, incomplete


def _candidates(root: Command, args: list[str], incomplete: str) -> list[CompletionItem]:
    try:
        ctx = resolve_context(root, {}, PROG_NAME, args)
        target, incomplete = resolve_incomplete(ctx, args, incomplete)
        return target.shell_complete(ctx, incomplete)
    except Exception:  # a half-typed command line must never print a traceback into the shell
        return []


def _format(shell: str, item: CompletionItem) -> str:
    value = str(item.value)
    if shell == "zsh":
        help_text = " ".join((item.help or "").split()) or "_"
        return f"{item.type}\n{value.replace(':', chr(92) + ':')}\n{help_text}"
    if shell == "fish" and item.help:
        return f"{item.type},{value}\t{' '.join(item.help.split())}"
    return f"{item.type},{value}"


def value_completer(param: Parameter) -> Any:
    """A completer for the values of `param`, or None when its type completes them already (an enum's
    choices) or nothing can be offered (an agent id, a duration)."""
    if getattr(param.type, "choices", None) is not None or not isinstance(param.metavar, str):
        return None
    if param.metavar == "ID":
        return _complete_agent
    match = _CHOICES_METAVAR.match(param.metavar)
    if match is None:
        kind = {"PATH": "file", "DIR": "dir"}.get(param.metavar)
        return _complete_kind(kind) if kind is not None else None
    choices = match.group(1).split("|")

    def complete_choice(_ctx: Context, _param: Parameter, incomplete: str) -> list[str]:
        return [choice for choice in choices if choice.startswith(incomplete)]

    return complete_choice


def _complete_kind(kind: str) -> Any:
    def complete_path(_ctx: Context, _param: Parameter, incomplete: str) -> list[CompletionItem]:
        return [CompletionItem(incomplete, type=kind)]

    return complete_path


def _complete_agent(ctx: Context, _param: Parameter, incomplete: str) -> list[str]:
    """The agent ids of the config the command line names so far (or the default one), by the rules of
    the release it names (or the environment, the installed package, the config's shape): the roster
    every command of that line would see."""
    # config.run and the release's choice (~0.7 ms): only completing an agent id loads a config, not
    # --help or the other completions
    from memwarm_cli.config.run import load_run

    try:
        run = load_run(
            ctx.meta.get(CONFIG_META_KEY),
            current().env,
            openclaw_flag=ctx.meta.get(OPENCLAW_META_KEY),
            dotenv=True,
        )
        loaded = run.loaded
        ids = [agent.id for agent in resolve_agents(loaded.data, loaded.env, profile=run.profile)]
    except Exception:  # no config, a broken one: nothing to offer, and never a traceback in the shell
        return []
    return [agent_id for agent_id in ids if agent_id.startswith(incomplete)]


def completion_command(
    shell: Annotated[str, typer.Argument(metavar="bash|zsh|fish", help="The shell to complete in.")],
) -> ExitCode:
    """Print the script that makes the shell complete memwarm's commands, options and values."""
    if shell not in SHELLS:
        raise UsageError(f"completion: the shell must be one of {', '.join(SHELLS)}, not {clip(shell)!r}")
    write_stdout(completion_script(shell))
    return ExitCode.OK
