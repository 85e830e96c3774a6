"""`memwarm config path | check | show`: what OpenClaw will do with this config, before it does it."""

from __future__ import annotations

import functools
from typing import Annotated, Any

import typer

from memwarm_cli.cli.options import (
    JsonAliasOption,
    JsonOption,
    QuietOption,
    examples,
    format_option,
    global_options,
)
from memwarm_cli.cli.terminal.invocation import current

config_app = typer.Typer(
    name="config",
    help="Find, check and show the OpenClaw config.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)
SHOW_FORMATS = ("yaml", "json", "toml")


@config_app.command(
    "path",
    short_help="Which config file is used and why; workspaces, qmd indexes.",
    epilog=examples("memwarm config path", "memwarm --config ./openclaw.json5 config path --json"),
)
def path_command(ctx: typer.Context, json_output: JsonOption = False, quiet: QuietOption = False) -> None:
    """Which config file is used and why, the state dir, each agent's workspace and qmd index path."""
    from memwarm_cli.cli.terminal.output import json_text, warn, write_lines, write_stdout
    from memwarm_cli.config import load_config
    from memwarm_cli.configview.path_view import path_data
    from memwarm_cli.textsafe import escape_text as esc

    # Everything is computed before the first byte is written: an error exit leaves stdout empty (the
    # error line on stderr names the file and why it was chosen).
    loaded = load_config(global_options(ctx).config_path, current().env, dotenv=True)
    data = path_data(loaded)
    if not quiet:
        for warning in loaded.warnings:
            warn(warning.message)
    if json_output:
        write_stdout(json_text(data) + "\n")
        return
    cfg = data["config"]
    state = data["stateDir"]
    # Paths, ids and reasons (which quote environment variables) are outside text: escaped one by one.
    lines = [
        f"config:     {esc(cfg['path'])} ({esc(cfg['reason'])}; {_exists(cfg['exists'])})",
        f"state dir:  {esc(state['path'])} ({esc(state['reason'])})",
    ]
    for agent in data["agents"]:
        marker = " (default)" if agent["default"] else ""
        lines.append(f"agent {esc(agent['id'])}{marker}")
        lines.append(f"  workspace:  {esc(agent['workspace'])} ({_exists(agent['workspaceExists'])})")
        lines.append(f"  backend:    {esc(agent['backend'])}")
        lines.append(f"  qmd index:  {esc(agent['qmdIndex'])}")
    write_lines(lines)


def _exists(flag: bool) -> str:
    return "exists" if flag else "missing"


@config_app.command(
    "check",
    short_help="Report every error and warning, at its file, line and column.",
    epilog=examples("memwarm config check --strict", "memwarm config check --json"),
)
def check_command(
    ctx: typer.Context,
    strict: Annotated[
        bool, typer.Option("--strict", help="Warnings count as errors for the exit code.")
    ] = False,
    json_output: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Report every error and warning as <file>:<line>:<col>: <severity>: <path>: <message>.

    Exit 0 without errors (warnings allowed), 1 with errors (with --strict, warnings too), 3 when the
    file cannot be read or parsed.
    """
    from memwarm_cli.cancel import Cancelled, CancelToken
    from memwarm_cli.cli.terminal.interrupts import signals_cancel
    from memwarm_cli.cli.terminal.output import json_text, note, write_lines, write_stdout
    from memwarm_cli.configview.check import check_config
    from memwarm_cli.exitcodes import ExitCode, signal_exit

    with signals_cancel(CancelToken()) as token:  # `node --version` may run: stopped before we end
        try:
            report = check_config(global_options(ctx).config_path, current().env, dotenv=True, token=token)
        except Cancelled as stop:
            raise typer.Exit(signal_exit(stop.signum)) from None
    failed = report.failed(strict)
    if json_output:
        data = {
            "config": {
                "path": str(report.source.path),
                "reason": report.source.reason,
                "exists": report.source.exists,
            },
            "errors": report.errors,
            "warnings": report.warnings,
            "strict": strict,
            "ok": not failed,
            "findings": [f.as_dict() for f in report.findings],
        }
        write_stdout(json_text(data) + "\n")
    else:
        if report.findings:
            write_lines(f.format() for f in report.findings)
        if not quiet:
            if not report.source.exists:
                note(f"no config file at {report.source.path}: OpenClaw uses its defaults")
            else:
                note(
                    f"{report.source.path}: {_count(report.errors, 'error')}, "
                    f"{_count(report.warnings, 'warning')}"
                )
    if failed:
        raise typer.Exit(int(ExitCode.FINDINGS))


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


@config_app.command(
    "show",
    short_help="The effective settings per agent, as YAML, JSON or TOML.",
    epilog=examples("memwarm config show --agent main", "memwarm config show --format toml"),
)
def show_command(
    ctx: typer.Context,
    agent: Annotated[
        str | None, typer.Option("--agent", "-a", metavar="ID", help="Only this agent (default: all agents).")
    ] = None,
    output_format: Annotated[
        str | None, format_option(SHOW_FORMATS, "yaml (the default), json or toml.")
    ] = None,
    json_output: JsonAliasOption = False,
    quiet: QuietOption = False,
) -> None:
    """The effective, resolved settings per agent: workspace, time zone, startup limits, memory, qmd."""
    from memwarm_cli.cli.terminal.invocation import load_for_command
    from memwarm_cli.cli.terminal.output import write_stdout
    from memwarm_cli.cli.terminal.view_format import chosen_format
    from memwarm_cli.configview.show_view import show_data

    fmt = chosen_format(json_output, output_format, SHOW_FORMATS) or "yaml"
    loaded = load_for_command(global_options(ctx).config_path, quiet=quiet)
    try:
        text = render(show_data(loaded, agent), fmt)
    except RecursionError:  # the writers recurse deeper per level than the reader does
        from memwarm_cli.errors import ConfigError

        raise ConfigError(
            str(loaded.source.path), f"the config is nested too deeply to write as {fmt.upper()}"
        ) from None
    write_stdout(text)


def render(data: dict[str, Any], fmt: str) -> str:
    """The data in `fmt`. Strings keep their raw text as data; the few characters textsafe's policy
    escapes are written with the format's own escapes, so the text never reaches a terminal raw."""
    if fmt == "json":
        from memwarm_cli.cli.terminal.output import json_text

        return json_text(data) + "\n"
    if fmt == "yaml":
        return _yaml_text(data)
    return _toml_text(data)


def _toml_text(data: dict[str, Any]) -> str:
    import re

    import tomli_w

    from memwarm_cli.configview.show_view import drop_nulls
    from memwarm_cli.textsafe import patterns

    def escape(match: re.Match[str]) -> str:
        code = ord(match.group())
        # A line feed is the document's own; TOML has no escape for a surrogate (written as U+FFFD).
        if code == 0x0A or 0xD800 <= code <= 0xDFFF:
            return match.group()
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"

    # tomli_w quotes every string and every key that is not bare ASCII, and never writes multi-line or
    # literal strings: any other unsafe character (tomli_w leaves tabs raw, for one) stands inside a
    # basic string, where \u is TOML's escape.
    return patterns().unsafe.sub(escape, tomli_w.dumps(drop_nulls(data)))


def _yaml_text(data: dict[str, Any]) -> str:
    """The YAML of `data`, one agent at a time.

    A top-level block mapping is the concatenation of its entries, and a block sequence under a top-level
    key is not indented: dumping the keys around `agents`, then each agent as a one-item list, gives the
    same text as one dump, with one agent's YAML nodes alive at a time (10,000 agents took 600 MB).
    """
    agents = data.get("agents")
    if not isinstance(agents, list) or not agents:
        return _yaml_dump(data)
    keys = list(data)
    split = keys.index("agents")
    head = {key: data[key] for key in keys[:split]}
    tail = {key: data[key] for key in keys[split + 1 :]}
    parts = [_yaml_dump(head)] if head else []
    parts.append("agents:\n")
    parts.extend(_yaml_dump([agent]) for agent in agents)
    if tail:
        parts.append(_yaml_dump(tail))
    return "".join(parts)


def _yaml_dump(value: Any) -> str:
    import yaml

    # Printable ASCII holds nothing the escaping policy touches, and libyaml's emitter (4x faster)
    # writes it exactly as PyYAML's does; other text (controls, astral or lone surrogate code points)
    # it quotes differently or refuses, so it goes through the policy's dumper.
    fast = yaml.__with_libyaml__ and _printable_ascii(value)
    dumper = yaml.CSafeDumper if fast else _policy_dumper()
    options: dict[str, Any] = {"sort_keys": False, "allow_unicode": True, "default_flow_style": False}
    text: str = yaml.dump(value, Dumper=dumper, width=1_000_000, **options)
    return text


@functools.cache
def _policy_dumper() -> type[Any]:
    import yaml

    from memwarm_cli.textsafe import has_unsafe

    class Dumper(yaml.SafeDumper):
        """A scalar holding a character the policy escapes is double-quoted, its non-ASCII escaped."""

        def analyze_scalar(self, scalar: str) -> Any:
            analysis = super().analyze_scalar(scalar)
            if has_unsafe(scalar):
                analysis.allow_flow_plain = analysis.allow_block_plain = False
                analysis.allow_single_quoted = analysis.allow_block = False
            return analysis

        def write_double_quoted(self, text: str, split: bool = True) -> None:
            if not has_unsafe(text):
                return super().write_double_quoted(text, split)
            self.allow_unicode = False  # PyYAML's switch for escaping everything outside ASCII
            try:
                return super().write_double_quoted(text, split)
            finally:
                self.allow_unicode = True

    return Dumper


def _printable_ascii(value: Any) -> bool:
    """Every string in `value` (keys too) is printable ASCII."""
    if isinstance(value, str):
        return value.isascii() and value.isprintable()
    if isinstance(value, dict):
        return all(_printable_ascii(k) and _printable_ascii(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_printable_ascii(v) for v in value)
    return True
