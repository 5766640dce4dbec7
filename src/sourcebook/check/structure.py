"""Numbers that must be unique (scorecard rows, chapter numbers), and the one paper."""

from __future__ import annotations

from sourcebook.diagnostics import Diagnostics
from sourcebook.link.graph import Graph
from sourcebook.model.record import Record


def check_structure(record: Record, graph: Graph, diagnostics: Diagnostics) -> None:
    _unique(record, "indicator", "row", "S007", "scorecard row", diagnostics)
    _unique(record, "chapter", "number", "S008", "chapter number", diagnostics)
    for paper in sorted(record.of("paper"), key=lambda p: p.id)[1:]:
        diagnostics.error(
            paper.pos("title"),
            "S010",
            f"paper '{paper.id}': a record holds one paper, published as The Paper",
            "make it a section of the one paper, or keep it outside the record",
        )


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
