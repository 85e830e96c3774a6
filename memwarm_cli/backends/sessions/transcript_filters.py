"""Which normalised message texts the release leaves out of an export (openclaw@2026.6.35).

`sanitizeSessionText` drops, after normalising: generated system wrappers and direct cron prompts (user
messages), the heartbeat prompts (user), silent replies (`NO_REPLY`, also as a JSON string or
`{"action": "NO_REPLY"}`, or after leading reasoning blocks; both roles), an assistant `HEARTBEAT_OK`,
and exec-completion events (both roles). Ported from `session-files.ts`, `heartbeat-filter.ts`,
`heartbeat.ts`, `tokens.ts` and `heartbeat-events-filter.ts`; regexes without the `u` flag, so `i` folds
ASCII only.
"""

from __future__ import annotations

import re

from memwarm_cli.backends.sessions.transcript_cleaning import MESSAGE_TOOL_DELIVERY_HINTS
from memwarm_cli.backends.sessions.transcript_json import parse_json_line
from memwarm_cli.jsstring import js_regex, js_trim, js_trim_start

GENERATED_SYSTEM_MESSAGE = js_regex(r"^System(?: \(untrusted\))?: \[[^\]]+\]\s*")
DIRECT_CRON_PROMPT = js_regex(r"^\[cron:[^\]]+\]\s*")

# --------------------------------------------------------------------------------------------------------
# Heartbeat prompts (heartbeat.ts, heartbeat-filter.ts)

HEARTBEAT_CONTEXT_PROMPT = (
    "Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old "
    "tasks from prior chats."
)
HEARTBEAT_PROMPT = f"{HEARTBEAT_CONTEXT_PROMPT} If nothing needs attention, reply HEARTBEAT_OK."
HEARTBEAT_RESPONSE_TOOL_INSTRUCTIONS = (
    "Use heartbeat_respond to report the wake outcome. Set notify=false when nothing needs the user's "
    "attention. Set notify=true with notificationText only when the user should be interrupted."
)
HEARTBEAT_RESPONSE_TOOL_PROMPT = f"{HEARTBEAT_CONTEXT_PROMPT} {HEARTBEAT_RESPONSE_TOOL_INSTRUCTIONS}"
HEARTBEAT_TRANSCRIPT_PROMPT = "[OpenClaw heartbeat poll]"
HEARTBEAT_TASK_PROMPT_PREFIX = "Run the following periodic tasks (only those due based on their intervals):"
HEARTBEAT_TASK_PROMPT_ACK = "After completing all due tasks, reply HEARTBEAT_OK."
# resolveHeartbeatPromptForResponseTool(HEARTBEAT_PROMPT): the prompt lacks the instructions, so they
# are appended after a blank line.
_HEARTBEAT_PROMPT_WITH_TOOL = f"{HEARTBEAT_PROMPT}\n\n{HEARTBEAT_RESPONSE_TOOL_INSTRUCTIONS}"


def _matches_prompt(text: str, prompt: str) -> bool:
    normalized = js_trim(prompt)
    return bool(normalized) and (text == normalized or text.startswith(f"{normalized}\n"))


def is_heartbeat_user_text(text: str) -> bool:
    """`isHeartbeatUserMessage({role: "user", content: text}, HEARTBEAT_PROMPT)`."""
    trimmed = js_trim(text)
    if not trimmed:
        return False
    if trimmed == HEARTBEAT_TRANSCRIPT_PROMPT:
        return True
    if trimmed.startswith(MESSAGE_TOOL_DELIVERY_HINTS) and trimmed.endswith(HEARTBEAT_TRANSCRIPT_PROMPT):
        return True
    if any(
        _matches_prompt(trimmed, prompt)
        for prompt in (HEARTBEAT_PROMPT, HEARTBEAT_RESPONSE_TOOL_PROMPT, _HEARTBEAT_PROMPT_WITH_TOOL)
    ):
        return True
    return trimmed.startswith(HEARTBEAT_TASK_PROMPT_PREFIX) and HEARTBEAT_TASK_PROMPT_ACK in trimmed


