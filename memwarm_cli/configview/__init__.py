"""Judging and showing a config: `config check` (schema and findings) and the data `config path` and
`config show` print.

Above `agents`, `startup` and `backends` (it reports what they resolve); `config/` below only reads.
Never imports typer or rich; never exits.
"""
