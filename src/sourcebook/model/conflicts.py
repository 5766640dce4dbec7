"""Figures that disagree: the same owner, metric, chip, status and day, from different sources.

Two sources conflict when none of the values one gives for such a key is within
TOLERANCE of any the other gives. Check reports each conflict as a warning; the campus
page shows it with both sources.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

TOLERANCE = 0.10
"""Figures within a tenth of each other agree: sources round, and say "about"."""


@dataclass(frozen=True, slots=True)
class Stated:
    """One figure as conflicts compare it."""

    figure: str
    owner: tuple[str, str]
    metric: str
    chip: str | None
    status: str
    as_of: str
    base_value: float
    source: str | None


@dataclass(frozen=True, slots=True)
class Conflict:
    """Figures of one owner, metric, chip, status and day whose sources disagree."""

    owner: tuple[str, str]
    metric: str
    chip: str | None
    status: str
    as_of: str
    figures: tuple[Stated, ...]
    """Every figure of the group, smallest value first."""

    @property
    def spread(self) -> float:
        """How far apart the extremes are, as a share of the larger."""
        low, high = self.figures[0].base_value, self.figures[-1].base_value
        return disagreement(low, high)

    @property
    def sources(self) -> list[str]:
        return sorted({f.source for f in self.figures if f.source})


def disagreement(a: float, b: float) -> float:
    larger = max(abs(a), abs(b))
    return 0.0 if larger == 0 else abs(a - b) / larger


def find_conflicts(figures: Iterable[Stated], tolerance: float = TOLERANCE) -> list[Conflict]:
    """The groups in which two sources disagree beyond `tolerance`."""
    groups: dict[tuple, list[Stated]] = defaultdict(list)
    for stated in figures:
        key = (stated.owner, stated.metric, stated.chip or "", stated.status, stated.as_of)
        groups[key].append(stated)
    conflicts = []
    for key in sorted(groups):
        members = sorted(groups[key], key=lambda s: (s.base_value, s.figure))
        if _disagree(members, tolerance):
            owner, metric, chip, status, as_of = key
            conflicts.append(Conflict(owner, metric, chip or None, status, as_of, tuple(members)))
    return conflicts


def _disagree(members: list[Stated], tolerance: float) -> bool:
    """Whether two sources give values of which none agree.

    A source may give several values for one key (a first phase and a whole campus, say);
    another source that agrees with any of them is not in conflict with it.
    """
    by_source: dict[str | None, list[float]] = defaultdict(list)
    for stated in members:
        by_source[stated.source].append(stated.base_value)
    sources = list(by_source)
    for index, first in enumerate(sources):
        for second in sources[index + 1 :]:
            if all(
                disagreement(a, b) > tolerance for a in by_source[first] for b in by_source[second]
            ):
                return True
    return False
