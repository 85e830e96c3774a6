"""Run one function over several items on every CPU memwarm may use, by fork, for the fingerprint walks
of `status` and `init-backends`: on 100k notes the walk is almost all of their time when nothing changed
and, being Python per file, holds the GIL (threads take turns). Each child takes every n-th item, sends
its results back pickled through a pipe and exits; this process takes its own share meanwhile. A child
that fails, or a platform without fork, costs nothing but time: its share is done here.

Only while this process has one thread: a fork copies the calling thread alone, and a lock another
thread held stays held in the child. `status` never starts one; `init-backends` walks before its thread
pool starts. With other threads alive, everything runs here.
"""

from __future__ import annotations

import os
import sys

# The C module under `signal` (as cancel.py): `signal` builds its enums at import.
from _signal import SIGKILL  # type: ignore[import-not-found]

# typing, ~4 ms CPU of a start-up, is not imported on `status`'s path (mypy reads this as typing's)
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from typing import TypeVar

    T = TypeVar("T")
    R = TypeVar("R")

POLL_SECONDS = 0.1  # how often a wait for a child asks `check`


def usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # no sched_getaffinity on macOS
        return os.cpu_count() or 1


def forked_map(
    function: Callable[[T], R],
    items: Sequence[T],
    workers: int | None = None,
    *,
    check: Callable[[], None] | None = None,
) -> list[R]:
    """`[function(item) for item in items]`, the work shared with up to `workers` - 1 forked children.

    `check` is called every POLL_SECONDS while this process waits for a child: what it raises (Cancelled
    on a signal) ends the wait, and the children are killed. A signal handler that only records the
    signal would otherwise leave this process waiting out a child's whole share."""
    lanes = min(workers or usable_cpus(), len(items))
    if lanes <= 1 or not hasattr(os, "fork") or not _only_thread():
        return [function(item) for item in items]
    # here, once, for the children and the collection: ~3 ms CPU of every run with one agent (status,
    # init-backends), which never forks; select too, for _collect
    import pickle  # noqa: F401
    import select  # noqa: F401

    children: list[tuple[int, int, list[int]]] = []  # (pid, read end, indexes)
    try:
        for lane in range(1, lanes):
            indexes = list(range(lane, len(items), lanes))
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child: its share, pickled to the pipe, then gone without cleanup
                os.close(read_end)
                _child(function, items, indexes, write_end)
            os.close(write_end)
            children.append((pid, read_end, indexes))
        results: dict[int, R] = {index: function(items[index]) for index in range(0, len(items), lanes)}
        while children:
            pid, read_end, indexes = children.pop(0)  # _collect closes and reaps it, whatever happens
            collected: dict[int, R] | None = _collect(read_end, pid, check)
            results.update(collected or {index: function(items[index]) for index in indexes})
        return [results[index] for index in range(len(items))]
    finally:
        for pid, read_end, _ in children:  # interrupted: nothing of ours outlives us
            try:  # not contextlib.suppress: contextlib costs status ~1 ms CPU
                os.kill(pid, SIGKILL)
                os.close(read_end)
                os.waitpid(pid, 0)
            except OSError:
                pass


def _only_thread() -> bool:
    threading = sys.modules.get("threading")  # never imported: no thread was started through it
    return threading is None or threading.active_count() <= 1


def _child(function: Callable[[T], R], items: Sequence[T], indexes: list[int], write_end: int) -> None:
    status = 1
    try:
        import pickle  # loaded by forked_map before the fork: a lookup here

        data = pickle.dumps({index: function(items[index]) for index in indexes})
        view = memoryview(data)
        while view:
            view = view[os.write(write_end, view) :]
        status = 0
    finally:
        os._exit(status)


def _collect(read_end: int, pid: int, check: Callable[[], None] | None) -> dict[int, R] | None:
    import select  # loaded by forked_map before the fork: a lookup here

    chunks: list[bytes] = []
    try:
        while True:
            if check is not None:
                check()
                if not select.select([read_end], [], [], POLL_SECONDS)[0]:
                    continue
            chunk = os.read(read_end, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    except BaseException:
        try:  # noqa: SIM105 - not contextlib.suppress: contextlib costs status ~1 ms CPU
            os.kill(pid, SIGKILL)
        except OSError:
            pass
        raise
    finally:
        os.close(read_end)
        _, status = os.waitpid(pid, 0)
    if status != 0 or not chunks:
        return None
    import pickle  # loaded by forked_map before the fork: a lookup here

    try:
        results: dict[int, R] = pickle.loads(b"".join(chunks))
    except Exception:
        return None
    return results
