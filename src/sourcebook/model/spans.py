"""Spans of a text (start, end offsets): joined where they overlap, and looked up by
bisection, so that asking whether each of many places stands in one of many spans stays
linear in the text."""

from __future__ import annotations

import bisect
from collections.abc import Iterable

__all__ = ["merged", "within"]


def merged(spans: Iterable[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans sorted, those that overlap or touch joined: disjoint, for `within`."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(end, out[-1][1]))
        else:
            out.append((start, end))
    return out


def within(spans: list[tuple[int, int]], at: int) -> bool:
    """Whether offset `at` stands inside one of `spans` (sorted and disjoint, as `merged`
    makes them): one bisection, however many there are."""
    index = bisect.bisect_right(spans, (at, _PAST)) - 1
    return index >= 0 and spans[index][0] <= at < spans[index][1]


_PAST = 1 << 62
"""An offset past the end of any text."""
