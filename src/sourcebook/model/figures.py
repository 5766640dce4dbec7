"""Figures where they stand in the record, each with its id and its value in base units."""

from __future__ import annotations

from dataclasses import dataclass

from sourcebook.diagnostics import Pos
from sourcebook.model.base import Entity
from sourcebook.model.conflicts import Stated
from sourcebook.model.kinds import Figure, Grade
from sourcebook.model.record import Record
from sourcebook.model.units import UnitError, to_base

EVIDENCED = frozenset({Grade.DOCUMENTED, Grade.OBSERVED, Grade.REPORTED})
"""The grades that count as evidence; docs/record-format.md defines them."""

GRADE_RANK = {grade: rank for rank, grade in enumerate(Grade, start=1)}
"""1 for the best-evidenced grade (documented), 5 for the least (estimated)."""

OWNER_KINDS = ("campus", "party")


@dataclass(frozen=True, slots=True)
class Placed:
    """A figure with the entity that holds it and its place in that entity's list."""

    owner: Entity
    index: int
    figure: Figure

    @property
    def id(self) -> str:
        """The figure's own id, or `kind:owner:n` (n from 1) where it has none."""
        return self.figure.id or f"{self.owner.KIND}:{self.owner.id}:{self.index + 1}"

    @property
    def evidenced(self) -> bool:
        return self.figure.grade in EVIDENCED

    def pos(self, field: str | None = None) -> Pos:
        path = ("figures", self.index) if field is None else ("figures", self.index, field)
        return self.owner.pos(*path)

    def stated(self) -> Stated | None:
        """The figure as conflicts compare it; None where its unit does not parse."""
        base = self.base()
        if base is None:
            return None
        f = self.figure
        return Stated(
            self.id, self.owner.key, f.metric, f.chip, f.status.value, f.as_of, base[0], f.source
        )

    def base(self) -> tuple[float, str] | None:
        """(value in its dimension's base unit, the dimension's name); None for a bad unit."""
        try:
            value, dimension = to_base(self.figure.value, self.figure.unit)
        except UnitError:
            return None
        return value, dimension.name


def placed(owner: Entity) -> list[Placed]:
    """The figures of a campus or party, each at its place in the list as written (which a
    record cut to an earlier day keeps: see `model/known.py`)."""
    figures = getattr(owner, "figures", [])
    index = owner.origin.figure_index or range(len(figures))
    return [Placed(owner, i, figure) for i, figure in zip(index, figures, strict=True)]


def placed_figures(record: Record) -> list[Placed]:
    """Every figure of every campus and party, in record order (listed once for a record
    as it is: `Record.once`; the list is shared, not to be changed)."""
    return record.once("placed figures", _placed_figures)


def _placed_figures(record: Record) -> list[Placed]:
    return [p for kind in OWNER_KINDS for owner in record.of(kind) for p in placed(owner)]
