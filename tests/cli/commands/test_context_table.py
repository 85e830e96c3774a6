"""`context`'s table on an 80-column terminal (a real process on a pseudo-terminal): a bootstrap file is
one line (the limit's source is the summary's, not a second line of the row), and a hidden file's own
failure comes first in its status."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len

from tests.conftest import REPO_ROOT, isolated_env, run_in_terminal, strip_ansi

AT = "2026-11-28T09:30:00Z"


def _screen(home: Path, config: Path, extra: dict[str, str] | None = None) -> list[str]:
    env = isolated_env(home, extra)
    screen = run_in_terminal(["--config", str(config), "context", "--at", AT, "--format", "table"], env, 80)
    return strip_ansi(screen).replace("\r\n", "\n").splitlines()


def test_each_bootstrap_file_is_one_row_line_at_80_columns(home_dir: Path) -> None:
    sample = REPO_ROOT / "sample_workspace"
    lines = _screen(home_dir, sample / "openclaw.json5", {"MEMWARM_SAMPLE_DIR": str(sample)})
    assert all(cell_len(line) <= 80 for line in lines), lines
    rows = [line for line in lines if line.startswith("│")]
    for name in ("SOUL.md", "TOOLS.md", "IDENTITY.md", "USER.md", "HEARTBEAT.md", "MEMORY.md"):
        (row,) = [line for line in rows if f"│ {name} " in line]
        at = rows.index(row)
        # The next table line is another file's (or the section rule), not this row's second line.
        assert rows[at + 1].split("│")[1].strip(), (name, rows[at : at + 2])
        assert "included" in row and "2000" in row
    table = "\n".join(rows)
    assert "defaults" not in table and "built-in" not in table and "config" not in table
    summary = " ".join(lines[lines.index(next(line for line in lines if line.startswith("└"))) :])
    assert "per file 2000 (defaults)" in summary and "per note 1200 (maxFileChars, config)" in summary


def test_a_missing_hidden_bootstrap_md_says_missing_first(home_dir: Path, tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / "memory").mkdir(parents=True)
    (workspace / "AGENTS.md").write_text("# Agents\n", encoding="utf-8")
    config = tmp_path / "openclaw.json"
    config.write_text(
        f'{{"agents": {{"list": [{{"id": "main", "workspace": "{workspace}"}}]}}}}', encoding="utf-8"
    )
    lines = _screen(home_dir, config)
    assert all(cell_len(line) <= 80 for line in lines), lines
    text = " ".join(" ".join(lines).split())
    assert (
        "missing; hidden from the prompt (bootstrap mode none), yet its marker counts against the budget"
        in text
    ), text
    assert "budget still spent (missing)" not in text
