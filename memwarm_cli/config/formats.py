"""Config file formats, chosen by extension: YAML (.yaml/.yml), TOML (.toml), JSON5 for anything else.

Each parser returns plain JSON-like values (dict with str keys, list, str, int, float, bool, None) and,
when asked, a position tree. yaml and tomllib are imported only when such a file is actually read.
"""

from __future__ import annotations

import functools
import gc
import os
import re

from memwarm_cli.config.json5reader import Json5Error, parse_json5
from memwarm_cli.config.positions import Duplicate, Loc, LoneSurrogate, ParseNote, PNode
from memwarm_cli.datetime_types import date, time
from memwarm_cli.jsstring import js_int, js_string, well_formed_with_escapes
from memwarm_cli.os_paths import pure_path

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    import yaml

# YAML anchors can make a small file expand enormously ("billion laughs"); stop well before that.
MAX_YAML_VALUES = 1_000_000


class ParseError(ValueError):
    """A document that cannot be parsed; line and column are 1-based."""

    def __init__(self, message: str, line: int, column: int) -> None:
        super().__init__(f"{message} at {line}:{column}")
        self.message = message
        self.line = line
        self.column = column


def format_for(path: str | os.PathLike[str]) -> str:
    """By the file name's suffix, as `PurePath.suffix` takes it (pathlib itself is kept off the start)."""
    name = os.path.basename(pure_path(os.fspath(path)))
    dot = name.rfind(".")
    suffix = name[dot:].lower() if 0 < dot < len(name) - 1 else ""
    if suffix in (".yaml", ".yml"):
        return "yaml"
    if suffix == ".toml":
        return "toml"
    return "json5"


def parse_document(text: str, file: str, fmt: str, *, track: bool = False) -> tuple[Any, PNode | None]:
    # A parse allocates one object or more per value and frees none: the cyclic garbage collector
    # would walk the growing tree again and again for nothing (it was 60% of an 8 MB YAML parse).
    # Parsers build trees without cycles; what YAML's composer leaves is collected once re-enabled.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _parse_document(text, file, fmt, track)
    finally:
        if was_enabled:
            gc.enable()


def _parse_document(text: str, file: str, fmt: str, track: bool) -> tuple[Any, PNode | None]:
    if fmt == "yaml":
        return _parse_yaml(text, file, track)
    if fmt == "toml":
        return _parse_toml(text, file, track)
    try:
        return parse_json5(text, file, track=track)
    except Json5Error as exc:
        raise ParseError(f"JSON5: {exc.message}", exc.line, exc.column) from None


