"""`init-backends`: its per-agent steps, the orchestrator and the report."""
