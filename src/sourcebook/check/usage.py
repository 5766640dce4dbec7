"""Warnings about what is written but not yet used, or not yet done."""

from __future__ import annotations

from sourcebook.diagnostics import Diagnostics
from sourcebook.link.graph import Graph
from sourcebook.model.base import Entity
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
                "'build' leaves it out ('build --drafts' and 'serve' mark it) "
                "until draft: true is removed",
            )
            _named_by_published(entity, record, graph, diagnostics)


SHOWN_WITHOUT = {
    "field": "leaves it out",
    "wiki": "shows the link as plain text",
    "cite": "shows the citation as its bare id",
}
"""What a build without drafts does with each way of naming one (a found mention is
left as the words the author wrote, without a link: nothing to warn of)."""


def _named_by_published(
    draft: Entity, record: Record, graph: Graph, diagnostics: Diagnostics
) -> None:
    for ref in graph.incoming(draft.key):
        source = record.get(*ref.source)
        if source is None or source.draft or ref.via not in SHOWN_WITHOUT:
            continue
        diagnostics.warning(
            ref.pos,
            "U004",
            f"{source.KIND} '{source.id}' names {draft.KIND} '{draft.id}', which is a draft",
            f"'build' {SHOWN_WITHOUT[ref.via]} until the draft is published",
        )
