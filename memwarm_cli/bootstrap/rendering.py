"""The `# Project Context` blocks of the system prompt and the truncation notice (spec §6.3, §7).

Stable files (sorted by basename rank, so TOOLS.md follows USER.md) go into the cached block;
HEARTBEAT.md into the dynamic block after the cache boundary. Contents are sanitised for the prompt.

From 2026.8.1 there is no HEARTBEAT.md and so no dynamic block; the intro and guidance lines are the
profile's (a USER.md line is added); the heartbeat prompt is removed in both its wordings, CRLF too;
and entries of MEMORY.md/USER.md annotated `<!-- project: ... -->` leave the prompt (no project is
active in a plain session), which changes the prompt only, not the context files or their budget.
"""

from __future__ import annotations

from collections.abc import Sequence

from memwarm_cli.jsstring import JS_WHITESPACE, js_trim
from memwarm_cli.profiles.releases import Profile

# typing.TYPE_CHECKING without importing typing: ~2.5 ms of `context`'s start (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import NamedTuple
else:
    from memwarm_cli.named_tuples import NamedTuple

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
DYNAMIC_INTRO = (
    "The following frequently-changing project context files are kept below the cache boundary when possible:"
)
SOUL_LINE = "SOUL.md: persona/tone. Follow it unless higher-priority instructions override."
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


HEARTBEAT_PROMPT_HEAD = "Default heartbeat prompt:"
HEARTBEAT_PROMPT_OPENINGS = (
    "Read HEARTBEAT.md if it exists",
    "Follow the heartbeat monitor scratch context when provided.",
)
HEARTBEAT_PROMPT_END = "HEARTBEAT_OK."


def _heartbeat_prompt_end(text: str, start: int) -> int | None:
    r"""Where a match of 2026.8.1's heartbeat prompt pattern starting at `start` ends, else None:
    ``Default heartbeat prompt:\r?\n`(?:<opening>)[^`\r\n]*HEARTBEAT_OK\.` ``."""
    at = start + len(HEARTBEAT_PROMPT_HEAD)
    at += 2 if text.startswith("\r\n", at) else 1 if text.startswith("\n", at) else 0
    if at == start + len(HEARTBEAT_PROMPT_HEAD) or not text.startswith("`", at):
        return None
    at += 1
    opening = next((o for o in HEARTBEAT_PROMPT_OPENINGS if text.startswith(o, at)), None)
    if opening is None:
        return None
    body = at + len(opening)
    stops = [i for i in (text.find("`", body), text.find("\r", body), text.find("\n", body)) if i != -1]
    stop = min(stops) if stops else -1
    if stop == -1 or text[stop] != "`" or not text[body:stop].endswith(HEARTBEAT_PROMPT_END):
        return None
    return stop + 1


def _strip_heartbeat_prompts(text: str) -> str:
    pieces: list[str] = []
    kept = 0
    found = text.find(HEARTBEAT_PROMPT_HEAD)
    while found != -1:
        end = _heartbeat_prompt_end(text, found)
        if end is None:
            found = text.find(HEARTBEAT_PROMPT_HEAD, found + 1)
            continue
        pieces.append(text[kept:found])
        kept = end
        found = text.find(HEARTBEAT_PROMPT_HEAD, end)
    return "".join([*pieces, text[kept:]]) if pieces else text


def sanitize_for_prompt(content: str, *, profile: Profile) -> str:
    """The default heartbeat prompt removed, every run of 3 or more newlines made 2."""
    if profile.heartbeat_prompt_pattern:
        text = _strip_heartbeat_prompts(content) if HEARTBEAT_PROMPT_HEAD in content else content
    else:
        text = content.replace(HEARTBEAT_PROMPT_TEXT, "")
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text


# ---- project-scoped curated entries (2026.8.1+, `filterProjectScopedCuratedContextFiles`) ---------


def _is_curated_path(path: str) -> bool:
    return path.replace("\\", "/").rsplit("/", 1)[-1].upper() in ("MEMORY.MD", "USER.MD")


def _starts_entry(line: str) -> bool:
    """`- ` or `#{1,6}` then whitespace or the end: a curated entry begins on this line."""
    if line.startswith("- "):
        return True
    hashes = len(line) - len(line.lstrip("#"))
    return 1 <= hashes <= 6 and (hashes == len(line) or line[hashes] in JS_WHITESPACE)


def _has_project_marker(text: str) -> bool:
    r"""`/<!--\s*project\s*:/iu`."""
    at = text.find("<!--")
    while at != -1:
        rest = text[at + 4 :].lstrip(JS_WHITESPACE)
        if rest[:7].lower() == "project" and rest[7:].lstrip(JS_WHITESPACE).startswith(":"):
            return True
        at = text.find("<!--", at + 1)
    return False


def without_project_entries(content: str) -> str:
    """The curated entries that carry no project annotation (with no active project, every annotated
    entry goes, valid or not), joined by newlines as they were split."""
    if "<!--" not in content:
        return content
    lines = content.split("\n")
    entries: list[list[str]] = [[lines[0]]]
    for line in lines[1:]:
        if _starts_entry(line):
            entries.append([line])
        else:
            entries[-1].append(line)
    kept = ["\n".join(entry) for entry in entries]
    kept = [text for text in kept if not _has_project_marker(text)]
    return "\n".join(kept)


def stable_order(files: Sequence[ContextFile], *, profile: Profile) -> list[ContextFile]:
    stable = [f for f in files if not profile.heartbeat_filter or not is_dynamic(f.path)]
    return sorted(stable, key=lambda f: BASENAME_RANK.get(prompt_basename(f.path), UNRANKED))


def _block(lines: list[str], files: Sequence[ContextFile], profile: Profile) -> str:
    for file in files:
        lines += [f"## {file.path}", sanitize_for_prompt(file.content, profile=profile)]
    return "\n".join(line for line in lines if line)


class RenderedBlocks(NamedTuple):
    project_context: str | None
    dynamic_project_context: str | None


def render_blocks(visible: Sequence[ContextFile], *, profile: Profile) -> RenderedBlocks:
    """The stable and dynamic blocks for the prompt-visible context files (None when a block is empty)."""
    if profile.curated_project_entries_filtered:
        visible = [
            ContextFile(f.path, without_project_entries(f.content)) if _is_curated_path(f.path) else f
            for f in visible
        ]
    stable = stable_order(visible, profile=profile)
    dynamic = [f for f in visible if profile.heartbeat_filter and is_dynamic(f.path)]
    project = None
    if stable:
        names = {prompt_basename(f.path) for f in stable}
        lines = [
            STABLE_HEADING,
            profile.intro_line,
            SOUL_LINE if "soul.md" in names else "",
            profile.memory_line if "memory.md" in names else "",
            profile.user_line if profile.user_line is not None and "user.md" in names else "",
        ]
        project = _block(lines, stable, profile)
    dynamic_block = None
    if dynamic:
        heading = DYNAMIC_HEADING if project is not None else STABLE_HEADING
        dynamic_block = _block([heading, DYNAMIC_INTRO], dynamic, profile)
    return RenderedBlocks(project, dynamic_block)