# --------------------------------------------------------------------------------------------------------
# Silent replies (tokens.ts), token NO_REPLY

SILENT_REPLY_TOKEN = "NO_REPLY"
_SILENT_EXACT = js_regex(r"^\s*NO_REPLY(?:\s+NO_REPLY)*\s*$", ignore_case=True)
_FINAL_SILENT_TOKEN = js_regex(r"(?:^|[\s*.])NO_REPLY\s*$", ignore_case=True)
_REASONING_TAG = r"(?:(?:antml:|mm:)?(?:think(?:ing)?|thought)|antthinking)"
_TAGGED_REASONING_PREFIX = js_regex(
    rf"^\s*<\s*{_REASONING_TAG}\b[^<>]*>[\s\S]*?<\s*\/\s*{_REASONING_TAG}\s*>\s*", ignore_case=True
)
_OPEN_REASONING_PREFIX = js_regex(rf"^\s*<\s*{_REASONING_TAG}\b[^<>]*>", ignore_case=True)
_PLAIN_REASONING_PREFIX = js_regex(
    r"^\s*(?:think(?:ing)?|thought|analysis|reasoning)\s*:?\s*\r?\n", ignore_case=True
)
_SILENT_PLACE = r"(?:\s+(?:here|for\s+now|on\s+this|in\s+this\s+(?:chat|thread|channel|conversation)))?"
_SILENT_INTENT = js_regex(
    r"^\s*(?:i|i'll|i\s+will|i'm|i\s+am|we|we'll|we\s+will|the\s+assistant|assistant|the\s+bot|bot|openclaw)"
    r"\s+(?:(?:will\s+)?(?:stay|remain|keep|be)\s+(?:quiet|silent)" + _SILENT_PLACE + r"|(?:do\s+not|don't|"
    r"dont|will\s+not|won't|would\s+not|should\s+not)\s+(?:reply|respond)" + _SILENT_PLACE + r"|(?:have|has)"
    r"\s+nothing\s+(?:to|for)\s+(?:say|add|reply|respond))(?:[.!?]+)?\s*$",
    ignore_case=True,
)
_SUBSTANTIVE_ANSWER_CUE = js_regex(
    r"\b(?:answer|here(?:'s|\s+is)|tell\s+them|you\s+(?:should|can|could|need|must)|please|try|use|send"
    r"|service\s+is|resolved|retry|yes|no,|sure)\b",
    ignore_case=True,
)
_BARE_REASONING_PLACEHOLDER = js_regex(
    r"^\s*(?:(?:internal|private)\s+)?(?:reasoning|thinking|thoughts?|analysis)(?:\s+notes?)?\s*$",
    ignore_case=True,
)
_LINE_SPLIT = re.compile(r"\r?\n")


def _is_silent_reply_text(text: str) -> bool:
    return bool(text) and _SILENT_EXACT.search(text) is not None


def _is_silent_json_string(text: str) -> bool:
    trimmed = js_trim(text)
    if not (trimmed.startswith('"') and trimmed.endswith('"') and SILENT_REPLY_TOKEN in trimmed):
        return False
    try:
        parsed = parse_json_line(trimmed)
    except (ValueError, RecursionError):
        return False
    return isinstance(parsed, str) and js_trim(parsed) == SILENT_REPLY_TOKEN


def _is_silent_envelope(text: str) -> bool:
    trimmed = js_trim(text)
    if not (trimmed.startswith("{") and trimmed.endswith("}") and SILENT_REPLY_TOKEN in trimmed):
        return False
    try:
        parsed = parse_json_line(trimmed)
    except (ValueError, RecursionError):
        return False
    if not isinstance(parsed, dict) or list(parsed) != ["action"]:
        return False
    action = parsed["action"]
    return isinstance(action, str) and js_trim(action) == SILENT_REPLY_TOKEN


def _strip_leading_reasoning_blocks(text: str) -> str:
    current = text
    while True:
        following = _TAGGED_REASONING_PREFIX.sub("", current, count=1)
        if following == current:
            return current
        current = following


