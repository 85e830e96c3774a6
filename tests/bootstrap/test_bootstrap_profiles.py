"""The bootstrap Project Context by release group, on what the golden cases do not cover: session keys,
unreadable entries, memory eligibility, the USER.md cap, the legacy setup state, the P3 digest.
Expected values are the releases' own outputs (research versions.md §B and its probes)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.bootstrap.context_plan import BootstrapPlan, BootstrapStatus, build_bootstrap_plan
from memwarm_cli.bootstrap.session_keys import MALFORMED_KEY, SessionKeyError, parse_session_key
from memwarm_cli.bootstrap.trimming import trim_bootstrap_content
from memwarm_cli.bootstrap.workspace_state import LegacyWorkspaceStateError, check_legacy_state
from memwarm_cli.exitcodes import ExitCode
from memwarm_cli.profiles.releases import P0, P1, P2, P3, Profile


def write(ws: Path, name: str, text: str | bytes) -> Path:
    path = ws / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode("utf-8") if isinstance(text, str) else text)
    return path


def shown(plan: BootstrapPlan) -> dict[str, str]:
    """name -> injected content, for the files in the plan's context."""
    by_path = {f.path: f.content for f in plan.context_files}
    return {f.name: by_path[f.path] for f in plan.files if f.path in by_path}


# ---- session keys ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("key", "p0", "p1", "p3"),
    [
        ("agent::main:x", ("main", True), ("main", False), None),
        ("agent:main::x", ("main", True), ("main", False), None),
        ("agent:ops:x::y", ("ops", True), ("ops", True), ("ops", True)),
        ("agent:main", ("main", False), ("main", False), None),
        ("AGENT:Ops:cron:nightly", ("ops", True), ("ops", True), ("ops", True)),
    ],
)
def test_agent_keys_split_by_release(
    key: str, p0: tuple[str, bool], p1: tuple[str, bool], p3: tuple[str, bool] | None
) -> None:
    cfg = {"agents": {"list": [{"id": "main"}, {"id": "ops"}]}}
    for profile, want in ((P0, p0), (P1, p1), (P2, p3), (P3, p3)):
        if want is None:
            with pytest.raises(SessionKeyError, match="Malformed agent session key") as raised:
                parse_session_key(key, cfg, profile=profile)
            assert raised.value.reason == MALFORMED_KEY and raised.value.exit_code == ExitCode.USAGE
            continue
        session = parse_session_key(key, cfg, profile=profile)
        assert (session.agent_id, session.agent_scoped) == want, profile.name


def test_a_key_naming_no_agent_needs_an_owner_from_2026_8() -> None:
    two: dict[str, Any] = {"agents": {"entries": {"a": {}, "b": {}}}}
    with pytest.raises(SessionKeyError, match="no explicit owner"):
        parse_session_key("cron-job", two, profile=P3)
    assert parse_session_key("cron-job", {"agents": {"entries": {"solo": {}}}}, profile=P3).agent_id == "solo"
    marked = {"agents": {"list": [{"id": "a"}, {"id": "b", "default": True}]}}
    assert parse_session_key("x", marked, profile=P3).agent_id == "b"
    assert parse_session_key("x", None, profile=P3).agent_id == "main"


@pytest.mark.parametrize(
    ("key", "group"),
    [
        ("agent:main:discord:group:123", True),
        ("agent:main:telegram:channel:42", True),
        ("group:abc", True),
        ("agent:main:whatsapp:123@g.us", True),
        ("discord:acct:guild-1:channel-2", True),
        ("agent:main:main", False),
        ("agent:main:direct:7", False),
    ],
)
def test_group_and_channel_chats_drop_memory_md_from_2026_8(tmp_path: Path, key: str, group: bool) -> None:
    write(tmp_path, "MEMORY.md", "facts")
    write(tmp_path, "AGENTS.md", "rules")
    names = {f.name for f in build_bootstrap_plan(tmp_path, {}, key, profile=P3).files}
    assert ("MEMORY.md" not in names) is group
    assert "MEMORY.md" in {f.name for f in build_bootstrap_plan(tmp_path, {}, key, profile=P0).files}


# ---- reading: [MISSING] and [UNREADABLE: reason] --------------------------------------------------


