"""Numbers that must be unique: scorecard rows and chapter numbers."""

from __future__ import annotations

from sourcebook.diagnostics import Diagnostics
from sourcebook.link.graph import Graph
from sourcebook.model.record import Record


def check_structure(record: Record, graph: Graph, diagnostics: Diagnostics) -> None:
    _unique(record, "indicator", "row", "S007", "scorecard row", diagnostics)
    _unique(record, "chapter", "number", "S008", "chapter number", diagnostics)


def _unique(
    record: Record, kind: str, field: str, code: str, label: str, diagnostics: Diagnostics
) -> None:
    seen: dict[int, str] = {}
    for entity in record.of(kind):
        value = getattr(entity, field)
        if value in seen:
            diagnostics.error(
                entity.pos(field),
                code,
                f"{label} {value} is also used by '{seen[value]}'",
                f"give each {kind} its own {field}",
            )
        else:
            seen[value] = entity.id
