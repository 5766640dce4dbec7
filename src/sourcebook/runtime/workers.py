"""Forked worker processes: how many a stage may spread its work over, and the pool itself.

A stage hands its workers what they work on (`job`) by fork, not by pickle: the pool is
forked with it in place, and each task names only its share (a range, an offset). The
workers find it with `forked_job()`.
"""

from __future__ import annotations

import contextlib
import gc
import multiprocessing
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from typing import Any, TypeVar

from sourcebook.children import die_with
from sourcebook.runtime.switches import plain

T = TypeVar("T")
R = TypeVar("R")

MOST = 8
"""Workers at most, however many cores: past that, sending work out costs what it saves."""


def worker_count(items: int, parallel_from: int) -> int:
    """One worker per core for `items` at or past `parallel_from`; 1 (no workers) below it,
    or where the `workers` speed-up is off.

    A process with other threads (the server) never forks: a fork copies locks held by
    threads that do not exist in the child. Nor does a platform without fork.
    """
    if items < parallel_from or threading.active_count() > 1 or plain("workers"):
        return 1
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(os.cpu_count() or 1, MOST))


_JOB: Any = None
"""What the workers of the pool being forked work on (see `Forked`)."""


def forked_job() -> Any:
    """In a worker: the `job` its pool was forked with."""
    return _JOB


class Forked:
    """`jobs` forked workers that find `job` with `forked_job()`.

    With `shared` (and the `collector` speed-up on), what the workers inherit is frozen
    out of the cycle collector's reach before the fork and their own collector stays off:
    a worker lives for one build, and what it makes is kept or freed by reference
    counting, while collections would scan the inherited objects again and again, writing
    to the memory they share with this process. `nice` has the workers give way to this
    one, which goes on with other work meanwhile.
    """

    def __init__(self, jobs: int, job: Any, *, shared: bool = False, nice: int = 0):
        global _JOB
        self._frozen = shared and not plain("collector")
        if self._frozen:
            gc.freeze()
        _JOB = job
        try:
            context = multiprocessing.get_context("fork")
            self._pool = context.Pool(jobs, _worker_start, (self._frozen, nice, os.getpid()))
        finally:
            _JOB = None  # the workers have their copy; this process keeps no reference
        self._running = True

    def __enter__(self) -> Forked:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.cancel()

    def imap(self, function: Callable[[T], R], tasks: Iterable[T]) -> Iterator[R]:
        return self._pool.imap(function, tasks)

    def imap_unordered(self, function: Callable[[T], R], tasks: Iterable[T]) -> Iterator[R]:
        return self._pool.imap_unordered(function, tasks)

    def close(self) -> None:
        """Wait for the workers to finish what they were given, and end them; what was
        frozen stays so, for the workers forked next to share."""
        if self._running:
            self._pool.close()
            self._pool.join()
            self._running = False

    def cancel(self) -> None:
        """Stop the workers, where they still run, and give the collector back its objects."""
        if self._running:
            self._pool.terminate()
            self._pool.join()
            self._running = False
            if self._frozen:
                gc.unfreeze()


def _worker_start(collector_off: bool, nice: int, parent: int) -> None:
    die_with(parent)
    if collector_off:
        gc.disable()
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
