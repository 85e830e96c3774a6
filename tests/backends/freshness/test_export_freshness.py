"""The session export part of the freshness judgement: it plans the export as the export step would, with
the cache the last pass wrote (export_cache.py), so transcripts that the cache vouches for are not
rendered again, and anything the cache does not vouch for is."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memwarm_cli.backends.freshness.export_check import FreshnessJob, export_cache_path
from memwarm_cli.backends.freshness.freshness import judge
from memwarm_cli.backends.sessions import session_export, transcript_text
from memwarm_cli.backends.sessions.export_cache import cache_json
from memwarm_cli.backends.sessions.session_export import apply_session_export, plan_session_export
from memwarm_cli.backends.settings.agent_backend import resolve_agent_backend
from memwarm_cli.backends.state.state_records import write_json_atomically
from memwarm_cli.cancel import Cancelled, CancelToken
from memwarm_cli.profiles.releases import P0
from tests.backends.session_export_support import NOW_MS, record
from tests.backends.support import NOTES, real_qmd_scenario

HOUR_MS = 3_600_000


class Agent:
    """Agent "main" with the export on, three transcripts, nothing indexed (no qmd runs here)."""

    def __init__(self, tmp_path: Path) -> None:
        base = Path(os.path.realpath(tmp_path))
        self.workspace, self.state = base / "ws", base / "state"
        (self.workspace / "memory").mkdir(parents=True)
        (self.workspace / "MEMORY.md").write_text("# M\n")
        config = {"memory": {"backend": "qmd", "qmd": {"sessions": {"enabled": True}}}}
        settings = resolve_agent_backend(config, "main", None, self.workspace, self.state, {}, profile=P0)
        assert settings.qmd is not None and settings.qmd.sessions.enabled
        self.qmd, self.paths = settings.qmd, settings.paths
        self.sessions = settings.qmd.sessions
        self.sessions.sessions_dir.mkdir(parents=True)
        for name in ("a", "b", "c"):
            self.transcript(f"{name}.jsonl", f"hello from {name}")

    def transcript(self, name: str, text: str) -> None:
        path = self.sessions.sessions_dir / name
        path.write_text(record(text), encoding="utf-8")
        os.utime(path, ns=((NOW_MS - HOUR_MS) * 1_000_000,) * 2)

    def export(self) -> None:
        """One export pass as init-backends makes it, its cache written where the step keeps it."""
        cache_path = export_cache_path(self.state, self.qmd, self.paths.qmd_dir)
        assert cache_path is not None
        plan = plan_session_export(
            self.sessions.sessions_dir,
            self.sessions.export_dir,
            retention_days=None,
            now_ms=NOW_MS,
            agent_qmd_dir=self.paths.qmd_dir,
        )
        result = apply_session_export(plan)
        assert result.cache is not None and len(result.cache) == 3
        write_json_atomically(cache_path, cache_json(result.cache, str(self.sessions.export_dir)))

    def job(self, *, with_cache: bool = True) -> FreshnessJob:
        cache = export_cache_path(self.state, self.qmd, self.paths.qmd_dir) if with_cache else None
        return FreshnessJob(self.qmd, self.paths.index_path, self.workspace, NOW_MS, export_cache=cache)


def export_reasons(job: FreshnessJob) -> list[str]:
    return [r.text for r in judge(job).freshness.reasons if r.kind == "export"]


@pytest.fixture
def renders(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The transcripts rendered (session_export's render_transcript, counted)."""
    rendered: list[str] = []
    real = transcript_text.render_transcript  # what session_export calls, by its own name

    def counted(stream: Any, writer: Any, **kwargs: Any) -> Any:
        rendered.append(getattr(stream, "name", "?"))
        return real(stream, writer, **kwargs)

    monkeypatch.setattr(session_export, "render_transcript", counted)
    return rendered


def test_a_no_change_check_renders_no_transcript_the_cache_vouches_for(
    tmp_path: Path, renders: list[str]
) -> None:
    agent = Agent(tmp_path)
    agent.export()
    renders.clear()
    assert export_reasons(agent.job()) == []
    assert renders == []  # all three transcripts and their exports are as the last pass left them
    # Without the cache the same judgement renders each transcript again, and finds the same.
    assert export_reasons(agent.job(with_cache=False)) == []
    assert len(renders) == 3


