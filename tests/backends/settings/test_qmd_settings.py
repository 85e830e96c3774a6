"""The resolved qmd block (memory-backends.md §4)."""

from __future__ import annotations

import shlex

import pytest

from memwarm_cli.backends.settings.qmd_settings import shell_words, split_command
from memwarm_cli.durations import parse_duration_ms
from tests.backends.support import resolve


def test_qmd_defaults_and_collections() -> None:
    settings = resolve({"memory": {"backend": "qmd"}})
    qmd = settings.qmd
    assert qmd is not None
    assert qmd.command == "qmd"
    assert qmd.search_mode == "search"
    assert qmd.update.command_timeout_ms == 30000
    assert qmd.update.update_timeout_ms == 120000
    assert qmd.update.embed_timeout_ms == 120000
    assert qmd.update.interval_ms == 300000
    assert (qmd.update.startup, qmd.update.startup_delay_ms) == ("off", 120_000)
    assert (qmd.rerank, qmd.search_tool) == (None, None)
    assert [(c.name, str(c.path), c.pattern) for c in qmd.collections] == [
        ("memory-root-main", "/ws/main", "MEMORY.md"),
        ("memory-dir-main", "/ws/main/memory", "**/*.md"),
    ]


def test_commands_keep_their_first_token() -> None:
    assert split_command('"/opt/my qmd/qmd" --x') == "/opt/my qmd/qmd"
    assert split_command("qmd 'unclosed") == "qmd"


@pytest.mark.parametrize("raw", ["9" * 400, "9" * 305 + "d", "1" + "0" * 308 + "m"])
def test_overflowing_duration_is_a_parse_error_and_falls_back(raw: str) -> None:
    """A run of digits too large for a double must not crash (math.floor(inf) raised OverflowError)."""
    with pytest.raises(ValueError, match="too large"):
        parse_duration_ms(raw, "m")
    cfg = {"memory": {"backend": "qmd", "qmd": {"update": {"interval": raw, "embedInterval": raw}}}}
    qmd = resolve(cfg).qmd
    assert (qmd.update.interval_ms, qmd.update.embed_interval_ms) == (300_000, 3_600_000)


@pytest.mark.parametrize(
    ("limits", "expected"),
    [
        (None, (4, 450, 2200, 4000)),
        ({"maxResults": 10}, (10, 450, 2200, 4000)),
        ({"timeoutMs": 0}, (4, 450, 2200, 4000)),
        ({"maxSnippetChars": 2.7, "maxInjectedChars": 0.5}, (4, 2, 1, 4000)),
        ({"maxResults": -1, "maxSnippetChars": "9", "timeoutMs": 9000}, (4, 450, 2200, 9000)),
    ],
)
def test_limits_are_the_releases_each_key_on_its_own(limits: object, expected: tuple[int, ...]) -> None:
    """6.35's defaults (4/450/2200/4000), `resolvePositiveIntegerConfig` per key: `max(1, floor)`."""
    qmd_block = {} if limits is None else {"limits": limits}
    got = resolve({"memory": {"backend": "qmd", "qmd": qmd_block}}).qmd.limits
    assert (got.max_results, got.max_snippet_chars, got.max_injected_chars, got.timeout_ms) == expected


def test_startup_rerank_search_tool_and_retention() -> None:
    block = {
        "update": {"startup": "idle", "startupDelayMs": 5.5},
        "rerank": False,
        "searchTool": "  hybrid_search ",
        "sessions": {"enabled": True, "retentionDays": 0.5},
    }
    qmd = resolve({"memory": {"backend": "qmd", "qmd": block}}).qmd
    assert (qmd.update.startup, qmd.update.startup_delay_ms) == ("idle", 5)
    assert (qmd.rerank, qmd.search_tool) == (False, "hybrid_search")
    assert qmd.sessions.retention_days == 1  # 6.35: max(1, floor(0.5))
    assert qmd.as_dict()["update"]["startup"] == "idle" and qmd.as_dict()["rerank"] is False


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "qmd",
        "/opt/qmd/bin/qmd",
        "./tools/qmd",
        "qmd#x",
        "~/bin/qmd",
        "q$md",
        "qmd --index x",
        " qmd ",
        "qmd\t-x",
        "'my qmd' --flag",
        '"my qmd"',
        "my\\ qmd",
        "qmd\r\n",
        "\u00a0qmd",
    ],
)
def test_shell_words_split_as_shlex_does(raw: str) -> None:
    assert shell_words(raw) == shlex.split(raw)


def test_shell_words_refuses_an_unclosed_quote_as_shlex_does() -> None:
    with pytest.raises(ValueError):
        shell_words("'qmd")
