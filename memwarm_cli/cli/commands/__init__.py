"""Per command <cmd>.py (Typer-free work), <cmd>_cmd.py (the Typer declaration), <cmd>_<view>.py (views)."""
