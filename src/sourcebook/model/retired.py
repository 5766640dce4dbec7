"""Corrections bind: the figures the record no longer counts, and from which day.

A figure stops counting — in the scorecard, the tests, the charts, the machine, the
record at a glance, every computed number — on the day a correction that names it
(`corrects`) is known, or from its first day where the record marks it `unreliable`. An
estimate that rests on such a figure stops counting with it. Before that day it counts as
it did then: the record as of an earlier day does not yet hold the correction. Wherever
the figure is listed it is shown struck through, with the correction or the reason beside
it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sourcebook.model.figures import placed_figures
from sourcebook.model.known import Known
from sourcebook.model.record import Record


@dataclass(frozen=True, slots=True)
class Retired:
    """A figure that counts nowhere from `day` on."""

    figure: str
    day: date
    correction: str | None
    """The id of the correction that names it; None for a figure marked unreliable, or one
    resting on such a figure."""
    why: str
    """What the page says beside it: the correction's title, the record's reason, or the
    figure it rests on."""
    rests_on: str | None = None
    """For an estimate: the retired figure it rests on."""


def retired(record: Record, known: Known) -> dict[str, Retired]:
    """Every figure that stops counting, by id, each at the earliest day it does."""
    found: dict[str, Retired] = {}
    for correction in record.of("correction"):
        day = known.entities.get(correction.key, known.close)
        for figure in getattr(correction, "corrects", []):
            _keep(found, Retired(figure, day, correction.id, correction.title))
    placed = placed_figures(record)
    for p in placed:
        if p.figure.unreliable:
            _keep(found, Retired(p.id, known.figures[p.id], None, p.figure.unreliable))
    _rested_on(found, placed)
    return found


def _keep(found: dict[str, Retired], retired: Retired) -> None:
    was = found.get(retired.figure)
    if was is None or retired.day < was.day:
        found[retired.figure] = retired


def _rested_on(found: dict[str, Retired], placed: list) -> None:  # type: ignore[type-arg]
    """Estimates stop counting with the figures they rest on, through every step."""
    estimates = [p for p in placed if p.figure.inputs]
    changed = True
    while changed:
        changed = False
        for p in estimates:
            for name in p.figure.inputs:
                upstream = found.get(name)
                if upstream is None or name == p.id:
                    continue
                was = found.get(p.id)
                if was is None or upstream.day < was.day:
                    why = f"rests on {name}: {upstream.why}"
                    found[p.id] = Retired(p.id, upstream.day, upstream.correction, why, name)
                    changed = True