def test_what_the_cache_does_not_vouch_for_is_rendered_and_judged(tmp_path: Path, renders: list[str]) -> None:
    agent = Agent(tmp_path)
    agent.export()
    renders.clear()
    agent.transcript("b.jsonl", "hello again from b")  # a new size, a new mtime: not the cached one
    reasons = export_reasons(agent.job())
    assert len(renders) == 1
    assert reasons == ["the session export has work: 1 to write (b.md)"]
    renders.clear()
    agent.export()
    renders.clear()
    exported = agent.sessions.export_dir / "a.md"
    exported.write_text("edited by hand\n")  # the export's identity is not the cached one: compared
    assert export_reasons(agent.job()) == ["the session export has work: 1 to write (a.md)"]
    assert renders == []  # its transcript is unchanged: the cached digest is what it would render


@pytest.mark.qmd
@pytest.mark.parametrize("command", [["status"], ["init-backends", "--dry-run"]])
def test_a_run_that_exports_nothing_never_loads_the_transcript_reader(
    tmp_path: Path, command: list[str]
) -> None:
    """Its redaction rules compile some 200 regexes on import, a tenth of a second of every no-change
    init-backends run when the export cache imported it (search_probe -> session_export_files)."""
    scenario = real_qmd_scenario(tmp_path, {"main": NOTES}, {"memory": {"backend": "qmd"}})
    code = (
        "import sys; sys.argv = ['memwarm', *sys.argv[1:]]\n"
        "from memwarm_cli.cli.console import main\n"
        "try:\n    main()\n"
        "finally:\n"
        "    print('memwarm_cli.backends.sessions.transcript_text' in sys.modules, file=sys.stderr)"
    )
    argv = [sys.executable, "-c", code, *command]
    proc = subprocess.run(argv, env=scenario.env(), capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr and proc.returncode in (0, 1, 4), proc.stderr  # status: no index
    assert proc.stderr.splitlines()[-1] == "False", proc.stderr


# ---- issue 31, class 4: the export check stops on a signal and counts against --timeout ------------------

BIG_MESSAGE = "the quick brown fox jumps over the lazy dog token=abc123 " * (15 * 1024 * 1024 // 58)


class _CountingToken(CancelToken):
    """A token cancelled (as by SIGTERM) at its `cancel_at`-th check: the checks counted."""

    def __init__(self, cancel_at: int) -> None:
        super().__init__()
        self.checks = 0
        self.cancel_at = cancel_at

    def check(self) -> None:
        self.checks += 1
        if self.checks == self.cancel_at:
            self.signum = signal.SIGTERM
        super().check()


def test_a_signal_stops_the_export_check_within_a_slice_of_a_15_mib_message(tmp_path: Path) -> None:
    # Before: the check rendered the whole message (11 s from SIGTERM to the exit); the token was asked
    # only between collections, 3 times here.
    agent = Agent(tmp_path)
    agent.transcript("big.jsonl", BIG_MESSAGE)
    token = _CountingToken(cancel_at=20)
    with pytest.raises(Cancelled):
        judge(agent.job(with_cache=False), token)
    assert token.checks == 20  # the first check after the signal raised: nothing more was read


def test_the_export_check_runs_out_of_the_timeout_and_says_so(tmp_path: Path) -> None:
    # 1 ms: no machine renders 15 MiB in it. Before, the check had no deadline: it rendered the message
    # whole, and the export step then ran out of --timeout on it again (--timeout 5 fired after 18.7 s).
    agent = Agent(tmp_path)
    agent.transcript("big.jsonl", BIG_MESSAGE)
    job = agent.job(with_cache=False)
    judged = judge(FreshnessJob(job.qmd, job.index_path, job.workspace, job.now_ms, timeout_ms=1))
    assert judged.freshness.export_check_timed_out
    assert "the session export check did not finish within --timeout (0.001 s)" in [
        reason.text for reason in judged.freshness.reasons
    ]


class _EndlessLine(io.RawIOBase):
    """A transcript line that never ends (a 20 GB sparse file without a newline reads like this):
    the bytes handed out, counted."""

    def __init__(self) -> None:
        self.served = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.served > 600 << 20:  # a guard: before, the whole stream was read
            raise AssertionError("read past 600 MiB of a line that is dropped")
        view = memoryview(buffer)
        view[:] = b"x" * len(view)
        self.served += len(view)
        return len(view)


def test_a_line_it_drops_is_read_at_most_to_the_bound() -> None:
    from memwarm_cli.backends.sessions.transcript_text import (
        MAX_DROPPED_LINE_BYTES,
        ExportWriter,
        render_transcript,
    )

    stream = _EndlessLine()
    notes = render_transcript(io.BufferedReader(stream), ExportWriter("s"), archive=False)
    assert notes.oversized_lines == (1,)
    assert stream.served <= MAX_DROPPED_LINE_BYTES + (1 << 20)  # and a buffer's worth
