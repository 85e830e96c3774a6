"""`sqlite3`'s classes and `connect`, taken from the C module the package itself re-exports.

`import sqlite3` runs sqlite3/dbapi2.py, which imports `datetime` (its pure-Python half: see
datetime_types.py) to register date adapters and converters that only a connection made with
`detect_types`, or a date bound as a parameter, would use; memwarm does neither. Importing `_sqlite3`
skips that: 1.7 ms CPU of every `status` (31 alternating runs). `sqlite3.connect is _sqlite3.connect`,
and so for every name used here; tests/test_sqlite_driver.py checks it. An interpreter without
`_sqlite3` gets the package.
"""

from __future__ import annotations

# typing.TYPE_CHECKING without importing typing, which costs every start ~4 ms (bench/bench_startup.py)
TYPE_CHECKING = False
if TYPE_CHECKING:
    import sqlite3
else:
    try:
        import _sqlite3 as sqlite3
    except ImportError:  # no C module of that name (another interpreter)
        import sqlite3

__all__ = ["sqlite3"]
