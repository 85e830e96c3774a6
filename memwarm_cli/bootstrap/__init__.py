"""The workspace bootstrap context ("# Project Context") OpenClaw puts into a new session's system prompt.

Reference: ../shared/spec/bootstrap-context.md (openclaw@2026.6.35). Never imports typer or rich; never
prints or exits. `context_plan.build_bootstrap_plan` is the entry point.

Records are NamedTuples rather than frozen dataclasses, and the text rules use string scans rather than
regexes: creating a frozen dataclass costs ~0.7 ms and compiling a regex ~0.3-1 ms at every start,
and `context` must stay within 1.2x of `prelude` (bench/bench_context.py).
"""
