"""The last `init-backends` run of one agent, as `memwarm status` shows it: `<qmdDir>/memwarm-last-run.json`.

Written at the end of every run that got to work on the agent (armed, fresh, degraded, failed, an
interrupted run as failed with the signal), never by `--dry-run`, nor for a `busy` agent (the run that
holds the lock writes its own). Through state_files, like every file memwarm keeps under the state dir:
atomic, no symlink followed, validated on read (an unusable record reads as absent).

`lastSuccessAt` carries over: a failed run keeps the time of the last armed or fresh one, which
`status --max-age` and the `memwarm_last_success_timestamp_seconds` metric report.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from memwarm_cli.backends.state.state_files import StatePath
from memwarm_cli.backends.state.state_records import (
    InvalidStateFile,
    read_record,
    record_number,
    write_json_atomically,
)
from memwarm_cli.frozen_records import record, replace

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

LAST_RUN_NAME = "memwarm-last-run.json"
LAST_RUN_VERSION = 1
LAST_RUN_MAX_BYTES = 64 * 1024  # memwarm writes a few hundred bytes (a reason can quote qmd's output)
RECORDED_STATUSES = frozenset({"armed", "fresh", "degraded", "failed"})
SUCCESS_STATUSES = frozenset({"armed", "fresh"})
MAX_REASON_CHARS = 8192


@record
class LastRun:
    status: str  # armed, fresh, degraded or failed
    reason: str | None
    started_at: float  # epoch seconds
    finished_at: float
    duration_ms: int
    probe_mode: str | None = None  # the --probe search, when the run had one
    probe_latency_ms: int | None = None
    last_success_at: float | None = None  # the last armed/fresh run (this one, or an earlier one)

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reason": self.reason,
            "startedAt": self.started_at,
            "finishedAt": self.finished_at,
            "durationMs": self.duration_ms,
            "probeMode": self.probe_mode,
            "probeLatencyMs": self.probe_latency_ms,
            "lastSuccessAt": self.last_success_at,
        }


def last_run_path(state_dir: str | os.PathLike[str], qmd_dir: Path) -> StatePath:
    return StatePath.of(state_dir, qmd_dir / LAST_RUN_NAME)


def read_last_run(path: StatePath, warn: Callable[[str], None] | None = None) -> LastRun | None:
    return read_record(path, parse_last_run, max_bytes=LAST_RUN_MAX_BYTES, warn=warn)


def parse_last_run(data: Any) -> LastRun | None:
    if not isinstance(data, dict):
        raise InvalidStateFile("it is not a JSON object")
    if type(data.get("version")) is not int:
        raise InvalidStateFile("version is not an integer")
    if data["version"] != LAST_RUN_VERSION:
        return None
    status = data.get("status")
    if status not in RECORDED_STATUSES:
        raise InvalidStateFile("status is not one of armed, fresh, degraded, failed")
    reason = data.get("reason")
    if reason is not None and (not isinstance(reason, str) or len(reason) > MAX_REASON_CHARS):
        raise InvalidStateFile("reason is not a string")
    probe_mode = data.get("probeMode")
    if probe_mode not in (None, "search", "vsearch", "query"):
        raise InvalidStateFile("probeMode is not a search mode")
    return LastRun(
        status=status,
        reason=reason,
        started_at=_number(data, "startedAt"),
        finished_at=_number(data, "finishedAt"),
        duration_ms=int(_number(data, "durationMs")),
        probe_mode=probe_mode,
        probe_latency_ms=_optional_int(data, "probeLatencyMs"),
        last_success_at=_optional(data, "lastSuccessAt"),
    )


def _number(data: dict[str, Any], key: str) -> float:
    return record_number(data.get(key), key, maximum=2**53)


def _optional(data: dict[str, Any], key: str) -> float | None:
    return None if data.get(key) is None else _number(data, key)


def _optional_int(data: dict[str, Any], key: str) -> int | None:
    value = _optional(data, key)
    return None if value is None else int(value)


def write_last_run(path: StatePath, run: LastRun) -> None:
    write_json_atomically(path, {"version": LAST_RUN_VERSION, **run.to_json()})


def next_last_run(previous: LastRun | None, run: LastRun) -> LastRun:
    """`run`, its lastSuccessAt filled in: its own end when it succeeded, else the previous record's."""
    if run.status in SUCCESS_STATUSES:
        last_success: float | None = run.finished_at
    else:
        last_success = previous.last_success_at if previous is not None else None
    return replace(run, last_success_at=last_success)
