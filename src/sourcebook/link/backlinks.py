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
        self._ranks: dict[Key, tuple] = {}
        for term in record.of("term"):
            if isinstance(term, Term) and term.chapters:
                self._by_first_chapter.setdefault(term.chapters[0], []).append(term)
        for terms in self._by_first_chapter.values():
            terms.sort(key=sort_key)

    def __call__(self, entity: Entity) -> Backlinks:
        own = entity.key
        get = self.record.get
        users: dict[Key, Entity] = {}
        for ref in self.graph.incoming(own):
            source = ref.source
            if source != own and source not in users and ref.field != "same_as":
                user = get(*source)
                if user is not None:
                    users[source] = user
        is_term = isinstance(entity, Term)
        chapters: dict[Key, Chapter] = {}
        sources: list[Source] = []
        others: list[Entity] = []
        for key, user in users.items():
            if isinstance(user, Chapter):
                chapters[key] = user
            elif isinstance(user, Source):
                sources.append(user)
            elif not (is_term and isinstance(user, Term)):
                others.append(user)
        result = Backlinks()
        if isinstance(entity, Term):
            for chapter_id in entity.chapters:
                chapter = get("chapter", chapter_id)
                if isinstance(chapter, Chapter):
                    chapters[chapter.key] = chapter
            result.related = self.related_terms(entity)
        result.book = sorted(chapters.values(), key=self._rank)
        result.sources = sorted(sources, key=self._rank)
        result.record = sorted(others, key=self._rank)
        return result

    def _rank(self, entity: Entity) -> tuple:
        """Where the entity stands in a list of backlinks: by kind, then `sort_key`; a
        source by category, then id. Worked out once per entity, as every entity it links
        to lists it."""
        rank = self._ranks.get(entity.key)
        if rank is None:
            if isinstance(entity, Source):
                rank = (entity.category.value, entity.id)
            else:
                rank = (_KIND_ORDER[entity.KIND], sort_key(entity))
            self._ranks[entity.key] = rank
        return rank

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
