"""`memwarm context --json`'s data: both plans as one versioned record (schema documented in the README).

`bootstrap` carries OpenClaw's own results under the golden cases' names (`files` being the injection
stats) plus memwarm's explanation (`rows`, limit sources); `prelude` and `scan` are exactly what
`prelude --json` and `scan --json` print for the same plan.
"""

from __future__ import annotations

from memwarm_cli.bootstrap.context_plan import raw_chars
from memwarm_cli.cli.commands.prelude_views import prelude_report
from memwarm_cli.cli.terminal.output import IndentedRows
from memwarm_cli.cli.terminal.view_format import JsonView
from memwarm_cli.jsstring import js_length
from memwarm_cli.session_context import CHARS_PER_TOKEN
from memwarm_cli.startup.clock import iso_utc
from memwarm_cli.startup.prelude_settings import jsonable
from memwarm_cli.startup.scan_record import FileRowText, scan_record

# typing.TYPE_CHECKING without importing typing: ~2.5 ms of `context`'s start (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, NamedTuple

    from memwarm_cli.bootstrap.context_plan import BootstrapPlan, BootstrapRow
    from memwarm_cli.bootstrap.context_settings import BootstrapLimit
    from memwarm_cli.bootstrap.workspace_state import LegacyWorkspaceStateError
    from memwarm_cli.datetime_types import tzinfo
    from memwarm_cli.profiles.choice import OpenClawChoice
    from memwarm_cli.session_context import SessionContext
    from memwarm_cli.startup.plan import StartupPlan
else:
    from memwarm_cli.named_tuples import NamedTuple

CONTEXT_SCHEMA_VERSION = 2  # 2: `agentId` (was `agent`), and so in `prelude` and `scan`


def _limit_record(limit: BootstrapLimit) -> dict[str, Any]:
    return {
        "value": limit.value,
        "origin": limit.origin,
        "configured": jsonable(limit.configured),
        "note": limit.note,
    }


def bootstrap_record(plan: BootstrapPlan) -> dict[str, Any]:
    used, total = plan.budget_used, plan.total_max_chars.value
    return {
        "sessionAgentId": plan.session.agent_id,
        "contextInjection": plan.context_injection,
        "limits": {"maxChars": plan.max_chars.value, "totalMaxChars": total},
        "limitSources": {
            "maxChars": _limit_record(plan.max_chars),
            "totalMaxChars": _limit_record(plan.total_max_chars),
        },
        "bootstrapMode": plan.bootstrap_mode,
        "setup": {
            "completed": plan.setup.completed,
            "stateFile": plan.setup.source,
            "marker": plan.setup.marker,
        },
        "heartbeat": None
        if plan.heartbeat is None
        else {"kept": plan.heartbeat.keep, "reason": plan.heartbeat.reason},
        "truncationWarning": plan.warning_mode,
        "budget": {"used": used, "max": total, "remaining": max(0, max(1, total) - used)},
        "renderedChars": plan.rendered_chars,
        "resolvedFiles": [
            {"name": f.name, "path": f.path, "missing": f.missing, "rawChars": raw_chars(f)}
            for f in plan.files
        ],
        "contextFiles": [
            {"path": f.path, "content": f.content, "chars": js_length(f.content)} for f in plan.context_files
        ],
        "files": [
            {
                "name": s.name,
                "path": s.path,
                "missing": s.missing,
                "rawChars": s.raw_chars,
                "injectedChars": s.injected_chars,
                "truncated": s.truncated,
            }
            for s in plan.injected
        ],
        "truncationNotice": plan.truncation_notice,
        "projectContext": plan.blocks.project_context,
        "dynamicProjectContext": plan.blocks.dynamic_project_context,
        "rows": [_row_record(row) for row in plan.rows],
    }


def _row_record(row: BootstrapRow) -> dict[str, Any]:
    placement = row.placement
    trimmed = row.trimmed
    return {
        "name": row.file.name,
        "path": row.file.path,
        "status": row.status.value,
        "statusText": row.status_text,
        "detail": row.detail,
        "missing": row.file.missing,
        "readFailure": None if row.file.failure is None else row.file.failure.value,
        "bytes": row.file.size,
        "rawChars": row.raw_chars,
        "budgetChars": row.budget_chars,
        "injectedChars": row.injected_chars,
        "limit": None if placement is None else placement.limit,
        "limitCause": None if placement is None else placement.limit_cause,
        "cut": None
        if trimmed is None or not trimmed.cut
        else {
            "style": trimmed.style,
            "head": trimmed.head,
            "tail": trimmed.tail,
            "digestChars": trimmed.digest_chars,
            "digestOmittedLines": trimmed.digest_omitted,
        },
        "block": row.block,
    }


def context_record(context: SessionContext) -> dict[str, Any]:
    boot_chars, prelude_chars = context.total_chars
    session = context.bootstrap.session
    grand = boot_chars + prelude_chars
    return {
        "schema": CONTEXT_SCHEMA_VERSION,
        "agentId": context.agent_id,
        "workspace": str(context.startup.workspace),
        "workspaceExists": context.startup.workspace_exists,
        "at": iso_utc(context.startup.plan.at_ms),
        "session": {"key": context.session_key, "agentId": session.agent_id, "class": session.session_class},
        "bootstrap": bootstrap_record(context.bootstrap),
        "prelude": prelude_report(context.startup, context.action, context.gate),
        "preludeSuppressedWhileBootstrapPending": context.prelude_suppressed,
        "scan": scan_record(context.startup, context.config, _indented_file_rows, gates=context.gates),
        "total": {
            "bootstrapChars": boot_chars,
            "preludeChars": prelude_chars,
            "chars": grand,
            "tokensEstimate": grand // CHARS_PER_TOKEN,
        },
    }


def _indented_file_rows(plan: StartupPlan, tz: tzinfo) -> IndentedRows:
    """`scan.files`, each row written from a template (the record's JSON view walks the data)."""
    return IndentedRows(plan.rows, FileRowText(tz))


class RefusedSession(NamedTuple):
    """The session the release fails, and the release."""

    refused: LegacyWorkspaceStateError
    openclaw: OpenClawChoice


def refused_record(result: RefusedSession) -> dict[str, Any]:
    """`context --json` when the release fails the session (2026.8.1+: legacy workspace setup state):
    its error, as `<type>: <message>` and `code` would print it; no plans."""
    refused = result.refused
    return {
        "schema": CONTEXT_SCHEMA_VERSION,
        "workspace": refused.workspace,
        "error": {
            "type": refused.error_name,
            "message": refused.release_message,
            "code": refused.error_code,
            "path": refused.blocked,
        },
        "bootstrap": None,
        "prelude": None,
    }


REFUSED_VIEW: JsonView[RefusedSession] = JsonView(refused_record)
