"""Cutting one file: truncateUtf16Safe, clampToBudget, trimBootstrapContent and the AGENTS.md digest."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memwarm_cli.bootstrap.agents_digest import policy_digest
from memwarm_cli.bootstrap.trimming import trim_bootstrap_content
from memwarm_cli.jsstring import clamp_to_budget, js_length, truncate_utf16_safe
from memwarm_cli.profiles.releases import P0

GRIN = "\U0001f600"  # two UTF-16 units: \ud83d \ude00


def test_truncate_never_splits_a_pair_it_can_keep_whole() -> None:
    assert truncate_utf16_safe("ab" + GRIN, 3) == "ab"  # cutting at 3 would split the pair: one fewer
    assert truncate_utf16_safe("ab" + GRIN, 4) == "ab" + GRIN
    assert truncate_utf16_safe("ab" + GRIN + "c", 4) == "ab" + GRIN
    assert truncate_utf16_safe("abc", 0) == ""
    assert truncate_utf16_safe("abc", -5) == ""


def test_clamp_to_budget_small_budgets_cut_bare_larger_ones_end_in_an_ellipsis() -> None:
    text = "[MISSING] Expected at: /ws/SOUL.md"
    assert clamp_to_budget(text, 0) == ""
    assert clamp_to_budget(text, 3) == "[MI"
    assert clamp_to_budget(text, 4) == "[MI\u2026"
    assert clamp_to_budget(text, js_length(text)) == text
    assert clamp_to_budget("ab" + GRIN + "c", 3) == "ab"  # 3 would split the emoji: bare cut at 2


def test_trim_end_uses_the_js_set() -> None:
    # U+0085, U+180E and U+200B are not JS whitespace; U+FEFF and U+3000 are.
    for kept in ("\u0085", "\u180e", "\u200b"):
        assert trim_bootstrap_content("x" + kept, "SOUL.md", 100, profile=P0).text == "x" + kept
    trimmed = trim_bootstrap_content("  x \ufeff\u3000\n\t", "SOUL.md", 100, profile=P0)
    assert trimmed.text == "  x" and trimmed.raw_chars == 3 and not trimmed.cut


def test_exactly_at_the_limit_is_not_cut() -> None:
    assert not trim_bootstrap_content("y" * 150, "SOUL.md", 150, profile=P0).cut
    assert trim_bootstrap_content("y" * 151, "SOUL.md", 150, profile=P0).cut


def test_full_marker_keeps_three_quarters_head_one_quarter_tail() -> None:
    text = "h" * 300 + "t" * 300
    trimmed = trim_bootstrap_content(text, "SOUL.md", 200, profile=P0)
    assert trimmed.style == "full"
    assert js_length(trimmed.text) <= 200
    assert trimmed.text.startswith(
        "h" * trimmed.head + "\n\n[...truncated, read SOUL.md for full content...]\n"
    )
    assert trimmed.text.endswith("chars of 600)\u2026\n\n" + "t" * trimmed.tail)
    assert trimmed.head == 3 * trimmed.tail or trimmed.head == 3 * trimmed.tail + 1
    assert f"kept {trimmed.head}+{trimmed.tail} chars of 600" in trimmed.text


def test_tiny_limits_give_a_prefix_of_the_compact_marker() -> None:
    text = "z" * 100
    assert trim_bootstrap_content(text, "TOOLS.md", 1, profile=P0).text == "["
    assert trim_bootstrap_content(text, "TOOLS.md", 7, profile=P0).text == "[\u2026trunc"
    compact = trim_bootstrap_content(text, "TOOLS.md", 40, profile=P0)
    assert compact.style == "compact" and compact.text.startswith("z" * compact.head + "[\u2026truncated ")


def test_head_and_tail_cuts_can_leave_lone_surrogates() -> None:
    text = GRIN * 100
    trimmed = trim_bootstrap_content(text, "USER.md", 101, profile=P0)
    units = trimmed.text.encode("utf-16-le", "surrogatepass")
    assert len(units) // 2 <= 101
    # The head is a raw slice: an odd head length ends in a lone high surrogate before the marker.
    head = trimmed.text.split("[", 1)[0]
    assert js_length(head) == trimmed.head
    if trimmed.head % 2:
        assert head.endswith("\ud83d")


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["a", " ", "\n", "- ", "#", "\u00e9", GRIN, "must", "\r\n"]), max_size=300).map(
        "".join
    ),
    st.integers(min_value=1, max_value=500),
    st.sampled_from(["AGENTS.md", "SOUL.md", "agents.md"]),
)
def test_a_cut_never_exceeds_its_limit(text: str, limit: int, name: str) -> None:
    trimmed = trim_bootstrap_content(text, name, limit, profile=P0)
    assert js_length(trimmed.text) <= limit
    assert trimmed.cut == (trimmed.raw_chars > limit)


def test_agents_md_keeps_a_policy_digest_with_high_priority_lines_first() -> None:
    lines = [f"filler line {i} about the weather" for i in range(60)]
    lines[10] = "- run the test suite before you push"  # a policy word (test, push), rule-shaped
    lines[40] = "You must never commit secrets."  # high-priority words
    text = "\n".join(lines)
    trimmed = trim_bootstrap_content(text, "AGENTS.md", 300, profile=P0)
    assert trimmed.style == "digest" and js_length(trimmed.text) <= 300
    assert "[Policy digest from AGENTS.md]" in trimmed.text
    assert "You must never commit secrets." in trimmed.text
    digest = policy_digest(text, 60)
    assert digest.text == "You must never commit secrets." and digest.omitted == 1  # high priority first


def test_digest_keywords_fold_like_javascript_iu() -> None:
    # ſ (U+017F) matches s and the Kelvin sign matches k; dotted/dotless i do not match i.
    assert policy_digest("you muſt go", 100).text == "you muſt go"
    assert policy_digest("ask the \u212aey owner", 100).text == "ask the \u212aey owner"
    assert policy_digest("n\u0130ver", 100).text == ""
    assert policy_digest("n\u0131ver", 100).text == ""
    # Word boundaries: "pr" alone counts, inside a word it does not; ſ is a word character under /iu.
    assert policy_digest("open a pr today", 100).omitted == 0
    assert policy_digest("the product", 100).text == ""
    assert policy_digest("ſmust", 100).text == ""


def test_digest_normalises_whitespace_and_caps_long_lines() -> None:
    digest = policy_digest("  -   never\t\tdo   this  ", 100)
    assert digest.text == "- never do this"
    long_line = "must " + "x" * 400
    capped = policy_digest(long_line, 1000).text
    assert js_length(capped) == 240 and capped.endswith("\u2026")
    assert policy_digest("must", 0) == ("", 0)


def test_bootstrap_md_path_and_prompt_sanitising() -> None:
    from memwarm_cli.bootstrap.rendering import (
        HEARTBEAT_PROMPT_TEXT,
        is_bootstrap_md_path,
        sanitize_for_prompt,
    )

    assert is_bootstrap_md_path("/ws/BOOTSTRAP.md") and is_bootstrap_md_path("C:\\ws\\bootstrap.MD")
    assert is_bootstrap_md_path("BOOTSTRAP.md")
    assert not is_bootstrap_md_path("/ws/XBOOTSTRAP.md") and not is_bootstrap_md_path("/ws/BOOTſTRAP.md")
    assert sanitize_for_prompt("a\n\n\n\n\nb\r\n\r\n\r\nc", profile=P0) == "a\n\nb\r\n\r\n\r\nc"
    assert sanitize_for_prompt(f"x\n{HEARTBEAT_PROMPT_TEXT}\n\ny", profile=P0) == "x\n\ny"
