"""Backlinks grouped as on the exemplar page: book, record, sources, related terms."""

from __future__ import annotations

from dataclasses import dataclass, field

from sourcebook.link.graph import Graph, Key
from sourcebook.model.base import Entity
from sourcebook.model.kinds import KINDS, Chapter, Source, Term
from sourcebook.model.record import Record

RELATED_LIMIT = 12
_KIND_ORDER = {k.name: i for i, k in enumerate(KINDS)}


@dataclass
class Backlinks:
    book: list[Chapter] = field(default_factory=list)
    """Where the book uses it: chapters, in book order."""
    record: list[Entity] = field(default_factory=list)
    """Where the record uses it: other items, by kind then in their own order."""
    sources: list[Source] = field(default_factory=list)
    """Sources that use it: by category, then id."""
    related: list[Term] = field(default_factory=list)
    """For a term: the author's related terms, then its first chapter's other terms."""

    def __bool__(self) -> bool:
        return bool(self.book or self.record or self.sources or self.related)


def sort_key(entity: Entity) -> tuple:
    """The order in which entities of one kind are listed."""
    if isinstance(entity, Chapter):
        return (entity.number, entity.id)
    row = getattr(entity, "row", None)
    if row is not None:
        return (row, entity.id)
    return (entity.title.casefold(), entity.id)


class BacklinkIndex:
    """Backlinks for any entity of a linked record; built once, asked many times."""

    def __init__(self, record: Record, graph: Graph):
        self.record = record
        self.graph = graph
        self._by_first_chapter: dict[str, list[Term]] = {}
        for term in record.of("term"):
            if isinstance(term, Term) and term.chapters:
                self._by_first_chapter.setdefault(term.chapters[0], []).append(term)
        for terms in self._by_first_chapter.values():
            terms.sort(key=sort_key)

    def __call__(self, entity: Entity) -> Backlinks:
        users: dict[Key, Entity] = {}
        for ref in self.graph.incoming(entity.key):
            if ref.source != entity.key and ref.field != "same_as":
                user = self.record.get(*ref.source)
                if user is not None:
                    users[user.key] = user
        result = Backlinks()
        chapters = {c.key: c for c in users.values() if isinstance(c, Chapter)}
        if isinstance(entity, Term):
            for chapter_id in entity.chapters:
                chapter = self.record.get("chapter", chapter_id)
                if isinstance(chapter, Chapter):
                    chapters[chapter.key] = chapter
            result.related = self.related_terms(entity)
        result.book = sorted(chapters.values(), key=sort_key)
        result.sources = sorted(
            (s for s in users.values() if isinstance(s, Source)),
            key=lambda s: (s.category.value, s.id),
        )
        skip_terms = isinstance(entity, Term)
        result.record = sorted(
            (
                u
                for u in users.values()
                if not isinstance(u, (Chapter, Source)) and not (skip_terms and isinstance(u, Term))
            ),
            key=lambda u: (_KIND_ORDER[u.KIND], sort_key(u)),
        )
        return result

    def related_terms(self, term: Term) -> list[Term]:
        chosen: dict[str, Term] = {}
        for term_id in term.related:
            related = self.record.get("term", term_id)
            if isinstance(related, Term) and related.id != term.id:
                chosen.setdefault(related.id, related)
        for other in self._by_first_chapter.get(term.chapters[0], []) if term.chapters else []:
            if len(chosen) >= RELATED_LIMIT:
                break
            if other.id != term.id:
                chosen.setdefault(other.id, other)
        return list(chosen.values())[:RELATED_LIMIT]
