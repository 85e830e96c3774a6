"""No silent settings: every key under memory.qmd and agents.*.memorySearch has a use in one table, which
`config show` marks settings with and `init-backends` reports from."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from memwarm_cli.backends.settings.setting_use import MEMORY_SEARCH_SETTINGS, QMD_SETTINGS
from memwarm_cli.configview.schema_2026_6_35 import MEMORY_SEARCH as LAZY_MEMORY_SEARCH
from memwarm_cli.configview.schema_2026_6_35 import QMD as LAZY_QMD
from memwarm_cli.configview.schema_types import Obj
from tests.backends.support import by_agent, fake_log, install_fake_qmd, make_scenario, resolve
from tests.conftest import run_memwarm

QMD, MEMORY_SEARCH = LAZY_QMD.schema, LAZY_MEMORY_SEARCH.schema  # schema_types.LazyObj


def schema_keys(schema: Obj, prefix: str = "") -> set[str]:
    """Dotted keys of a schema: an object with known fields is walked, anything else is one key (an
    array of path objects, a record of headers, an opaque `scope`, memorySearch's whole `qmd` block)."""
    keys: set[str] = set()
    for key, child in schema.fields.items():
        if isinstance(child, Obj) and child.fields and child is not QMD:
            keys |= schema_keys(child, f"{prefix}{key}.")
        else:
            keys.add(f"{prefix}{key}")
    return keys


def test_the_table_names_exactly_the_qmd_keys_the_schema_knows() -> None:
    assert set(QMD_SETTINGS) == schema_keys(QMD)


def test_the_table_names_exactly_the_memory_search_keys_the_schema_knows() -> None:
    assert set(MEMORY_SEARCH_SETTINGS) == schema_keys(MEMORY_SEARCH)


def test_the_gateway_only_settings_include_the_timers_and_mcporter() -> None:
    gateway = {key for key, use in QMD_SETTINGS.items() if use.use == "gateway"}
    assert {"update.interval", "update.debounceMs", "update.waitForBootSync", "mcporter.enabled"} <= gateway
    assert all(use.note for use in QMD_SETTINGS.values() if use.use == "gateway")
    assert QMD_SETTINGS["sessions.enabled"].use == "memwarm"
    assert MEMORY_SEARCH_SETTINGS["provider"].use == "builtin"
    assert QMD_SETTINGS["limits.timeoutMs"].use == "search"


def test_configured_settings_and_which_differ_from_the_gateway() -> None:
    cfg: dict[str, Any] = {
        "memory": {
            "backend": "qmd",
            "qmd": {
                "searchMode": "search",
                "update": {"interval": "10m", "onBoot": True, "debounceMs": None},
                "mcporter": {"enabled": True},
            },
        },
        "agents": {
            "defaults": {"memorySearch": {"provider": "openai", "query": {"hybrid": {"enabled": False}}}}
        },
    }
    settings = resolve(cfg)
    paths = {s.path: s for s in settings.configured}
    assert set(paths) == {
        "memory.qmd.searchMode",
        "memory.qmd.update.interval",
        "memory.qmd.update.onBoot",
        "memory.qmd.mcporter.enabled",
        "agents.defaults.memorySearch.provider",
        "agents.defaults.memorySearch.query.hybrid.enabled",
    }  # a null value counts as not set
    differing = [s.path for s in settings.settings_differing_from_gateway]
    assert differing == ["memory.qmd.update.interval", "memory.qmd.mcporter.enabled"]
    # 6.35: update.startup "off" by default, no qmd at boot; the first use updates (onBoot).
    assert (settings.gateway_updates_on_boot, settings.gateway_updates_at_first_use) == (False, True)
    cfg["memory"]["qmd"]["update"]["onBoot"] = False
    settings = resolve(cfg)
    assert "memory.qmd.update.onBoot" in [s.path for s in settings.settings_differing_from_gateway]
    assert (settings.gateway_updates_on_boot, settings.gateway_updates_at_first_use) == (False, False)
    cfg["memory"]["qmd"]["update"] = {"startup": "immediate"}
    settings = resolve(cfg)
    assert settings.gateway_updates_on_boot is True
    assert "memory.qmd.update.startup" in [s.path for s in settings.settings_differing_from_gateway]


def test_the_notes_say_what_the_release_does_at_boot() -> None:
    assert (
        'startup "off" (the default) OpenClaw 2026.6.35 runs no qmd at boot'
        in QMD_SETTINGS["update.startup"].note
    )
    assert "later gateways" not in " ".join(use.note for use in QMD_SETTINGS.values())
    assert QMD_SETTINGS["rerank"].use == "search" and QMD_SETTINGS["searchTool"].use == "gateway"


def test_extra_collections_are_a_memory_search_setting() -> None:
    entry = {"id": "main", "memorySearch": {"qmd": {"extraCollections": [{"path": "/x"}]}}}
    cfg = {"memory": {"backend": "qmd"}, "agents": {"list": [entry]}}
    settings = resolve(cfg, entry=entry)
    assert [(s.path, s.use) for s in settings.configured] == [
        ("agents.list[0].memorySearch.qmd.extraCollections", "memwarm")
    ]
    assert settings.settings_differing_from_gateway == ()


def test_init_backends_reports_what_it_does_not_reproduce_once_per_run(tmp_path: Path) -> None:
    qmd = {"update": {"interval": "10m", "onBoot": False}, "limits": {"timeoutMs": 9000}}
    scenario = make_scenario(tmp_path, {"main": {"memory/a.md": "a"}, "ops": {"memory/b.md": "b"}}, {})
    scenario.config["memory"] = {"backend": "qmd", "qmd": qmd}
    scenario.write_config()
    state = install_fake_qmd(tmp_path / "fakebin")
    scenario.path_dirs = [tmp_path / "fakebin"]
    env = {"FAKE_QMD_DIR": str(state)}
    result, report = scenario.run_json(extra_env=env)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    interval = 'not reproduced by memwarm: memory.qmd.update.interval ("10m"): the gateway updates the index'
    on_boot = (
        "not reproduced by memwarm: memory.qmd.update.onBoot (false): when false the gateway's qmd manager"
    )
    assert [line for line in lines if line.startswith("not reproduced")] == [
        next(line for line in lines if line.startswith(interval)),
        next(line for line in lines if line.startswith(on_boot)),
    ]  # once per run, for both agents; the search-time limit is not reported
    for agent in by_agent(report).values():
        assert agent["gatewayUpdatesOnBoot"] is False
        assert [s["path"] for s in agent["notReproduced"]] == [
            "memory.qmd.update.interval",
            "memory.qmd.update.onBoot",
        ]
    # The gateway would leave the index alone at boot; memwarm, the only boot-time warmer, updates it.
    assert fake_log(state).count("update") == 2
    quiet = scenario.run(["-q"], extra_env=env)
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_config_show_marks_every_setting(tmp_path: Path) -> None:
    cfg = tmp_path / "openclaw.json"
    config = {
        "memory": {"backend": "qmd", "qmd": {"update": {"debounceMs": 100}, "sessions": {"enabled": True}}},
        "agents": {"list": [{"id": "main", "workspace": str(tmp_path), "memorySearch": {"model": "m"}}]},
    }
    cfg.write_text(json.dumps(config), encoding="utf-8")
    result = run_memwarm(["--config", str(cfg), "config", "show", "--json"], {"HOME": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    # Only this config's keys, per agent: the use of every key (83 lines, the same for every config)
    # is docs/init-backends.md's, not repeated in each output (schema 2).
    assert "settingsUse" not in data and data["schema"] == 2
    yaml_text = run_memwarm(["--config", str(cfg), "config", "show"], {"HOME": str(tmp_path)}).stdout
    assert "settingsUse" not in yaml_text and "memory.qmd.update.debounceMs" in yaml_text
    (agent,) = data["agents"]
    marks = {s["path"]: (s["use"], s["differsFromGateway"]) for s in agent["configuredSettings"]}
    assert marks == {
        "memory.qmd.update.debounceMs": ("gateway", True),
        "memory.qmd.sessions.enabled": ("memwarm", False),
        "agents.list[0].memorySearch.model": ("builtin", False),
    }
    assert (agent["gatewayUpdatesOnBoot"], agent["gatewayUpdatesAtFirstUse"]) == (False, True)
    assert agent["qmd"]["collections"][-1]["name"] == "sessions-main"
