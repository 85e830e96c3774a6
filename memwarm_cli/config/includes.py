"""`$include` resolution (config.md §6.4, src/config/includes.ts).

Values travel together with their position trees (None when positions are not tracked), so that merged
content keeps pointing at the file and line it came from.
"""

from __future__ import annotations

import os

from memwarm_cli.config.formats import ParseError, decode_text, format_for, parse_document
from memwarm_cli.config.positions import Loc, ParseNote, PNode, join_path
from memwarm_cli.jsstring import js_typeof
from memwarm_cli.os_paths import absolute_path
from memwarm_cli.safe_files import FileTooLargeError, NotRegularFileError, read_bounded

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

INCLUDE_KEY = "$include"
MAX_INCLUDE_DEPTH = 10
MAX_INCLUDE_FILE_BYTES = 2 * 1024 * 1024
# memwarm's own bounds on the whole include tree (upstream has none): every inclusion counts, so a file
# included ten times counts ten times. Real configs stay far below both.
MAX_INCLUDE_FILES = 10_000
MAX_INCLUDE_TOTAL_BYTES = 8 * 1024 * 1024
_BLOCKED_KEYS = frozenset({"__proto__", "prototype", "constructor"})


class IncludeError(Exception):
    """A `ConfigIncludeError`: the message is upstream's, verbatim; `loc` is where the `$include` stands."""

    def __init__(self, message: str, loc: Loc | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.path = ""  # dotted path of the `$include` key (set where the error is recovered)
        self.resolved = ""  # the included file, for errors about its content
        self.cause: Exception | None = None


def _is_inside(root: str, target: str) -> bool:
    """`isPathInside`: path.relative(root, target) is "" or neither starts with ".." nor is absolute."""
    rel = os.path.relpath(target, root)
    if rel == ".":
        return True
    return not rel.startswith("..") and not os.path.isabs(rel)


def _safe_realpath(path: str) -> str:
    try:
        return os.path.realpath(path, strict=True)
    except (OSError, ValueError):
        return path


def deep_merge(
    target: Any, target_pos: PNode | None, source: Any, source_pos: PNode | None
) -> tuple[Any, PNode | None]:
    """`deepMerge`: arrays concatenate (target first), plain objects merge recursively, else source wins.

    `target` (and `target_pos`) are updated in place and returned. Upstream copies at every merge, which
    makes merging many includes into one accumulator quadratic; here every value is freshly parsed and
    owned by the caller, so in place gives the same result in linear time.
    """
    both_pos = target_pos is not None and source_pos is not None
    if isinstance(target, list) and isinstance(source, list):
        target.extend(source)
        if not both_pos:
            return target, None
        assert target_pos is not None and source_pos is not None
        if not isinstance(target_pos.children, list):
            target_pos.children = []
        if isinstance(source_pos.children, list):
            target_pos.children.extend(source_pos.children)
        return target, target_pos
    if isinstance(target, dict) and isinstance(source, dict):
        children: dict[str, PNode] | None = None
        if both_pos:
            assert target_pos is not None
            if not isinstance(target_pos.children, dict):
                target_pos.children = {}
            children = target_pos.children
        for key, value in source.items():
            if key in _BLOCKED_KEYS:
                continue
            s_child = source_pos.child(key) if source_pos is not None else None
            if key in target:
                t_child = target_pos.child(key) if target_pos is not None else None
                merged, merged_pos = deep_merge(target[key], t_child, value, s_child)
                target[key] = merged
                if children is not None:
                    children[key] = merged_pos if merged_pos is not None else s_child or t_child  # type: ignore[assignment]
            else:
                target[key] = value
                if children is not None and s_child is not None:
                    children[key] = s_child
        return target, (target_pos if children is not None else None)
    return source, source_pos


class _Budget:
    """The work one config's includes may cause, shared by every nested processor.

    Upstream bounds each file (2 MiB) and the depth (10), but not the total: ten files that each include
    the next ten times ask for 10^10 loads. Each inclusion counts, however often the file was read.
    """

    __slots__ = ("files", "total_bytes")

    def __init__(self) -> None:
        self.files = 0
        self.total_bytes = 0

    @property
    def exhausted(self) -> bool:
        """A limit was crossed (and reported where it was): nothing more is loaded."""
        return self.files > MAX_INCLUDE_FILES or self.total_bytes > MAX_INCLUDE_TOTAL_BYTES


class IncludeProcessor:
    def __init__(
        self,
        base_path: str,
        root_dir: str | None = None,
        *,
        track: bool = False,
        errors: list[IncludeError] | None = None,
        notes: list[ParseNote] | None = None,
        budget: _Budget | None = None,
    ) -> None:
        self.base_path = base_path
        self.budget = budget if budget is not None else _Budget()
        self.visited: list[str] = [os.path.normpath(base_path)]
        self.depth = 0
        self.root_dir = os.path.normpath(root_dir if root_dir is not None else os.path.dirname(base_path))
        self.root_real_dir = os.path.normpath(_safe_realpath(self.root_dir))
        self.track = track
        # When a list is given, include errors are collected there (for `config check`) and the failing
        # include counts as an empty object; otherwise the first error is raised, as upstream does.
        self.errors = errors
        self.notes = notes  # what the parsers noted in included files (with positions only)

    def _recover(self, exc: IncludeError, path: str) -> None:
        if self.errors is None:
            raise exc
        if not exc.path:
            exc.path = path
        self.errors.append(exc)

    def process(self, obj: Any, pos: PNode | None, path: str = "") -> tuple[Any, PNode | None]:
        if isinstance(obj, list):
            items: list[Any] = []
            item_pos: list[PNode] = []
            for i, item in enumerate(obj):
                value, sub = self.process(item, pos.child(i) if pos is not None else None, f"{path}[{i}]")
                items.append(value)
                if sub is not None:
                    item_pos.append(sub)
            return items, (PNode(pos.loc, item_pos) if pos is not None else None)
        if not isinstance(obj, dict):
            return obj, pos
        if INCLUDE_KEY not in obj:
            return self._process_object(obj, pos, path)
        return self._process_include(obj, pos, path)

    def _process_object(self, obj: dict[str, Any], pos: PNode | None, path: str) -> tuple[Any, PNode | None]:
        result: dict[str, Any] = {}
        children: dict[str, PNode] = {}
        for key, value in obj.items():
            child_pos = pos.child(key) if pos is not None else None
            result[key], sub = self.process(value, child_pos, join_path(path, key))
            if sub is not None:
                children[key] = sub
        return result, (PNode(pos.loc, children) if pos is not None else None)

    def _process_include(self, obj: dict[str, Any], pos: PNode | None, path: str) -> tuple[Any, PNode | None]:
        include_path = join_path(path, INCLUDE_KEY)
        include_value = obj[INCLUDE_KEY]
        include_pos = pos.child(INCLUDE_KEY) if pos is not None else None
        include_loc = include_pos.loc if include_pos is not None else None
        other_keys = [k for k in obj if k != INCLUDE_KEY]
        try:
            included, included_pos = self._resolve_include(include_value, include_pos, path)
        except IncludeError as exc:
            self._recover(exc, include_path)
            included, included_pos = {}, (PNode(include_loc, {}) if include_loc is not None else None)
        if not other_keys:
            return included, included_pos
        if not isinstance(included, dict):
            error = IncludeError("Sibling keys require included content to be an object", include_loc)
            self._recover(error, include_path)
            included, included_pos = {}, (PNode(include_loc, {}) if include_loc is not None else None)
        rest, rest_pos = self._process_object({k: obj[k] for k in other_keys}, pos, path)
        if included_pos is None and rest_pos is not None:
            included_pos = PNode(rest_pos.loc, {})
        return deep_merge(included, included_pos, rest, rest_pos)

    def _resolve_include(self, value: Any, pos: PNode | None, path: str) -> tuple[Any, PNode | None]:
        loc = pos.loc if pos is not None else None
        if isinstance(value, str):
            return self._load_file(value, loc, path)
        if isinstance(value, list):
            merged: Any = {}
            merged_pos: PNode | None = PNode(loc, {}) if loc is not None else None
            for i, item in enumerate(value):
                item_pos = pos.child(i) if pos is not None else None
                item_loc = item_pos.loc if item_pos is not None else loc
                try:
                    if not isinstance(item, str):
                        raise IncludeError(
                            f"Invalid $include array item: expected string, got {js_typeof(item)}", item_loc
                        )
                    loaded, loaded_pos = self._load_file(item, item_loc, path)
                except IncludeError as exc:
                    self._recover(exc, join_path(join_path(path, INCLUDE_KEY), i))
                    continue
                merged, merged_pos = deep_merge(merged, merged_pos, loaded, loaded_pos)
            return merged, merged_pos
        raise IncludeError(
            f"Invalid $include value: expected string or array of strings, got {js_typeof(value)}", loc
        )

    def _load_file(self, include_path: str, loc: Loc | None, path: str) -> tuple[Any, PNode | None]:
        resolved = self._resolve_path(include_path, loc)
        if resolved in self.visited:
            chain = " -> ".join([*self.visited, resolved])
            raise IncludeError(f"Circular include detected: {chain}", loc)
        if self.depth >= MAX_INCLUDE_DEPTH:
            raise IncludeError(
                f"Maximum include depth ({MAX_INCLUDE_DEPTH}) exceeded at: {include_path}", loc
            )
        budget = self.budget
        if budget.exhausted:  # the limit was reported once where it was crossed; stop loading
            return {}, (PNode(loc, {}) if self.track and loc is not None else None)
        budget.files += 1
        if budget.files > MAX_INCLUDE_FILES:
            raise IncludeError(
                f"Include limit exceeded: more than {MAX_INCLUDE_FILES} $include files loaded in total "
                f"(each inclusion counts) at: {include_path}",
                loc,
            )
        raw = self._read_file(include_path, resolved, loc)
        budget.total_bytes += len(raw)
        if budget.total_bytes > MAX_INCLUDE_TOTAL_BYTES:
            raise IncludeError(
                f"Include limit exceeded: more than {MAX_INCLUDE_TOTAL_BYTES // (1024 * 1024)} MiB read "
                f"from $include files in total (each inclusion counts) at: {include_path}",
                loc,
            )
        parsed, parsed_pos = self._parse_file(include_path, resolved, raw, loc)
        if self.notes is not None and parsed_pos is not None and parsed_pos.notes:
            self.notes.extend(parsed_pos.notes)
        nested = IncludeProcessor(
            resolved,
            self.root_dir,
            track=self.track,
            errors=self.errors,
            notes=self.notes,
            budget=budget,
        )
        nested.visited = [*self.visited, resolved]
        nested.depth = self.depth + 1
        return nested.process(parsed, parsed_pos, path)

    def _resolve_path(self, include_path: str, loc: Loc | None) -> str:
        config_dir = os.path.dirname(self.base_path)
        joined = include_path if os.path.isabs(include_path) else os.path.join(config_dir, include_path)
        normalized = os.path.normpath(absolute_path(joined))
        if not _is_inside(self.root_dir, normalized):
            raise IncludeError(
                f"Include path escapes config directory: {include_path} (root: {self.root_dir})", loc
            )
        try:
            real = os.path.realpath(normalized, strict=True)
        except (OSError, ValueError):
            return normalized
        if not _is_inside(self.root_real_dir, real):
            raise IncludeError(
                "Include path resolves outside config directory (symlink): "
                f"{include_path} (root: {self.root_dir})",
                loc,
            )
        return normalized

    def _read_file(self, include_path: str, resolved: str, loc: Loc | None) -> bytes:
        failed_read = f"Failed to read include file: {include_path} (resolved: {resolved})"
        security = (
            "Include file failed security checks "
            f"(regular file, max {MAX_INCLUDE_FILE_BYTES} bytes, no hardlinks): {include_path}"
        )
        try:
            data, st = read_bounded(resolved, MAX_INCLUDE_FILE_BYTES)
        except (NotRegularFileError, FileTooLargeError):
            raise IncludeError(security, loc) from None
        except (OSError, ValueError) as exc:
            error = IncludeError(failed_read, loc)
            error.cause = exc
            raise error from None
        if st.st_nlink > 1:
            raise IncludeError(security, loc)
        return data

    def _parse_file(
        self, include_path: str, resolved: str, raw: bytes, loc: Loc | None
    ) -> tuple[Any, PNode | None]:
        try:
            text = decode_text(raw)
            return parse_document(text, resolved, format_for(resolved), track=self.track)
        except (ParseError, RecursionError) as exc:
            error = IncludeError(f"Failed to parse include file: {include_path} (resolved: {resolved})", loc)
            error.cause = exc
            error.resolved = resolved
            raise error from None


def resolve_includes(
    data: Any,
    pos: PNode | None,
    config_path: str,
    *,
    track: bool = False,
    errors: list[IncludeError] | None = None,
    notes: list[ParseNote] | None = None,
) -> tuple[Any, PNode | None]:
    """Resolve every `$include` in a parsed config whose file is `config_path`.

    With `errors`, failures are collected there instead of raised (the failing include counts as `{}`).
    """
    processor = IncludeProcessor(config_path, track=track, errors=errors, notes=notes)
    return processor.process(data, pos)
