"""OpenClaw's builtin memory index (2026.8.1 and later, profiles P2/P3): judged read-only from outside
(index_judge.py), built only through the release's own `openclaw memory index` (index_runner.py).
"""
