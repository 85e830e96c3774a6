"""The workspace bootstrap context ("# Project Context") OpenClaw puts into a new session's system prompt.

Reference: ../shared/spec/bootstrap-context.md (openclaw@2026.6.35). Never imports typer or rich; never
prints or exits. `context_plan.build_bootstrap_plan` is the entry point.
"""
