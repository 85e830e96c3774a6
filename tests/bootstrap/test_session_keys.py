"""Session keys: the session's agent and class (main, subagent, cron, acp)."""

from __future__ import annotations

import pytest

from memwarm_cli.bootstrap.session_keys import main_session_key, parse_session_key
from memwarm_cli.profiles.releases import P0

CFG = {"agents": {"list": [{"id": "ops"}, {"id": "Main", "default": True}]}}


@pytest.mark.parametrize(
    ("key", "agent", "session_class", "primary"),
    [
        ("agent:main:main", "main", "main", True),
        ("AGENT:Ops:SubAgent:XYZ", "ops", "subagent", False),
        ("agent:ops:cron:nightly", "ops", "cron", True),
        ("cron:nightly", "main", "main", True),  # a bare cron key is not cron
        ("subagent:abc", "main", "subagent", False),
        ("acp:x", "main", "acp", False),
        ("agent:main:acp:claude-1", "main", "acp", False),
        ("  agent::ops::main  ", "ops", "main", True),  # empty pieces dropped
        ("agent:ops", "main", "main", True),  # two pieces: not agent-scoped
        ("agent: :main", "main", "main", True),  # a blank agent piece: not agent-scoped
        (None, "main", "main", True),
    ],
)
def test_parse(key: str | None, agent: str, session_class: str, primary: bool) -> None:
    session = parse_session_key(key, CFG, profile=P0)
    assert (session.agent_id, session.session_class, session.primary) == (agent, session_class, primary)


def test_default_agent_comes_from_the_config_or_is_main() -> None:
    assert parse_session_key("cron:x", {"agents": {"list": [{"id": "Ops"}]}}, profile=P0).agent_id == "ops"
    assert parse_session_key(None, None, profile=P0).agent_id == "main"
    assert main_session_key("ops") == "agent:ops:main"
