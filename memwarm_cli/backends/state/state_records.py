"""memwarm's JSON records under the state dir (the fingerprint, the last run, the qmd version cache):
read through state_files and checked by the record's own parser, written atomically.

A record that cannot be used (unreadable, not JSON, or refused by its parser with InvalidStateFile) is
reported once through the caller's `warn` and read as absent, so the run goes on as if it were not there.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable

from memwarm_cli.backends.state import state_files
from memwarm_cli.backends.state.state_files import StatePath

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, TypeVar

    _Record = TypeVar("_Record")


class InvalidStateFile(ValueError):
    """A state file whose content memwarm did not write: it is discarded (the message says why)."""


def read_record(
    target: StatePath,
    parse: Callable[[Any], _Record | None],
    *,
    max_bytes: int,
    warn: Callable[[str], None] | None,
) -> _Record | None:
    """`parse` of the JSON in `target`; None when the file is absent, `parse` returns None (another
    format version) or it is unusable: a read problem or `parse`'s InvalidStateFile, reported through
    `warn` with state_files.discarded_warning."""
    read = state_files.read_json(target, max_bytes=max_bytes)
    problem = read.problem
    if read.found and problem is None:
        try:
            return parse(read.data)
        except InvalidStateFile as exc:
            problem = str(exc)
    if problem is not None and warn is not None:
        warn(state_files.discarded_warning(target, problem))
    return None


def record_number(value: Any, key: str, maximum: float = math.inf) -> float:
    """A record's number field `key`: a finite number in [0, maximum], else InvalidStateFile."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidStateFile(f"{key} is not a number")
    try:
        number = float(value)
    except OverflowError:
        raise InvalidStateFile(f"{key} is not a finite number") from None
    if not math.isfinite(number) or number < 0 or number > maximum:
        raise InvalidStateFile(f"{key} is not a finite number >= 0")
    return number


def write_json_atomically(target: StatePath, data: Any) -> None:
    """JSON (2-space indent, one trailing newline) through state_files.write_atomically."""
    state_files.write_atomically(target, (json.dumps(data, indent=2) + "\n").encode("utf-8"))
