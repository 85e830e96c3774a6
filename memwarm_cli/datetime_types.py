"""The `datetime` classes, taken from the C module that `datetime` itself re-exports.

On CPython 3.11 `import datetime` first runs its pure-Python implementation (about 2,600 lines: some
1.5 ms CPU of every start, bench/bench_startup.py) and then replaces each class with `_datetime`'s.
Importing `_datetime` skips that first half. They are the same objects (`datetime.date is
_datetime.date`), so isinstance, pickling and a later `import datetime` see no difference;
tests/test_datetime_types.py checks it. An interpreter without `_datetime` gets the `datetime` module.
"""

from __future__ import annotations

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
else:
    try:
        from _datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo
    except ImportError:  # no C implementation (PyPy)
        from datetime import UTC, date, datetime, time, timedelta, timezone, tzinfo

__all__ = ["UTC", "date", "datetime", "time", "timedelta", "timezone", "tzinfo"]
