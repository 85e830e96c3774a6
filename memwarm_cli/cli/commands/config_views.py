"""`memwarm config`'s views: `path` as lines or JSON, `check`'s findings as lines or JSON, `show`'s
settings as YAML, JSON or TOML.

`show`'s three carry the same data: strings keep their raw text, and the few characters textsafe's
policy escapes are written with each format's own escapes, so the text never reaches a terminal raw.

The app's build (`--help`, completion, every `config` command, `search`) imports this module for
SHOW_VIEWS' format names; what only `config show` writes with is imported where it writes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from memwarm_cli.cli.terminal.output import guarded_lines, json_text, note_line
from memwarm_cli.cli.terminal.view_format import JsonView, View, Views
from memwarm_cli.errors import ConfigError
from memwarm_cli.textsafe import escape_text, has_unsafe, patterns

if TYPE_CHECKING:
    from memwarm_cli.cli.commands.config import CheckResult, PathResult, ShowResult

CHECK_SCHEMA_VERSION = 1

# ---- path ------------------------------------------------------------------------------------------


class PathText(View["PathResult"]):
    name = "text"

    def render(self, result: PathResult) -> Iterator[str]:
        esc = escape_text
        data = result.data
        cfg = data["config"]
        state = data["stateDir"]
        # Paths, ids and reasons (which quote environment variables) are outside text: escaped one by one.
        lines = [
            f"config:     {esc(cfg['path'])} ({esc(cfg['reason'])}; {_exists(cfg['exists'])})",
            f"state dir:  {esc(state['path'])} ({esc(state['reason'])})",
        ]
        for agent in data["agents"]:
            marker = " (default)" if agent["default"] else ""
            lines.append(f"agent {esc(agent['agentId'])}{marker}")
            lines.append(f"  workspace:  {esc(agent['workspace'])} ({_exists(agent['workspaceExists'])})")
            if agent["workspaceRule"] is not None:
                lines.append(f"  why:        {esc(agent['workspaceRule'])}")
            lines.append(f"  backend:    {esc(agent['backend'])}")
            if agent["backend"] == "qmd":  # only an agent that uses qmd has a qmd index (JSON: always)
                lines.append(f"  qmd index:  {esc(agent['indexPath'])}")
        return guarded_lines(lines)


def _exists(flag: bool) -> str:
    return "exists" if flag else "missing"


def _path_data(result: PathResult) -> dict[str, Any]:
    return result.data


PATH_VIEWS: Views[PathResult] = Views(PathText(), JsonView(_path_data), pipe="text")

# ---- check -----------------------------------------------------------------------------------------


class CheckText(View["CheckResult"]):
    """One line per finding on stdout; the file's counts on stderr unless `-q`."""

    name = "text"

    def render(self, result: CheckResult) -> Iterator[str]:
        if result.report.unreadable:  # no findings to list: the one error line goes to stderr
            return guarded_lines([])
        return guarded_lines(f.format() for f in result.report.findings)

    def summary(self, result: CheckResult) -> Iterator[str]:
        report = result.report
        if report.error_line is not None:  # as every command says a config it cannot read (exit 3)
            yield f"memwarm: error: {escape_text(report.error_line)}"
            return
        if result.quiet:
            return
        if not report.source.exists:
            yield note_line(f"no config file at {report.source.path}: OpenClaw uses its defaults")
        else:
            errors, warnings = _count(report.errors, "error"), _count(report.warnings, "warning")
            yield note_line(f"{report.source.path}: {errors}, {warnings}")


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def check_data(result: CheckResult) -> dict[str, Any]:
    """`config check --json`'s object (JsonView adds the release it was judged for)."""
    report = result.report
    return {
        "schema": CHECK_SCHEMA_VERSION,
        "config": {
            "path": report.source.path,
            "reason": report.source.reason,
            "exists": report.source.exists,
        },
        "errors": report.errors,
        "warnings": report.warnings,
        "strict": result.strict,
        "ok": not report.failed(result.strict),
        "unreadable": report.unreadable,
        "findings": [f.as_dict() for f in report.findings],
    }


CHECK_VIEWS: Views[CheckResult] = Views(CheckText(), JsonView(check_data), pipe="text")

# ---- show ------------------------------------------------------------------------------------------


class _ShowView(View["ShowResult"]):
    def render(self, result: ShowResult) -> Iterator[str]:
        try:
            text = self.text(result.data)
        except RecursionError:  # the writers recurse deeper per level than the reader does
            raise ConfigError(
                result.config_file, f"the config is nested too deeply to write as {self.name.upper()}"
            ) from None
        yield text

    def text(self, data: dict[str, Any]) -> str:
        raise NotImplementedError


