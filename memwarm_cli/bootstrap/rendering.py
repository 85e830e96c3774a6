"""The `# Project Context` blocks of the system prompt and the truncation notice (spec §6.3, §7).

Stable files (sorted by basename rank, so TOOLS.md follows USER.md) go into the cached block;
HEARTBEAT.md into the dynamic block after the cache boundary. Contents are sanitised for the prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from memwarm_cli.jsstring import js_trim

HEARTBEAT_PROMPT_TEXT = (
    "Default heartbeat prompt:\n"
    "`Read HEARTBEAT.md if it exists (workspace context). Follow it strictly. Do not infer or repeat old "
    "tasks from prior chats. If nothing needs attention, reply HEARTBEAT_OK.`"
)
TRUNCATION_NOTICE = (
    "[Bootstrap truncation warning]\n"
    "Some workspace bootstrap files were truncated before Project Context injection.\n"
    "Treat Project Context as partial and read the relevant files directly if details seem missing."
)
STABLE_HEADING = "# Project Context"
DYNAMIC_HEADING = "# Dynamic Project Context"
STABLE_INTRO = "The following project context files have been loaded:"
DYNAMIC_INTRO = (
    "The following frequently-changing project context files are kept below the cache boundary when possible:"
)
SOUL_LINE = "SOUL.md: persona/tone. Follow it unless higher-priority instructions override."
MEMORY_LINE = (
    "MEMORY.md: durable user preferences and behavior guidance. Keep following it throughout the session "
    "unless higher-priority instructions override."
)
BASENAME_RANK = {
    "agents.md": 10,
    "soul.md": 20,
    "identity.md": 30,
    "user.md": 40,
    "tools.md": 50,
    "bootstrap.md": 60,
    "memory.md": 70,
}
UNRANKED = 1_000  # never reached without hooks: the eight names are all ranked


class ContextFile(NamedTuple):
    path: str
    content: str


def is_bootstrap_md_path(path: str) -> bool:
    """`/(^|[\\/])BOOTSTRAP\\.md$/i` (without `u`, `i` folds ASCII letters only)."""
    name = "bootstrap.md"
    tail = path[-len(name) :]
    if not (tail.isascii() and tail.lower() == name):
        return False
    return len(path) == len(name) or path[-len(name) - 1] in "/\\"


def prompt_basename(path: str) -> str:
    return js_trim(path).replace("\\", "/").rsplit("/", 1)[-1].lower()


def is_dynamic(path: str) -> bool:
    return prompt_basename(path) == "heartbeat.md"


def sanitize_for_prompt(content: str) -> str:
    """The default heartbeat prompt removed, every run of 3 or more newlines made 2."""
    text = content.replace(HEARTBEAT_PROMPT_TEXT, "")
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text


def stable_order(files: Sequence[ContextFile]) -> list[ContextFile]:
    stable = [f for f in files if not is_dynamic(f.path)]
    return sorted(stable, key=lambda f: BASENAME_RANK.get(prompt_basename(f.path), UNRANKED))


def _block(lines: list[str], files: Sequence[ContextFile]) -> str:
    for file in files:
        lines += [f"## {file.path}", sanitize_for_prompt(file.content)]
    return "\n".join(line for line in lines if line)


class RenderedBlocks(NamedTuple):
    project_context: str | None
    dynamic_project_context: str | None


def render_blocks(visible: Sequence[ContextFile]) -> RenderedBlocks:
    """The stable and dynamic blocks for the prompt-visible context files (None when a block is empty)."""
    stable = stable_order(visible)
    dynamic = [f for f in visible if is_dynamic(f.path)]
    project = None
    if stable:
        names = {prompt_basename(f.path) for f in stable}
        lines = [
            STABLE_HEADING,
            STABLE_INTRO,
            SOUL_LINE if "soul.md" in names else "",
            MEMORY_LINE if "memory.md" in names else "",
        ]
        project = _block(lines, stable)
    dynamic_block = None
    if dynamic:
        heading = DYNAMIC_HEADING if project is not None else STABLE_HEADING
        dynamic_block = _block([heading, DYNAMIC_INTRO], dynamic)
    return RenderedBlocks(project, dynamic_block)