def _strip_final_silent_token(text: str) -> str | None:
    stripped = js_trim(_FINAL_SILENT_TOKEN.sub("", text, count=1))
    return None if stripped == js_trim(text) else stripped


def _has_silent_intent_final_token(text: str) -> bool:
    without = _strip_final_silent_token(text)
    if without is None:
        return False
    return not without or _SILENT_INTENT.search(without) is not None


def _has_plain_reasoning_final_token(text: str) -> bool:
    without = _strip_final_silent_token(text)
    if without is None:
        return False
    if not without or _SILENT_INTENT.search(without) is not None:
        return True
    lines = [trimmed for line in _LINE_SPLIT.split(without) if (trimmed := js_trim(line))]
    final_line = lines[-1] if lines else None
    previous = "\n".join(lines[:-1])
    return bool(
        final_line
        and _SILENT_INTENT.search(final_line)
        and previous
        and not _SUBSTANTIVE_ANSWER_CUE.search(previous)
    ) or (_BARE_REASONING_PLACEHOLDER.search(without) is not None)


def _is_reasoning_prefixed_silent(text: str) -> bool:
    if not text:
        return False
    trimmed = js_trim(text)
    if not trimmed:
        return False
    without_blocks = _strip_leading_reasoning_blocks(trimmed)
    if without_blocks != trimmed:
        return _is_silent_reply_text(without_blocks) or _has_silent_intent_final_token(without_blocks)
    if _OPEN_REASONING_PREFIX.search(trimmed):
        rest = _OPEN_REASONING_PREFIX.sub("", trimmed, count=1)
        return _is_silent_reply_text(rest) or _has_plain_reasoning_final_token(rest)
    if not _PLAIN_REASONING_PREFIX.search(trimmed):
        return False
    rest = _PLAIN_REASONING_PREFIX.sub("", trimmed, count=1)
    return _is_silent_reply_text(rest) or _has_plain_reasoning_final_token(rest)


def is_silent_reply_payload(text: str) -> bool:
    """`isSilentReplyPayloadText(text, "NO_REPLY")`."""
    return (
        _is_silent_reply_text(text)
        or _is_silent_json_string(text)
        or _is_silent_envelope(text)
        or _is_reasoning_prefixed_silent(text)
    )


# --------------------------------------------------------------------------------------------------------
# Exec completion events (heartbeat-events-filter.ts)

_EXEC_FINISHED = js_regex(r"^exec finished(?::|\s*\()")
_STRUCTURED_EXEC_COMPLETION = js_regex(
    r"^exec (completed|failed) \(([a-z0-9_-]{1,64}), (code -?\d+|signal [^)]+)\)(?: :: ([\s\S]*))?$",
    ignore_case=True,
)


def is_exec_completion_event(event: str) -> bool:
    trimmed = js_trim_start(event)
    lowered = js_trim(trimmed).lower()
    return (
        _EXEC_FINISHED.search(lowered) is not None or _STRUCTURED_EXEC_COMPLETION.search(trimmed) is not None
    )


# --------------------------------------------------------------------------------------------------------
# sanitizeSessionText's filters, on the normalised text


def is_generated_cron_prompt(normalized: str, role: str) -> bool:
    return role == "user" and DIRECT_CRON_PROMPT.search(normalized) is not None


def is_left_out(normalized: str, role: str) -> bool:
    """Whether `sanitizeSessionText` returns null for this (non-empty, normalised) text."""
    if role == "user" and GENERATED_SYSTEM_MESSAGE.search(normalized):
        return True
    if is_generated_cron_prompt(normalized, role):
        return True
    if role == "user" and is_heartbeat_user_text(normalized):
        return True
    if is_silent_reply_payload(normalized):
        return True
    if role == "assistant" and normalized == "HEARTBEAT_OK":
        return True
    return is_exec_completion_event(js_trim(GENERATED_SYSTEM_MESSAGE.sub("", normalized, count=1)))