def decode_text(data: bytes) -> str:
    """Strict UTF-8; an invalid byte is a parse error at its line and column."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = data[: exc.start].decode("utf-8", "replace")
        line = before.count("\n") + 1
        column = len(before) - (before.rfind("\n") + 1) + 1
        raise ParseError(f"invalid UTF-8 byte 0x{data[exc.start]:02x}", line, column) from None


# -- YAML ------------------------------------------------------------------------------------------------


def _plain(value: Any) -> Any:
    """Dates and binary values as the strings JSON would carry; integers as JS doubles."""
    if isinstance(value, int) and not isinstance(value, bool):
        return js_int(value)
    if isinstance(value, date | time):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


# PyYAML's implicit types that JSON5 has too (null, booleans, numbers); the rest stays text as written.
_YAML_TEXT_TAGS = frozenset(
    {"tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:value", "tag:yaml.org,2002:yaml"}
)
# Compiled by _yaml_loader (only a YAML config needs them; compiling them cost every start ~0.3 ms).
_YAML_INT = r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"
_YAML_FLOAT = (
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_YAML_TAG_PREFIX = "tag:yaml.org,2002:"


@functools.cache
def _yaml_loader(libyaml: bool = False) -> type[yaml.SafeLoader]:
    """SafeLoader without the implicit types OpenClaw has no counterpart for.

    Dates (`2026-02-30` made PyYAML raise), sexagesimal numbers (`1:30`, 90 in YAML 1.1) and the `=`
    value key stay the text the user wrote, as JSON5 would hold them. Explicit tags still convert.
    """
    # yaml: only YAML configs need it (~20 ms by -X importtime; off the fast commands, test_imports)
    import yaml

    resolvers: dict[Any, list[tuple[str, re.Pattern[str]]]] = {}
    for first, entries in yaml.SafeLoader.yaml_implicit_resolvers.items():
        kept = []
        for tag, pattern in entries:
            if tag in _YAML_TEXT_TAGS:
                continue
            if tag == _YAML_TAG_PREFIX + "int":
                pattern = re.compile(_YAML_INT)
            elif tag == _YAML_TAG_PREFIX + "float":
                pattern = re.compile(_YAML_FLOAT)
            kept.append((tag, pattern))
        if kept:
            resolvers[first] = kept

    # libyaml's parser (CSafeLoader) composes the same nodes about five times faster; resolving and
    # constructing stay the Python SafeLoader's.
    base = yaml.CSafeLoader if libyaml else yaml.SafeLoader
    loader = type("ConfigYamlLoader", (base,), {"yaml_implicit_resolvers": resolvers})
    return loader


def _compose_yaml(text: str) -> tuple[yaml.SafeLoader, yaml.Node | None]:
    """The document's node tree, and the loader that composed it (to construct scalars with).

    libyaml composes when it can; when it refuses a document, PyYAML composes it again, so errors (and
    what is accepted, e.g. `"\\ud800"`, which libyaml rejects) stay PyYAML's, as the messages say.
    ReaderError from PyYAML for a character YAML does not allow.
    """
    # yaml: only YAML configs need it (~20 ms by -X importtime; off the fast commands, test_imports)
    import yaml

    if yaml.__with_libyaml__:
        fast = _yaml_loader(libyaml=True)(text)
        try:
            return fast, fast.get_single_node()
        except yaml.YAMLError:
            fast.dispose()
    slow = _yaml_loader()(text)
    try:
        return slow, slow.get_single_node()
    except yaml.YAMLError:
        slow.dispose()
        raise


def _short_tag(tag: str) -> str:
    return "!!" + tag[len(_YAML_TAG_PREFIX) :] if tag.startswith(_YAML_TAG_PREFIX) else tag


def _parse_yaml(text: str, file: str, track: bool) -> tuple[Any, PNode | None]:
    # yaml: only YAML configs need it (~20 ms by -X importtime; off the fast commands, test_imports)
    import yaml

    def mark_error(exc: yaml.MarkedYAMLError) -> ParseError:
        mark = exc.problem_mark or exc.context_mark
        message = " ".join(part for part in (exc.context, exc.problem) if part) or "invalid YAML"
        if mark is None:
            return ParseError(f"YAML: {message}", 1, 1)
        return ParseError(f"YAML: {message}", mark.line + 1, mark.column + 1)

    try:
        loader, root = _compose_yaml(text)
    except yaml.reader.ReaderError as exc:
        before = text[: exc.position]
        line = before.count("\n") + 1
        column = exc.position - (before.rfind("\n") + 1) + 1
        raise ParseError(f"YAML: unacceptable character #x{exc.character:04x}", line, column) from None
    except yaml.MarkedYAMLError as exc:
        raise mark_error(exc) from None
    except yaml.YAMLError as exc:
        raise ParseError(f"YAML: {exc}", 1, 1) from None
    try:
        if root is None:
            return None, (PNode(Loc(file, 1, 1)) if track else None)
        builder = _YamlBuilder(loader, file, track)
        value, children = builder.build(root)
    except yaml.MarkedYAMLError as exc:
        raise mark_error(exc) from None
    except yaml.YAMLError as exc:
        raise ParseError(f"YAML: {exc}", 1, 1) from None
    finally:
        loader.dispose()
    node = PNode(Loc(file, root.start_mark.line + 1, root.start_mark.column + 1), children) if track else None
    if node is not None:
        builder.note_lone(node.loc)
        if builder.notes:
            node.notes = builder.notes
    return value, node


class _YamlBuilder:
    def __init__(self, loader: yaml.SafeLoader, file: str, track: bool) -> None:
        self.loader = loader
        self.file = file
        self.track = track
        self.count = 0
        self.active: set[int] = set()
        self.notes: list[ParseNote] = []
        self.lone = ""  # the lone surrogates the last double-quoted scalar held, until its entry notes them

    def loc(self, node: yaml.Node) -> Loc:
        return Loc(self.file, node.start_mark.line + 1, node.start_mark.column + 1)

    def note_lone(self, loc: Loc, key_lone: str = "") -> None:
        """Note the lone surrogates the entry at `loc` held (its key's and its string value's)."""
        lone, self.lone = key_lone + self.lone, ""
        if lone:
            self.notes.append(LoneSurrogate(loc, lone))

    def scalar(self, node: yaml.ScalarNode) -> Any:
        # yaml: only YAML configs need it (~20 ms by -X importtime; off the fast commands, test_imports)
        import yaml

        if node.tag == "tag:yaml.org,2002:str":
            if node.style != '"':  # only double-quoted scalars have escapes such as "\ud800"
                return node.value
            text, lone = well_formed_with_escapes(node.value)
            self.lone += lone
            return text
        try:
            return _plain(self.loader.construct_object(node))
        except yaml.YAMLError:
            raise  # already positioned (an unknown tag, bad base64)
        except Exception:  # whatever a constructor raises, the value is what is wrong
            # int() refuses more than 4300 decimal digits; JS reads such a number as +-Infinity.
            digits = node.value.replace("_", "")
            if node.tag == "tag:yaml.org,2002:int" and digits.lstrip("+-").isdigit():
                return float(digits)
            shown = node.value if len(node.value) <= 40 else node.value[:40] + "..."
            raise yaml.MarkedYAMLError(
                problem=f'"{shown}" is not a valid {_short_tag(node.tag)} value',
                problem_mark=node.start_mark,
            ) from None

    def build(self, node: yaml.Node) -> tuple[Any, dict[str, PNode] | list[PNode] | None]:
        # yaml: only YAML configs need it (~20 ms by -X importtime; off the fast commands, test_imports)
        import yaml

        self.count += 1
        if self.count > MAX_YAML_VALUES:
            raise yaml.MarkedYAMLError(
                problem="the document expands to too many values", problem_mark=node.start_mark
            )
        if isinstance(node, yaml.ScalarNode):
            return self.scalar(node), None
        if id(node) in self.active:
            raise yaml.MarkedYAMLError(problem="recursive alias", problem_mark=node.start_mark)
        self.active.add(id(node))
        try:
            if isinstance(node, yaml.SequenceNode):
                items: list[Any] = []
                item_locs: list[PNode] | None = [] if self.track else None
                for item in node.value:
                    value, sub = self.build(item)
                    items.append(value)
                    if item_locs is not None:
                        item_loc = self.loc(item)
                        item_locs.append(PNode(item_loc, sub))
                        self.note_lone(item_loc)
                return items, item_locs
            assert isinstance(node, yaml.MappingNode)
            own = {id(key_node) for key_node, _ in node.value}  # not brought in by a `<<` merge key
            own_keys: set[str] = set()
            self.loader.flatten_mapping(node)
            result: dict[str, Any] = {}
            entry_locs: dict[str, PNode] | None = {} if self.track else None
            for key_node, value_node in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise yaml.MarkedYAMLError(
                        problem="mapping keys must be plain values", problem_mark=key_node.start_mark
                    )
                key = js_string(self.scalar(key_node))
                key_lone, self.lone = self.lone, ""
                value, sub = self.build(value_node)
                result[key] = value
                if entry_locs is not None:
                    key_loc = self.loc(key_node)
                    if id(key_node) in own:
                        if key in own_keys:
                            self.notes.append(Duplicate(key_loc, entry_locs[key].loc, key))
                        own_keys.add(key)
                    entry_locs[key] = PNode(key_loc, sub)
                    self.note_lone(key_loc, key_lone)
            return result, entry_locs
        finally:
            self.active.discard(id(node))


# -- TOML ------------------------------------------------------------------------------------------------

# A TOML config's errors alone need these: compiled there, by re's cache (every start paid ~0.15 ms).
_TOML_AT = r"\s*\(at line (\d+), column (\d+)\)$"
_TOML_END = r"\s*\(at end of document\)$"
# An integer value: after `=`, `[` or `,` (a digit run in a comment or string is not one).
_TOML_INT = r"[=\[,][ \t\r\n]*[+-]?([0-9][0-9_]*)"


def _plain_tree(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain_tree(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain_tree(v) for v in value]
    return _plain(value)


def _toml_too_long(text: str) -> ParseError:
    runs = (m for m in re.finditer(_TOML_INT, text) if len(m.group(1).replace("_", "")) > 4300)
    offset = next((m.start(1) for m in runs), 0)
    before = text[:offset]
    line = before.count("\n") + 1
    column = offset - (before.rfind("\n") + 1) + 1
    return ParseError("TOML: integer too large (more than 4300 digits)", line, column)


def _parse_toml(text: str, file: str, track: bool) -> tuple[Any, PNode | None]:
    # tomllib and tomlpos: only TOML configs need them; kept off the fast commands (test_imports)
    import tomllib

    if text.startswith("\ufeff"):
        text = text[1:]
    try:
        data = tomllib.loads(text)
    except ValueError as exc:
        if not isinstance(exc, tomllib.TOMLDecodeError):
            # int() refuses more than 4300 decimal digits (TOML integers are 64-bit anyway).
            raise _toml_too_long(text) from None
        message = str(exc)
        m = re.search(_TOML_AT, message)
        if m is not None:
            raise ParseError(f"TOML: {message[: m.start()]}", int(m.group(1)), int(m.group(2))) from None
        m = re.search(_TOML_END, message)
        lines = text.split("\n")
        line, column = len(lines), len(lines[-1]) + 1
        if m is not None:
            message = message[: m.start()]
        raise ParseError(f"TOML: {message}", line, column) from None
    value = _plain_tree(data)
    if not track:
        return value, None
    # tomlpos (~3.5 ms by -X importtime): only for a TOML config's positions (config check, or placing
    # an error the release refuses)
    from memwarm_cli.config.tomlpos import locate_toml

    return value, locate_toml(text, file, value)