class ShowYaml(_ShowView):
    name = "yaml"

    def text(self, data: dict[str, Any]) -> str:
        return _yaml_text(data)


class ShowJson(_ShowView):
    name = "json"

    def text(self, data: dict[str, Any]) -> str:
        return json_text(data) + "\n"


class ShowToml(_ShowView):
    name = "toml"

    def text(self, data: dict[str, Any]) -> str:
        return _toml_text(data)


SHOW_VIEWS: Views[ShowResult] = Views(ShowYaml(), ShowJson(), ShowToml(), pipe="yaml")
_SHOW_TEXT: dict[str, _ShowView] = {"yaml": ShowYaml(), "json": ShowJson(), "toml": ShowToml()}


def render(data: dict[str, Any], fmt: str) -> str:
    """`config show`'s data in `fmt` (yaml, json or toml)."""
    return _SHOW_TEXT[fmt].text(data)


def _toml_text(data: dict[str, Any]) -> str:
    import tomli_w  # ~0.4 ms: only `config show --format toml` writes TOML

    # show_view and the settings readers it imports (~5 ms): --help, completion and search import this
    # module (docstring) and never load those
    from memwarm_cli.configview.show_view import drop_nulls

    def escape(match: re.Match[str]) -> str:
        code = ord(match.group())
        # A line feed is the document's own; TOML has no escape for a surrogate (written as U+FFFD).
        if code == 0x0A or 0xD800 <= code <= 0xDFFF:
            return match.group()
        return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"

    # tomli_w quotes every string and every key that is not bare ASCII, and never writes multi-line or
    # literal strings: any other unsafe character (tomli_w leaves tabs raw, for one) stands inside a
    # basic string, where \u is TOML's escape.
    return patterns().unsafe.sub(escape, tomli_w.dumps(drop_nulls(data)))


def _yaml_text(data: dict[str, Any]) -> str:
    """The YAML of `data`, one agent at a time.

    A top-level block mapping is the concatenation of its entries, and a block sequence under a top-level
    key is not indented: dumping the keys around `agents`, then each agent as a one-item list, gives the
    same text as one dump, with one agent's YAML nodes alive at a time (10,000 agents took 600 MB).
    """
    agents = data.get("agents")
    if not isinstance(agents, list) or not agents:
        return _yaml_dump(data)
    keys = list(data)
    split = keys.index("agents")
    head = {key: data[key] for key in keys[:split]}
    tail = {key: data[key] for key in keys[split + 1 :]}
    parts = [_yaml_dump(head)] if head else []
    parts.append("agents:\n")
    parts.extend(_yaml_dump([agent]) for agent in agents)
    if tail:
        parts.append(_yaml_dump(tail))
    return "".join(parts)


def _yaml_dump(value: Any) -> str:
    import yaml  # 10-20 ms by -X importtime: only `config show` writes YAML (docstring)

    # Printable ASCII holds nothing the escaping policy touches, and libyaml's emitter (4x faster)
    # writes it exactly as PyYAML's does; other text (controls, astral or lone surrogate code points)
    # it quotes differently or refuses, so it goes through the policy's dumper.
    fast = yaml.__with_libyaml__ and _printable_ascii(value)
    dumper = yaml.CSafeDumper if fast else _policy_dumper()
    options: dict[str, Any] = {"sort_keys": False, "allow_unicode": True, "default_flow_style": False}
    text: str = yaml.dump(value, Dumper=dumper, width=1_000_000, **options)
    return text


@functools.cache
def _policy_dumper() -> type[Any]:
    import yaml  # as in _yaml_dump

    class Dumper(yaml.SafeDumper):
        """A scalar holding a character the policy escapes is double-quoted, its non-ASCII escaped."""

        def analyze_scalar(self, scalar: str) -> Any:
            analysis = super().analyze_scalar(scalar)
            if has_unsafe(scalar):
                analysis.allow_flow_plain = analysis.allow_block_plain = False
                analysis.allow_single_quoted = analysis.allow_block = False
            return analysis

        def write_double_quoted(self, text: str, split: bool = True) -> None:
            if not has_unsafe(text):
                return super().write_double_quoted(text, split)
            self.allow_unicode = False  # PyYAML's switch for escaping everything outside ASCII
            try:
                return super().write_double_quoted(text, split)
            finally:
                self.allow_unicode = True

    return Dumper


def _printable_ascii(value: Any) -> bool:
    """Every string in `value` (keys too) is printable ASCII."""
    if isinstance(value, str):
        return value.isascii() and value.isprintable()
    if isinstance(value, dict):
        return all(_printable_ascii(k) and _printable_ascii(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_printable_ascii(v) for v in value)
    return True
