"""memwarm: inspect OpenClaw startup preludes and pre-warm agents' qmd memory indexes."""

__version__ = "0.1.0"