def test_present_files_that_cannot_be_read_are_unreadable_entries_from_2026_8(tmp_path: Path) -> None:
    write(tmp_path, "AGENTS.md", b"A" * (2 * 1024 * 1024 + 1))
    os.mkfifo(tmp_path / "SOUL.md")
    write(tmp_path, "notes/id.md", "identity")
    (tmp_path / "IDENTITY.md").symlink_to("notes/id.md")
    write(tmp_path, "u2.md", "hard user")
    os.link(tmp_path / "u2.md", tmp_path / "USER.md")
    plan = build_bootstrap_plan(tmp_path, {}, None, profile=P3)
    assert shown(plan) == {
        "AGENTS.md": "[UNREADABLE: File exceeds 2097152 bytes]",
        "SOUL.md": "[UNREADABLE: path does not have the required file type]",
        "IDENTITY.md": "[UNREADABLE: symlink path component not allowed]",
        "USER.md": "[UNREADABLE: path must not be hardlinked]",
        "BOOTSTRAP.md": f"[MISSING] Expected at: {tmp_path}/BOOTSTRAP.md",
    }
    rows = {row.file.name: row for row in plan.rows}
    assert rows["IDENTITY.md"].status is BootstrapStatus.SYMLINK_REFUSED
    assert rows["SOUL.md"].status_text == "not a regular file ([UNREADABLE] entry injected)"
    assert rows["SOUL.md"].detail == "path does not have the required file type"
    assert not any(f.missing for f in plan.files if f.name != "BOOTSTRAP.md")
    # 2026.7.35 and earlier: every one of them is missing, and the link inside the workspace is read.
    p1 = build_bootstrap_plan(tmp_path, {}, None, profile=P1)
    assert shown(p1)["IDENTITY.md"] == "identity"
    assert shown(p1)["SOUL.md"] == f"[MISSING] Expected at: {tmp_path}/SOUL.md"


def test_absent_user_md_and_memory_md_give_no_entry_from_2026_8(tmp_path: Path) -> None:
    names = [f.name for f in build_bootstrap_plan(tmp_path, {}, None, profile=P3).files]
    assert names == ["AGENTS.md", "SOUL.md", "IDENTITY.md", "BOOTSTRAP.md"]
    p0 = [f.name for f in build_bootstrap_plan(tmp_path, {}, None, profile=P0).files]
    assert p0 == [
        "AGENTS.md",
        "SOUL.md",
        "TOOLS.md",
        "IDENTITY.md",
        "USER.md",
        "HEARTBEAT.md",
        "BOOTSTRAP.md",
    ]


# ---- memory eligibility ---------------------------------------------------------------------------


def _memory_link(ws: Path, target: str, content: str = "facts") -> None:
    write(ws, target, content)
    (ws / "MEMORY.md").symlink_to(target)


@pytest.mark.parametrize(
    ("target", "p1", "p3"),
    [
        ("memory/notes.md", "facts", "[UNREADABLE: symlink path component not allowed]"),
        ("USER.md", "facts", "[UNREADABLE: symlink path component not allowed]"),
        ("memory/dreaming/x.md", None, None),  # dreaming files are never automatic context
        ("notes/long-term.md", None, None),  # not a memory file of the workspace
    ],
)
def test_memory_md_links_by_release(tmp_path: Path, target: str, p1: str | None, p3: str | None) -> None:
    _memory_link(tmp_path, target)
    assert shown(build_bootstrap_plan(tmp_path, {}, None, profile=P0))["MEMORY.md"] == "facts"
    for profile, want in ((P1, p1), (P3, p3)):
        plan = build_bootstrap_plan(tmp_path, {}, None, profile=profile)
        assert shown(plan).get("MEMORY.md") == want, profile.name
        if want is None:
            row = next(r for r in plan.rows if r.file.name == "MEMORY.md")
            assert row.status is BootstrapStatus.MEMORY_INELIGIBLE
            assert plan.blocks.project_context is not None and "MEMORY.md:" not in plan.blocks.project_context


@pytest.mark.parametrize(
    "cfg", [None, {"plugins": {"enabled": False}}, {"plugins": {"slots": {"memory": " NONE "}}}]
)
def test_without_a_config_or_a_memory_plugin_nothing_is_dropped(
    tmp_path: Path, cfg: dict[str, Any] | None
) -> None:
    _memory_link(tmp_path, "notes/x.md")
    plan = build_bootstrap_plan(tmp_path, cfg, None, profile=P3)
    assert shown(plan)["MEMORY.md"] == "[UNREADABLE: symlink path component not allowed]"


def test_a_memory_md_directory_is_eligible_and_unreadable(tmp_path: Path) -> None:
    (tmp_path / "MEMORY.md").mkdir()
    plan = build_bootstrap_plan(tmp_path, {}, None, profile=P3)
    assert shown(plan)["MEMORY.md"] == "[UNREADABLE: path does not have the required file type]"


