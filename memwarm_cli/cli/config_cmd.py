"""`memwarm config path | check | show`: what OpenClaw will do with this config, before it does it."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from memwarm_cli.cli.global_options import global_options

config_app = typer.Typer(
    name="config",
    help="Find, check and show the OpenClaw config.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON.")]


@config_app.command("path")
def path_command(ctx: typer.Context, json_output: JsonFlag = False) -> None:
    """Which config file is used and why, the state dir, each agent's workspace and qmd index path."""
    from memwarm_cli.cli.output import json_text, write_stdout
    from memwarm_cli.config import load_config
    from memwarm_cli.configview.path_view import path_data

    # Everything is computed before the first byte is written: an error exit leaves stdout empty (the
    # error line on stderr names the file and why it was chosen).
    data = path_data(load_config(global_options(ctx).config_path))
    if json_output:
        write_stdout(json_text(data) + "\n")
        return
    cfg = data["config"]
    lines = [
        f"config:     {cfg['path']} ({cfg['reason']}; {_exists(cfg['exists'])})",
        f"state dir:  {data['stateDir']['path']} ({data['stateDir']['reason']})",
    ]
    for agent in data["agents"]:
        marker = " (default)" if agent["default"] else ""
        lines.append(f"agent {agent['id']}{marker}")
        lines.append(f"  workspace:  {agent['workspace']} ({_exists(agent['workspaceExists'])})")
        lines.append(f"  backend:    {agent['backend']}")
        lines.append(f"  qmd index:  {agent['qmdIndex']}")
    write_stdout("\n".join(lines) + "\n")


def _exists(flag: bool) -> str:
    return "exists" if flag else "missing"


@config_app.command("check")
def check_command(
    ctx: typer.Context,
    strict: Annotated[
        bool, typer.Option("--strict", help="Warnings count as errors for the exit code.")
    ] = False,
    json_output: JsonFlag = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary on stderr.")] = False,
) -> None:
    """Report every error and warning as <file>:<line>:<col>: <severity>: <path>: <message>.

    Exit 0 without errors (warnings allowed), 1 with errors (with --strict, warnings too), 3 when the
    file cannot be read or parsed.
    """
    from memwarm_cli.cli.output import json_text, note, write_stdout
    from memwarm_cli.configview.check import check_config
    from memwarm_cli.exitcodes import ExitCode

    report = check_config(global_options(ctx).config_path)
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
            write_stdout("".join(f.format() + "\n" for f in report.findings))
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


@config_app.command("show")
def show_command(
    ctx: typer.Context,
    agent: Annotated[
        str | None, typer.Option("--agent", "-a", metavar="ID", help="Only this agent (default: all agents).")
    ] = None,
    output_format: Annotated[
        str | None,
        typer.Option("--format", "-f", metavar="json|yaml|toml", help="Output format (default yaml)."),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Same as --format json.")] = False,
) -> None:
    """The effective, resolved settings per agent: workspace, time zone, startup limits, memory, qmd."""
    from memwarm_cli.cli.output import write_stdout
    from memwarm_cli.config import load_config
    from memwarm_cli.configview.show_view import show_data
    from memwarm_cli.errors import UsageError

    fmt = "yaml" if output_format is None else output_format.strip().lower()
    if fmt not in ("json", "yaml", "toml"):
        raise UsageError(f"--format must be json, yaml or toml, not {output_format!r}")
    if json_output:
        if output_format is not None and fmt != "json":
            raise UsageError("--json and --format exclude each other")
        fmt = "json"
    loaded = load_config(global_options(ctx).config_path)
    data = show_data(loaded, agent)
    write_stdout(render(data, fmt))


def render(data: dict[str, Any], fmt: str) -> str:
    if fmt == "json":
        from memwarm_cli.cli.output import json_text

        return json_text(data) + "\n"
    if fmt == "yaml":
        import yaml

        return yaml.safe_dump(
            data, sort_keys=False, allow_unicode=True, default_flow_style=False, width=1_000_000
        )
    import tomli_w

    from memwarm_cli.configview.show_view import drop_nulls

    return tomli_w.dumps(drop_nulls(data))
