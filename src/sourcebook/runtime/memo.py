"""Memos of pure functions within one process: a speed trick, not the incremental engine.

A function whose value depends on its arguments alone (a unit parsed, a plural made, a
quote's pattern compiled, a table built once) may remember its values for the life of the
process. Nothing of it is kept from run to run and nothing is read from the record's state
folder: what one run keeps for the next is `sourcebook.incremental`'s. Every such memo
outside the engine is made here (tests/test_incremental_home.py holds the source to it),
so that none can be mistaken for a cache that decides what a build shows.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def memoized(
    maxsize: int | None = None,
) -> Callable[[Callable[..., T]], functools._lru_cache_wrapper[T]]:
    """The function it decorates, remembering up to `maxsize` values (None: all) by its
    arguments, the least recently used let go first. For pure functions only."""
    return functools.lru_cache(maxsize=maxsize)
