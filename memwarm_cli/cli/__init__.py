"""The thin Typer layer: arguments in, core calls, rendered results out."""
