"""Memory search backends: settings resolution (`settings`) and the qmd pre-warm run (`init_run`).

Nothing here imports typer or rich, prints, or exits: functions return frozen dataclasses or raise the
typed exceptions of `memwarm_cli.errors`.
"""
