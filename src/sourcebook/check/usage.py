"""Warnings about what is written but not yet used, or not yet done."""

from __future__ import annotations

from sourcebook.diagnostics import Diagnostics
from sourcebook.link.graph import Graph
from sourcebook.model.record import Record


def check_usage(record: Record, graph: Graph, diagnostics: Diagnostics) -> None:
    for term in record.of("term"):
        if not any(r.source != term.key and r.field != "same_as" for r in graph.incoming(term.key)):
            diagnostics.warning(
                term.pos("title"),
                "U001",
                f"term '{term.id}' is used by nothing in the record",
                "mention it in prose, list it as related, or remove it",
            )
    for entity in record:
        if entity.draft:
            diagnostics.warning(
                entity.pos("draft"),
                "U002",
                f"{entity.KIND} '{entity.id}' is a draft",
                "the site marks it as a draft until draft: true is removed",
            )
