"""Home, user paths, state dir and config discovery (config.md §6.1, §6.2)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memwarm_cli.config import resolve_config_source, resolve_home_dir, resolve_state_dir, resolve_user_path
from memwarm_cli.errors import ConfigError


def test_home_order(home_dir: Path, tmp_path: Path) -> None:
    assert resolve_home_dir({"HOME": str(home_dir)}) == str(home_dir)
    assert resolve_home_dir({"HOME": "  ", "USERPROFILE": str(home_dir)}) == str(home_dir)
    assert resolve_home_dir({"HOME": str(home_dir), "OPENCLAW_HOME": str(tmp_path / "oc")}) == str(
        tmp_path / "oc"
    )
    assert resolve_home_dir({"HOME": str(home_dir), "OPENCLAW_HOME": "~/alt"}) == str(home_dir / "alt")
    assert resolve_home_dir({"HOME": str(home_dir), "OPENCLAW_HOME": "~"}) == str(home_dir)
    assert resolve_home_dir({"HOME": str(home_dir), "OPENCLAW_HOME": " undefined "}) == str(home_dir)
    assert resolve_home_dir({"HOME": str(home_dir) + "/x/../"}) == str(home_dir)


def test_home_falls_back_to_the_os_home() -> None:
    import pwd

    assert resolve_home_dir({}) == pwd.getpwuid(os.getuid()).pw_dir


def test_resolve_user_path(home_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"HOME": str(home_dir)}
    monkeypatch.chdir(tmp_path)
    assert resolve_user_path("", env) is None
    assert resolve_user_path("  \ufeff ", env) is None
    assert resolve_user_path("~", env) == str(home_dir)
    assert resolve_user_path(" ~/a/b/ ", env) == str(home_dir / "a" / "b")
    assert resolve_user_path("~user/x", env) == str(tmp_path / "~user" / "x")
    assert resolve_user_path("rel/./x/../y", env) == str(tmp_path / "rel" / "y")
    assert resolve_user_path("//abs//x", env) == "/abs/x"
    assert resolve_user_path("/a/\0b", env) == "/a/b"


def test_state_dir(home_dir: Path, tmp_path: Path) -> None:
    env = {"HOME": str(home_dir)}
    assert resolve_state_dir(env) == str(home_dir / ".openclaw")
    (home_dir / ".moltbot").mkdir()
    assert resolve_state_dir(env) == str(home_dir / ".moltbot")
    (home_dir / ".clawdbot").mkdir()
    assert resolve_state_dir(env) == str(home_dir / ".clawdbot")
    (home_dir / ".openclaw").mkdir()
    assert resolve_state_dir(env) == str(home_dir / ".openclaw")
    assert resolve_state_dir({**env, "CLAWDBOT_STATE_DIR": "~/legacy"}) == str(home_dir / "legacy")
    both = {**env, "OPENCLAW_STATE_DIR": " ~/s ", "CLAWDBOT_STATE_DIR": "x"}
    assert resolve_state_dir(both) == str(home_dir / "s")
    # Only the CLI's --profile flag moves the state dir; the OPENCLAW_PROFILE variable does not.
    (home_dir / ".openclaw-work").mkdir()
    assert resolve_state_dir({**env, "OPENCLAW_PROFILE": "work"}) == str(home_dir / ".openclaw")


def test_config_flag_first(home_dir: Path, tmp_path: Path) -> None:
    env = {"HOME": str(home_dir), "OPENCLAW_CONFIG_PATH": str(tmp_path / "env.json")}
    src = resolve_config_source("~/my.json5", env)
    expected = (str(home_dir / "my.json5"), "--config", False, True)
    assert (src.path, src.reason, src.exists, src.explicit) == expected
    with pytest.raises(ConfigError):
        resolve_config_source("  ", env)


def test_openclaw_config_path(home_dir: Path, tmp_path: Path) -> None:
    cfg = tmp_path / "env.json"
    cfg.write_text("{}")
    src = resolve_config_source(None, {"HOME": str(home_dir), "OPENCLAW_CONFIG_PATH": f" {cfg} "})
    assert (src.path, src.reason, src.exists, src.explicit) == (str(cfg), "OPENCLAW_CONFIG_PATH", True, True)


def test_default_missing(home_dir: Path) -> None:
    src = resolve_config_source(None, {"HOME": str(home_dir)})
    assert src.path == str(home_dir / ".openclaw" / "openclaw.json")
    assert (src.reason, src.exists, src.explicit) == ("default", False, False)


def test_default_existing(home_dir: Path) -> None:
    (home_dir / ".openclaw").mkdir()
    (home_dir / ".openclaw" / "openclaw.json").write_text("{}")
    src = resolve_config_source(None, {"HOME": str(home_dir)})
    assert (src.path, src.reason, src.exists) == (
        str(home_dir / ".openclaw" / "openclaw.json"),
        "default",
        True,
    )


def test_legacy_name_in_state_dir(home_dir: Path) -> None:
    (home_dir / ".openclaw").mkdir()
    (home_dir / ".openclaw" / "clawdbot.json").write_text("{}")
    src = resolve_config_source(None, {"HOME": str(home_dir)})
    assert src.path == str(home_dir / ".openclaw" / "clawdbot.json")
    assert "legacy name clawdbot.json" in src.reason and not src.explicit


def test_legacy_state_dir(home_dir: Path) -> None:
    (home_dir / ".clawdbot").mkdir()
    (home_dir / ".clawdbot" / "moltbot.json").write_text("{}")
    src = resolve_config_source(None, {"HOME": str(home_dir)})
    assert src.path == str(home_dir / ".clawdbot" / "moltbot.json")
    assert src.reason.startswith("legacy state dir")


def test_legacy_dir_scanned_when_the_state_dir_has_no_config(home_dir: Path) -> None:
    (home_dir / ".openclaw").mkdir()
    (home_dir / ".moldbot").mkdir()
    (home_dir / ".moldbot" / "moldbot.json").write_text("{}")
    src = resolve_config_source(None, {"HOME": str(home_dir)})
    assert src.path == str(home_dir / ".moldbot" / "moldbot.json") and src.exists
    assert src.reason == "legacy location ~/.moldbot/moldbot.json"


def test_state_dir_env(home_dir: Path, tmp_path: Path) -> None:
    state = tmp_path / "state"
    (home_dir / ".openclaw").mkdir()
    (home_dir / ".openclaw" / "openclaw.json").write_text("{}")
    src = resolve_config_source(None, {"HOME": str(home_dir), "OPENCLAW_STATE_DIR": str(state)})
    # OPENCLAW_STATE_DIR pins the file to that directory even when it does not exist.
    assert (src.path, src.exists, src.explicit) == (str(state / "openclaw.json"), False, False)
    assert src.reason == "state dir (OPENCLAW_STATE_DIR)"
    state.mkdir()
    (state / "openclaw.json").write_text("{}")
    src = resolve_config_source(None, {"HOME": str(home_dir), "OPENCLAW_STATE_DIR": str(state)})
    assert (src.path, src.exists) == (str(state / "openclaw.json"), True)


def test_clawdbot_state_dir_pins_the_config(home_dir: Path, tmp_path: Path) -> None:
    state = tmp_path / "legacy-state"
    (home_dir / ".openclaw").mkdir()
    (home_dir / ".openclaw" / "openclaw.json").write_text("{}")
    env = {"HOME": str(home_dir), "CLAWDBOT_STATE_DIR": str(state)}
    # Not the default state dir: the config is stateDir/openclaw.json even when missing (§6.2 step 5).
    src = resolve_config_source(None, env)
    assert (src.path, src.exists, src.explicit) == (str(state / "openclaw.json"), False, False)
    assert src.reason == "state dir (CLAWDBOT_STATE_DIR)"
    state.mkdir()
    (state / "clawdbot.json").write_text("{}")
    src = resolve_config_source(None, env)
    assert (src.path, src.exists) == (str(state / "clawdbot.json"), True)
    # Naming the default state dir: its candidates, then the legacy locations, are scanned (step 4).
    (home_dir / ".openclaw" / "openclaw.json").unlink()
    (home_dir / ".clawdbot").mkdir()
    (home_dir / ".clawdbot" / "clawdbot.json").write_text("{}")
    src = resolve_config_source(None, {"HOME": str(home_dir), "CLAWDBOT_STATE_DIR": "~/.openclaw"})
    assert (src.path, src.exists) == (str(home_dir / ".clawdbot" / "clawdbot.json"), True)


def test_profile_moves_neither_state_dir_nor_config(home_dir: Path) -> None:
    (home_dir / ".openclaw-work").mkdir()
    (home_dir / ".openclaw-work" / "openclaw.json").write_text("{}")
    src = resolve_config_source(None, {"HOME": str(home_dir), "OPENCLAW_PROFILE": "work"})
    assert (src.path, src.reason, src.exists) == (
        str(home_dir / ".openclaw" / "openclaw.json"),
        "default",
        False,
    )
    (home_dir / ".openclaw").mkdir()
    (home_dir / ".openclaw" / "openclaw.json").write_text("{}")
    src = resolve_config_source(None, {"HOME": str(home_dir), "OPENCLAW_PROFILE": "work"})
    assert (src.path, src.reason, src.exists) == (
        str(home_dir / ".openclaw" / "openclaw.json"),
        "default",
        True,
    )


def test_clawdbot_config_path(home_dir: Path, tmp_path: Path) -> None:
    legacy = tmp_path / "legacy.json"
    legacy.write_text("{}")
    src = resolve_config_source(None, {"HOME": str(home_dir), "CLAWDBOT_CONFIG_PATH": str(legacy)})
    assert (src.path, src.reason, src.exists, src.explicit) == (
        str(legacy),
        "CLAWDBOT_CONFIG_PATH",
        True,
        False,
    )
