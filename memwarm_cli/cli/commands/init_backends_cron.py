"""The one line a quiet `init-backends` (`-q`, as cron runs it) writes when no agent could be warmed.

`-q` keeps stderr for failures and errors, so a run that warmed nothing and failed nowhere was silent:
every agent retired on the release, every agent skipped, no config file found anywhere, or (2026.8.1+)
the builtin index left cold because OpenClaw cannot build it here. A crontab that relies on mail then
never hears of it again. Such a run says so in one line, with what to do, and its exit code is not 0
(memwarm_cli/exitcodes.py: 6 retired, 7 nothing warmed, 1 cold). A run that warmed some agent, or whose
failures already have their own lines, adds nothing.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from memwarm_cli.textsafe import escape_text

if TYPE_CHECKING:
    from memwarm_cli.backends.builtin.builtin_init import BuiltinInitReport
    from memwarm_cli.backends.init.init_report import InitReport
    from memwarm_cli.backends.retired import RetiredBackends
    from memwarm_cli.config.paths import ConfigSource

HEAD = "init-backends: no agent could be warmed"
NAMED = 3  # agents named per reason; a roster of thousands stays one short line


def _named(ids: list[str]) -> str:
    shown = ", ".join(f'"{agent_id}"' for agent_id in ids[:NAMED])
    return shown + (f" and {len(ids) - NAMED} more" if len(ids) > NAMED else "")


def _skipped(pairs: Iterable[tuple[str, str]]) -> str:
    """`builtin: "main", "coder"; memory search disabled: "ops"`: the skipped agents by reason."""
    by_reason: dict[str, list[str]] = {}
    for agent_id, reason in pairs:
        by_reason.setdefault(reason, []).append(agent_id)
    return "; ".join(f"{reason}: {_named(ids)}" for reason, ids in by_reason.items())


def qmd_silence_line(report: InitReport, source: ConfigSource) -> str | None:
    """The line for a run on a release with qmd, or None (something warmed or failed, a plan, a signal)."""
    if report.dry_run or report.signum is not None:
        return None
    if any(a.status != "skipped" for a in report.agents):  # warmed, busy elsewhere, or a failure's line
        return None
    if not source.exists:
        return escape_text(
            f"{HEAD}: no config file found ({source.path}, {source.reason}), and OpenClaw's defaults give no "
            "agent a qmd index; name the gateway's config with --config or OPENCLAW_CONFIG_PATH"
        )
    skipped = _skipped((a.agent_id, a.reason or "skipped") for a in report.agents)
    return escape_text(
        f"{HEAD}: every agent is skipped ({skipped}); memwarm warms qmd indexes: set memory.backend to "
        '"qmd" with memory search on for the agents to warm, or remove this job'
    )


def builtin_quiet_lines(report: BuiltinInitReport) -> list[str]:
    """The lines of a quiet run on the builtin index (2026.8.1+): an index OpenClaw will not search
    (an `invalid` identity pauses search until a forced rebuild) is said whatever else the run did, as a
    failure is; a run that warmed nothing says so. None for a plan or a signal."""
    if report.dry_run or report.signum is not None:
        return []
    lines = []
    invalid = [a for a in report.agents if a.status == "invalid"]
    if invalid:
        reason = invalid[0].reason or "its identity does not match the config"
        lines.append(
            escape_text(
                f"init-backends: {len(invalid)} index{'es' if len(invalid) > 1 else ''} OpenClaw will not "
                f"search ({_named([a.agent_id for a in invalid])}): {reason}"
            )
        )
    if any(a.status not in ("cold", "skipped", "invalid") for a in report.agents):
        return lines  # something was warmed, is fine, or failed (with its own line)
    cold = [a for a in report.agents if a.status == "cold"]
    if cold:
        reason = (cold[0].reason or "not built").removeprefix("not built: ")
        lines.append(
            escape_text(f"{HEAD}: {len(cold)} cold ({_named([a.agent_id for a in cold])}): {reason}")
        )
    elif not invalid:
        skipped = _skipped((a.agent_id, a.reason or "skipped") for a in report.agents)
        lines.append(
            escape_text(
                f"{HEAD}: every agent is skipped ({skipped}); turn memory search on for the agents to warm, "
                "or remove this job"
            )
        )
    return lines


def retired_silence_line(retired: RetiredBackends) -> str:
    """Every agent retired: the release has no qmd backend and the config still sets it up."""
    keys = ", ".join(retired.refused_keys) or "memory.backend"
    return escape_text(
        f"{HEAD}: {retired.release} has no qmd backend and the config still sets it up ({keys}); "
        "`openclaw doctor --fix` moves it to the builtin index, which init-backends then builds"
    )