# ---- the USER.md cap, the truncation notice, the P3 digest ----------------------------------------


@pytest.mark.parametrize(
    ("max_chars", "injected", "cause"), [(None, 3999, "USER.md cap"), (3000, 2999, "per-file")]
)
def test_user_md_is_capped_at_4000_from_2026_8(
    tmp_path: Path, max_chars: int | None, injected: int, cause: str
) -> None:
    write(tmp_path, "USER.md", "u" * 5000)
    cfg = {} if max_chars is None else {"agents": {"defaults": {"bootstrapMaxChars": max_chars}}}
    plan = build_bootstrap_plan(tmp_path, cfg, None, profile=P3)
    (stat,) = [s for s in plan.injected if s.name == "USER.md"]
    assert (stat.raw_chars, stat.injected_chars, stat.truncated) == (5000, injected, True)
    (row,) = [r for r in plan.rows if r.file.name == "USER.md"]
    assert row.placement is not None and row.placement.limit_cause == cause
    assert plan.truncation_notice is not None
    p0 = build_bootstrap_plan(tmp_path, cfg, None, profile=P0)
    assert [s.injected_chars for s in p0.injected if s.name == "USER.md"] == [
        5000 if max_chars is None else 2999
    ]


def test_the_truncation_notice_setting_is_retired_from_2026_8(tmp_path: Path) -> None:
    write(tmp_path, "SOUL.md", "s" * 200)
    cfg = {"agents": {"defaults": {"bootstrapMaxChars": 100, "bootstrapPromptTruncationWarning": "off"}}}
    assert build_bootstrap_plan(tmp_path, cfg, None, profile=P1).truncation_notice is None
    assert build_bootstrap_plan(tmp_path, cfg, None, profile=P2).truncation_notice is not None


DIGEST_AGENTS = (
    "intro prose line\n- bullet after prose\n```test\ncode must\n```\n禁止 提交 秘密\n必須 測試\n"
    "一律 紅線 here\nplain 🔴 stop\nprose two\n\n- bullet after blank\n" + "x" * 600
)


def test_the_p3_digest_keeps_prose_and_knows_the_chinese_words() -> None:
    p3 = trim_bootstrap_content(DIGEST_AGENTS, "AGENTS.md", 300, profile=P3).text
    assert p3 == (
        "intro prose line\n- bullet after pro\n[...truncated, read AGENTS.md for full content...]\n"
        "[Policy digest from AGENTS.md]\nintro prose line\n- bullet after prose\ncode must\n禁止 提交 秘密\n"
        "必須 測試\n一律 紅線 here\nplain 🔴 stop\n[...1 more policy lines omitted...]\n"
        "…(truncated AGENTS.md: kept 35+policy 87+0 chars of 732)…"
    )
    p2 = trim_bootstrap_content(DIGEST_AGENTS, "AGENTS.md", 300, profile=P2).text
    assert p2 == (
        "intro prose line\n- bullet after prose\n```test\ncode must\n```\n禁止 提交 秘密\n必須 測試\n"
        "一律 紅線 here\nplain 🔴 stop\n[...truncated, read AGENTS.md for full content...]\n"
        "[Policy digest from AGENTS.md]\n- bullet after prose\n```test\ncode must\n- bullet after blank\n"
        "…(truncated AGENTS.md: kept 99+policy 59+0 chars of 732)…"
    )


@pytest.mark.parametrize(("profile", "cut"), [(P0, True), (P1, False), (P3, False)])
def test_head_and_tail_cuts_keep_pairs_whole_from_p1(profile: Profile, cut: bool) -> None:
    text = trim_bootstrap_content("😀" * 120, "SOUL.md", 101, profile=profile).text
    assert ("\ud83d[…truncated 59+19/240]\ude00" in text) is cut
    assert "[…truncated 59+19/240]" in text  # the marker counts the units asked for


