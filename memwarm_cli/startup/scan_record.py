"""The plan as plain data: the stable `scan --json` schema (documented in the README)."""

from __future__ import annotations

from collections import Counter
from datetime import tzinfo
from typing import Any

from memwarm_cli.jsstring import js_length
from memwarm_cli.startup.clock import iso_utc, local_time
from memwarm_cli.startup.plan import FileRow, StartupPlan, Status
from memwarm_cli.startup.prelude_settings import ACTIONS, Limit, jsonable, should_apply_startup_context
from memwarm_cli.startup.session import AgentPlan
from memwarm_cli.textsafe import escape_name

SCAN_SCHEMA_VERSION = 1


def _limit(limit: Limit) -> dict[str, Any]:
    return {
        "value": limit.value,
        "source": limit.source,
        "configured": jsonable(limit.configured),
        "note": limit.note,
    }


def file_record(row: FileRow, tz: tzinfo) -> dict[str, Any]:
    return {
        "stamp": row.stamp or None,
        "clock": row.clock,
        "path": escape_name(row.relative_path),
        "label": row.label,
        "kind": row.kind,
        "status": row.status.value,
        "statusText": row.status.description,
        "detail": None if row.detail is None else escape_name(row.detail),
        "candidate": row.candidate,
        "bytes": row.size,
        "mtime": local_time(row.mtime_ms, tz),
        "chars": {
            "read": row.chars_read,
            "trimmed": row.chars_trimmed,
            "capped": row.chars_capped,
            "block": row.block_chars,
        },
        "block": row.block,
    }


def status_counts(plan: StartupPlan) -> dict[str, int]:
    counts = Counter(row.status.value for row in plan.rows)
    return {status.value: counts[status.value] for status in Status if counts[status.value]}


def scan_record(result: AgentPlan, cfg: Any) -> dict[str, Any]:
    plan = result.plan
    settings = plan.settings
    zone = settings.timezone
    prelude = plan.prelude
    max_total = settings.max_total_chars.value
    gates = {action: should_apply_startup_context(cfg, action) for action in ACTIONS}
    return {
        "schema": SCAN_SCHEMA_VERSION,
        "agent": result.agent_id,
        "workspace": str(result.workspace),
        "workspaceExists": result.workspace_exists,
        "at": iso_utc(plan.at_ms),
        "window": {
            "local": plan.local_date,
            "utc": plan.utc_date,
            "days": [{"stamp": day.stamp, "clock": day.clock} for day in plan.window],
        },
        "timezone": {
            "configured": jsonable(zone.configured),
            "used": zone.used,
            "fellBack": zone.fell_back,
            "reason": zone.reason,
        },
        "limits": {limit.name: _limit(limit) for limit in settings.limits},
        "budget": {"used": plan.budget_used, "max": max_total, "remaining": max_total - plan.budget_used},
        "gate": {action: {"applied": g.applied, "reason": g.reason} for action, g in gates.items()},
        "prelude": {
            "loaded": prelude is not None,
            "length": None if prelude is None else js_length(prelude),
            "markerEmitted": plan.marker_emitted,
        },
        "listingError": None if plan.listing_error is None else escape_name(plan.listing_error),
        "counts": status_counts(plan),
        "files": [file_record(row, zone.tz) for row in plan.rows],
    }
