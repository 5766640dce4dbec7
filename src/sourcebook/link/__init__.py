"""Stage 2, link: explicit references, wiki links, citations and found mentions, as one graph."""

from __future__ import annotations

from sourcebook.incremental import Memo
from sourcebook.link.graph import Graph, Ref, link_record
from sourcebook.model.record import Record

__all__ = ["Graph", "Ref", "link_record", "without_drafts"]


def without_drafts(
    record: Record, graph: Graph, drafts: bool = False, kept: Memo | None = None
) -> tuple[Record, Graph]:
    """What is published of a linked record: all of it with `drafts`, else the record
    without its drafts, linked again so that no link leads to one (`kept`: as for
    `link_record`)."""
    if drafts or not record.has_drafts():
        return record, graph
    record = record.without_drafts()
    return record, link_record(record, kept)