def test_p3_renders_the_user_line_and_no_dynamic_block(tmp_path: Path) -> None:
    write(tmp_path, "USER.md", "prefers tea")
    write(tmp_path, "HEARTBEAT.md", "check mail")
    write(tmp_path, "MEMORY.md", "# Facts\n- keep\n- only acme <!-- project: acme -->")
    p3 = build_bootstrap_plan(tmp_path, {}, None, profile=P3)
    assert p3.blocks.dynamic_project_context is None
    assert p3.blocks.project_context is not None
    lines = p3.blocks.project_context.split("\n")
    assert lines[1:5] == [
        "Loaded project context:",
        "SOUL.md: persona/tone. Follow it unless higher-priority instructions override.",  # its marker
        "MEMORY.md: durable non-profile facts and decisions; use when relevant unless higher-priority "
        "instructions override.",
        "USER.md: durable user preferences and profile directives; follow unless higher-priority "
        "instructions override.",
    ]
    # The project-annotated entry leaves the prompt only: the context file keeps it.
    assert "only acme" not in p3.blocks.project_context
    assert any("only acme" in f.content for f in p3.context_files)
    p0 = build_bootstrap_plan(tmp_path, {}, None, profile=P0)
    assert p0.blocks.dynamic_project_context is not None and "only acme" in (p0.blocks.project_context or "")


# ---- legacy workspace setup state (2026.8.1+) -----------------------------------------------------


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp_path / "home"), "OPENCLAW_STATE_DIR": str(tmp_path / "state"), **extra}


@pytest.mark.parametrize(
    "make",
    [
        lambda ws: write(ws, "openclaw-workspace-state.json", "{}"),
        lambda ws: write(ws, ".openclaw/workspace-state.json", "{}"),
        lambda ws: (ws / "openclaw-workspace-state.json").mkdir(),  # presence, not content
        lambda ws: write(ws, ".openclaw", "a file: ENOTDIR below it counts"),
        lambda ws: write(ws, "openclaw-workspace-state.json.doctor-importing", "{}"),
        lambda ws: (ws / "openclaw-workspace-state.json").symlink_to("nowhere"),
    ],
    ids=["state-file", "legacy-file", "directory", "dot-openclaw-file", "doctor-claim", "dangling-link"],
)
def test_legacy_setup_state_fails_the_session(tmp_path: Path, make: object) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    make(ws)  # type: ignore[operator]
    with pytest.raises(LegacyWorkspaceStateError) as raised:
        build_bootstrap_plan(ws, {}, None, profile=P3, env=_env(tmp_path), version="2026.9.6")
    err = raised.value
    assert (
        err.message == f"Legacy workspace setup state requires migration for {ws}; run openclaw doctor --fix."
    )
    assert (err.error_name, err.error_code, err.exit_code) == (
        "StartupMaintenanceRequiredError",
        "gateway.maintenance_required",
        ExitCode.FINDINGS,
    )
    assert build_bootstrap_plan(ws, {}, None, profile=P1, env=_env(tmp_path)) is not None  # read, as before


def test_attestations_and_the_error_class_per_release(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    env = _env(tmp_path)
    check_legacy_state(str(ws), env, "Error")  # nothing there
    key = hashlib.sha256(str(ws).encode()).hexdigest()
    write(tmp_path / "state" / "workspace-attestations", f"{key}.attested", "x")
    with pytest.raises(LegacyWorkspaceStateError) as raised:
        build_bootstrap_plan(ws, {}, None, profile=P2, env=env, version="2026.8.2")
    assert (raised.value.error_name, raised.value.error_code) == ("Error", None)
    (tmp_path / "state" / "workspace-attestations" / f"{key}.attested").unlink()
    # A sibling <workspace>.attested counts only when it carries the attestation header.
    sibling = write(tmp_path, "ws.attested", "not ours")
    check_legacy_state(str(ws), env, "Error")
    sibling.write_bytes(b"openclaw-workspace-attestation:v1\nrest")
    with pytest.raises(LegacyWorkspaceStateError):
        check_legacy_state(str(ws), env, "Error")


@pytest.mark.parametrize(
    ("extra", "command"),
    [
        ({"OPENCLAW_PROFILE": "dev"}, "openclaw --profile dev doctor --fix"),
        ({"OPENCLAW_PROFILE": "default"}, "openclaw doctor --fix"),
        (
            {"OPENCLAW_CONTAINER_HINT": "box1", "OPENCLAW_PROFILE": "dev"},
            "openclaw --container box1 doctor --fix",
        ),
        ({"OPENCLAW_PROFILE": "bad name"}, "openclaw doctor --fix"),
    ],
)
def test_the_doctor_command_names_the_profile_or_container(
    tmp_path: Path, extra: dict[str, str], command: str
) -> None:
    ws = tmp_path / "ws"
    write(ws, "openclaw-workspace-state.json", "{}")
    with pytest.raises(LegacyWorkspaceStateError, match=f"; run {command}\\.$"):
        build_bootstrap_plan(ws, {}, None, profile=P3, env=_env(tmp_path, **extra))
