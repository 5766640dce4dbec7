"""How many forked worker processes a stage may spread its work over."""

from __future__ import annotations

import multiprocessing
import os
import threading

MOST = 8
"""Workers at most, however many cores: past that, sending work out costs what it saves."""


def worker_count(items: int, parallel_from: int) -> int:
    """One worker per core for `items` at or past `parallel_from`; 1 (no workers) below it.

    A process with other threads (the server) never forks: a fork copies locks held by
    threads that do not exist in the child. Nor does a platform without fork.
    """
    if items < parallel_from or threading.active_count() > 1:
        return 1
    if "fork" not in multiprocessing.get_all_start_methods():
        return 1
    return max(1, min(os.cpu_count() or 1, MOST))
