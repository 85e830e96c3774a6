"""Memory search backends: the settings (`memory_search`, `backend_choice`, `qmd_settings`, ...) and the
qmd pre-warm run behind `init-backends` (`init_run`).

Nothing here imports typer or rich, prints, or exits: functions return frozen dataclasses or raise the
typed exceptions of `memwarm_cli.errors`.
"""
