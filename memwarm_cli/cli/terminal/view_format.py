"""How every command shows its result, as pip-audit's `_format/` does: one View per way of showing it.

A view (text, plain, table, json, prometheus, yaml, toml) knows how to render a command's result and
whether it is drawn for a terminal (a table: sized to its width, coloured); a command lists its views
in one `Views`, and `Views.choose` picks one from `--format` and `--json`, the same way for every
command (Typer-free: the fast path uses it too). `--json` is `--format json`; with another `--format` it
is a usage error. Without either, the view drawn for a terminal when stdout is one, else the command's
pipe view.

A view's `show` writes what `notes` gives to stderr, then what `render` gives to stdout (as it comes:
a million scan rows are never held as one text), then what `summary` gives to stderr. The result a
view renders carries whatever shapes it (`-q`, `--only`, `--raw`), so views hold no state of their
own. The command then returns its exit code: views never decide it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from types import GenericAlias

from memwarm_cli.cli.terminal.output import json_chunks, stdout_is_terminal, write_chunks, write_stderr
from memwarm_cli.errors import UsageError

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, ClassVar, Protocol, TypeVar
    from typing import Generic as _Generic

    from memwarm_cli.profiles.choice import OpenClawChoice

    R = TypeVar("R")

    class Released(Protocol):
        """A result that carries the release it was computed for (every command's result does)."""

        @property
        def openclaw(self) -> OpenClawChoice: ...

    RR = TypeVar("RR", bound=Released)
else:

    class _Generic:
        """typing.Generic as far as it matters at run time: `View[X]`, a subclass's base, is View (the
        builtin generics' way, `list[int]`); the type parameters are the type checker's."""

        __class_getitem__ = classmethod(GenericAlias)

    R = RR = None


class View(_Generic[R]):
    """One way of showing a command's result `R`."""

    name: ClassVar[str] = ""
    needs_terminal: ClassVar[bool] = False  # drawn for a terminal: the default when stdout is one

    def notes(self, result: R) -> Iterable[str]:
        """Lines for stderr before the data (warnings, why a part is left out); none by default."""
        return ()

    def render(self, result: R) -> Iterable[str]:
        """The text for stdout, in pieces written as they come; outside text in it already made safe."""
        raise NotImplementedError

    def summary(self, result: R) -> Iterable[str]:
        """Lines for stderr after the data (a plain view's `# ` summary); none by default."""
        return ()

    def show(self, result: R) -> None:
        for line in self.notes(result):
            write_stderr(line)
        write_chunks(self.render(result))
        for line in self.summary(result):
            write_stderr(line)


class JsonView(View[RR]):
    """`--json`: the data `data(result)` gives, as strict JSON (cli/terminal/output.json_chunks), with
    the result's release as its `"openclaw"` object."""

    name = "json"

    def __init__(
        self,
        data: Callable[[RR], Any],
        *,
        rows_key: str | None = None,
        row_text: Callable[[Any], str] | None = None,
        walk: bool = False,
    ) -> None:
        self._data = data
        self._rows_key = rows_key
        self._row_text = row_text
        self._walk = walk  # the data holds IndentedRows (cli/terminal/output.py)

    def render(self, result: RR) -> Iterator[str]:
        # command_config and the release's choice it imports (~1 ms): the app's build (--help,
        # completion) imports every command's views but loads no config
        from memwarm_cli.cli.terminal.command_config import with_openclaw

        data = self._data(result)
        if isinstance(data, dict):  # every top-level object says which OpenClaw release it describes
            data = with_openclaw(data, result.openclaw)
        return json_chunks(data, rows_key=self._rows_key, row_text=self._row_text, walk=self._walk)


class Views(_Generic[R]):
    """A command's views, in the order its `--format` metavar lists them, and its default in a pipe."""

    def __init__(self, *views: View[R], pipe: str) -> None:
        self.by_name = {view.name: view for view in views}
        self.names = tuple(self.by_name)
        self.pipe = pipe
        self.terminal = next((view.name for view in views if view.needs_terminal), pipe)

    def choose(self, json_output: bool, output_format: str | None) -> View[R]:
        """The view `--json`/`--format` ask for; without either, the default for where stdout goes.
        UsageError for a format the command does not have, or `--json` with another `--format`."""
        view = self.asked(json_output, output_format)
        if view is not None:
            return view
        return self.by_name[self.terminal if stdout_is_terminal() else self.pipe]

    def asked(self, json_output: bool, output_format: str | None) -> View[R] | None:
        """The view `--json`/`--format` ask for, None when neither was given (`status --textfile` then
        prints nothing); the same UsageErrors as `choose`."""
        if json_output and output_format not in (None, "json"):
            raise UsageError("--json and --format exclude each other")
        if output_format is not None and output_format not in self.by_name:
            raise UsageError(f'--format must be one of {", ".join(self.names)}, not "{output_format}"')
        name = "json" if json_output else output_format
        return None if name is None else self.by_name[name]
