"""`config show` and `config check` print no credential (issue 31, class 6): their output gets pasted into
bug reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memwarm_cli.configview.credentials import is_credential_key, mask_text
from tests.conftest import isolated_env, run_memwarm

SECRETS = (
    "sk-envsecretvalue123456",  # memorySearch.remote.apiKey through ${OPENAI_KEY} from <stateDir>/.env
    "sk-directsecret987654321",  # an agent's own apiKey, written in the config
    "hunter2pass",  # a password in a URL's userinfo
    "abcdefghijklmnopqrstuvwxyz",  # an Authorization header's bearer token
    "plainheaderkey123",  # an X-Api-Key header
    "cookievalue42",  # a Cookie header
    "supersecrettoken42",  # a token given in memory.qmd.command
    "pw123",  # userinfo of a path written as a URL
)


def _config(tmp_path: Path) -> dict[str, str]:
    state, workspace = tmp_path / "state", tmp_path / "ws"
    state.mkdir()
    workspace.mkdir()
    (state / ".env").write_text("OPENAI_KEY=sk-envsecretvalue123456\n", encoding="utf-8")
    remote = {
        "baseUrl": "https://user:hunter2pass@api.example.com/v1",
        "apiKey": "${OPENAI_KEY}",
        "headers": {
            "Authorization": "Bearer abcdefghijklmnopqrstuvwxyz",
            "X-Api-Key": "plainheaderkey123",
            "Cookie": "sessionid=cookievalue42",
            "X-Trace": "visible-header",
        },
    }
    config = {
        "agents": {
            "defaults": {
                "workspace": str(workspace),
                "memorySearch": {"provider": "openai", "remote": remote},
            },
            "list": [
                {
                    "id": "main",
                    "default": True,
                    "memorySearch": {"remote": {"apiKey": "sk-directsecret987654321"}},
                }
            ],
        },
        "memory": {
            "backend": "qmd",
            "qmd": {
                "command": "qmd --token supersecrettoken42",
                "paths": [{"path": "https://bob:pw123@host/x", "name": "u"}],
            },
        },
    }
    (state / "openclaw.json").write_text(json.dumps(config), encoding="utf-8")
    return isolated_env(tmp_path / "home", {"OPENCLAW_STATE_DIR": str(state)})


@pytest.mark.parametrize("fmt", ["yaml", "json", "toml"])
def test_config_show_prints_no_credential_in_any_format(tmp_path: Path, fmt: str) -> None:
    env = _config(tmp_path)
    result = run_memwarm(["config", "show", "--format", fmt], env)
    assert result.returncode == 0, result.stderr
    leaked = [secret for secret in SECRETS if secret in result.stdout + result.stderr]
    assert leaked == []
    assert "${OPENAI_KEY}" in result.stdout  # where the resolved key comes from, not what it is
    assert "(set)" in result.stdout and "visible-header" in result.stdout  # set; not a credential: kept
    assert "https://***@api.example.com/v1" in result.stdout


def test_config_show_json_says_each_credential_is_set(tmp_path: Path) -> None:
    result = run_memwarm(["config", "show", "--json"], _config(tmp_path))
    settings = {s["path"]: s["value"] for s in json.loads(result.stdout)["agents"][0]["configuredSettings"]}
    assert settings["agents.defaults.memorySearch.remote.apiKey"] == "${OPENAI_KEY}"
    assert settings["agents.list[0].memorySearch.remote.apiKey"] == "(set)"
    assert settings["agents.defaults.memorySearch.remote.headers"] == {
        "Authorization": "(set)",
        "X-Api-Key": "(set)",
        "Cookie": "(set)",
        "X-Trace": "visible-header",
    }
    assert settings["memory.qmd.command"] == "qmd --token ***"


def test_config_check_does_not_quote_a_token_given_in_the_qmd_command(tmp_path: Path) -> None:
    result = run_memwarm(["config", "check"], _config(tmp_path))
    output = result.stdout + result.stderr
    assert "supersecrettoken42" not in output
    assert '"qmd --token ***": OpenClaw runs only its first word' in output


def test_what_counts_as_a_credential() -> None:
    for key in ("apiKey", "api_key", "X-Api-Key", "Authorization", "Proxy-Authorization", "accessToken",
                "password", "client_secret", "Cookie", "x-auth-token"):  # fmt: skip
        assert is_credential_key(key), key
    for key in ("tokens", "maxTokens", "provider", "baseUrl", "model", "headers", "path"):
        assert not is_credential_key(key), key
    assert (
        mask_text("run --api-key=abc123 and --password hunter2 -v")
        == "run --api-key=*** and --password *** -v"
    )
    assert mask_text("OPENAI_API_KEY=sk-xyz qmd") == "OPENAI_API_KEY=*** qmd"
    assert mask_text("its first token is run") == "its first token is run"
    assert mask_text("/home/u/bin/qmd --index x") == "/home/u/bin/qmd --index x"
