"""`--format` and `--json`, read the same way by every command that has them (Typer-free: the context fast
path uses it too): `--json` is `--format json`; with another `--format` it is a usage error."""

from __future__ import annotations

from collections.abc import Sequence


def chosen_format(json_output: bool, output_format: str | None, formats: Sequence[str]) -> str | None:
    """`json`, the `--format` given, or None when neither was given (the command picks its default)."""
    from memwarm_cli.errors import UsageError

    if json_output and output_format not in (None, "json"):
        raise UsageError("--json and --format exclude each other")
    if output_format is not None and output_format not in formats:
        raise UsageError(f'--format must be one of {", ".join(formats)}, not "{output_format}"')
    return "json" if json_output else output_format
