"""What templates ask of the record, as `query`: an entity by its id, what refers to an
entity and what it refers to, a party's roles, a release's tables of an entity, and the
names a page gives things ('Chapter 1', 'Campus').
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from sourcebook.incremental import READS, SharedMemo, Table, TracedRecord, read_field
from sourcebook.link.backlinks import BacklinkIndex, Backlinks
from sourcebook.link.graph import Graph
from sourcebook.model.base import Entity
from sourcebook.model.kinds import Campus, CampusParty, Chapter, Source, Term, kind_by_name
from sourcebook.model.record import Record
from sourcebook.model.refs import Key, Ref
from sourcebook.model.watch import Summary
from sourcebook.publish.site.pages.copies import CopyContext
from sourcebook.publish.site.pages.links import Links
from sourcebook.publish.site.pages.releases import Release, entity_tables
from sourcebook.publish.site.view.citations import Citations
from sourcebook.publish.site.view.watched import Address, CopyPage, HeldCopy, SiteWatch

CATEGORY_LABELS = {
    "company": "What the companies say",
    "press": "The press",
    "research": "Research",
    "other": "Books, essays and the rest",
}

User = tuple[str, str, str]
"""(what it is, its URL or '', its name): one entity of a 'Used by' line."""


class Query:
    def __init__(
        self,
        record: Record,
        graph: Graph,
        links: Links,
        citations: Citations,
        releases: Sequence[Release] = (),
    ):
        self.record = record
        self.links = links
        self.citations = citations
        self.releases = releases
        self._graph = graph
        plain = record.untraced() if isinstance(record, TracedRecord) else record
        self._backlinks = BacklinkIndex(plain, graph)  # noted by what it is asked
        self._backlinks_of = SharedMemo()
        self._users = SharedMemo()
        self.shared: tuple[SharedMemo, ...] = (self._users,)
        """What it makes that pages share (as text, not entities), for the next build to
        take what is unchanged."""
        roles = _roles_by_party(record)
        # What refers to what, read through the engine's tables: each is compared from
        # build to build by what the entities refer to (the site's `Snapshot`).
        self._incoming: Table[Key, list[Ref]] = Table(("in",), make=graph.incoming)
        self._outgoing: Table[Key, list[Ref]] = Table(("out",), make=graph.outgoing)
        self._first: Table[str, list[Term]] = Table(
            ("first",), make=lambda chapter: self._backlinks._by_first_chapter.get(chapter, [])
        )
        """The terms each chapter is the first of, by chapter id."""
        self._roles: Table[str, list[tuple[Campus, CampusParty]]] = Table(
            ("roles",), make=lambda party: roles.get(party, [])
        )
        """The campuses that name each party, with their entries, by party id."""
        self._titles: Table[Key, str] = Table(("title",), make=self._title)
        """Each entity's title alone, for a line that names it among many."""
        self.watch = SiteWatch(record, links.urls, citations.library, citations.proven_table)
        """The sources' addresses as of the last watch, and the Library's copies."""

    # Entities by their ids.

    # A template's: what it reads of the entity it is given is noted as it reads it (a
    # template's `a.b`, and the view's parts it hands the entity to); Python reads the
    # record itself (`SiteView.record`).

    def entity(self, kind: str, entity_id: str | None) -> Entity | None:
        return Record.get(self.record, kind, entity_id) if entity_id else None

    def entities(self, kind: str, ids: list[str]) -> list[Entity]:
        """Those of `ids` the record holds, in their order."""
        found = (Record.get(self.record, kind, i) for i in ids)
        return [e for e in found if e is not None]

    def same_as(self, term: Term) -> Entity | None:
        """The party, person or campus a term names, where it says so."""
        same_as = read_field(term, "same_as")
        if not same_as or ":" not in same_as:
            return None
        return Record.get(self.record, *same_as.split(":", 1))

    # What refers to what.

    def backlinks(self, entity: Entity) -> Backlinks:
        """Once per entity: its page and its JSON twin both show them."""
        return READS.lookup(self._backlinks_of, entity.key, self._backlinks_read, entity)

    def _backlinks_read(self, entity: Entity) -> Backlinks:
        entity = self._read(entity)
        self._incoming.get(entity.key)
        chapters = read_field(entity, "chapters") if isinstance(entity, Term) else []
        if chapters:  # its related terms are its first chapter's other terms
            self._first.get(chapters[0])
        found = self._backlinks(entity)
        for user in (*found.book, *found.record, *found.sources, *found.related):
            self._placed(user)
        return found

    def _placed(self, user: Entity) -> None:
        """Read what places a user in a list of backlinks, and what the list shows of it: a
        chapter's number, an indicator's row (all of either), a source's category (where
        its page is), anything else's title; each with its page."""
        if isinstance(user, Chapter) or getattr(user, "row", None) is not None:
            self.record.get(*user.key)
        elif not isinstance(user, Source):
            self._titles[user.key]
        self._url(user.key)

    def _read(self, entity: Entity) -> Entity:
        """The entity as the record holds it, read through it (and so noted as read)."""
        return self.record.get(*entity.key) or entity

    def used_by(self, entity: Entity) -> list[User]:
        """Its backlinks as a 'Used by' line shows them, chapters first, then items, then
        sources: ('', URL, 'Chapter 1'), ('Term', URL, 'Cluster'), ('', URL, 'Hawkins,
        31 July 2026'). A source category lists thousands of users, many of them more than
        once: each is made once."""
        links = self.backlinks(entity)
        return [self._user(user) for user in (*links.book, *links.record, *links.sources)]

    def _user(self, user: Entity) -> User:
        return READS.lookup(self._users, user.key, self._user_line, user)

    def _user_line(self, user: Entity) -> User:
        """A user as a line names it: a term or a campus by its title and page alone (an
        edit of its other fields changes no line)."""
        if isinstance(user, Chapter):
            user = self._read(user)
            return ("", self.links.url(user), self.chapter_label(user))  # type: ignore[arg-type]
        if isinstance(user, Source):
            return ("", self._url(user.key), self.citations.short(user))
        return (self.label(user), self._url(user.key), self._titles[user.key])

    def _title(self, key: Key) -> str:
        entity = Record.get(self.record, *key)  # noted as its title alone
        return entity.title if entity is not None else ""

    def _url(self, key: Key) -> str:
        """Where the entity's page is, read as `links` reads it (not the entity)."""
        entity = Record.get(self.record, *key)
        return self.links.url(entity) if entity is not None else ""

    def users(self, entity: Entity, kind: str) -> list[Entity]:
        """Entities of `kind` that refer to `entity`, in their own order, once each."""
        seen: dict[str, Entity] = {}
        for ref in self._incoming[entity.key]:
            if ref.source[0] == kind and ref.field != "same_as":
                user = self.record.get(*ref.source)
                if user is not None:
                    seen[user.id] = user
        return [seen[i] for i in sorted(seen)]

    def used(self, entity: Entity, kind: str) -> list[Entity]:
        """Entities of `kind` that `entity` refers to, once each, in id order."""
        found = {
            ref.target[1]
            for ref in self._outgoing[entity.key]
            if ref.target[0] == kind and ref.resolved and ref.target != entity.key
        }
        entities = (self.record.get(kind, i) for i in sorted(found))
        return [e for e in entities if e is not None]

    def chapter_terms(self, chapter: Chapter) -> list[Term]:
        """Terms the chapter introduces (it is first in their `chapters`)."""
        return self._first[chapter.id]

    def roles(self, party: Entity) -> list[tuple[Campus, CampusParty]]:
        """Each campus the party has a role at, with its entry there."""
        return self._roles[party.id]

    def in_release(self, entity: Entity) -> list[tuple[str, str, str]]:
        """(table, CSV URL, JSON URL) of each table of the latest release with `entity`'s rows."""
        if not self.releases:
            return []
        latest = self.releases[0]
        return [
            (
                name,
                self.links.release_file(latest, latest.tables[name]["csv"]),
                self.links.release_file(latest, latest.tables[name]["json"]),
            )
            for name in entity_tables(latest, entity)
        ]

    # A source on the live web, and its copies in the Library.

    def addresses(self, source: Source) -> list[Address]:
        """Each address of the source with its state as of the last watch (see
        `watched.py`): where dead or changed, the copies to send a reader to first."""
        return self.watch.addresses(source)

    def copies(self, source: Source) -> list[HeldCopy]:
        """The source's copies in the Library, each a link to its page."""
        return self.watch.copies(source)

    def held(self, copy: CopyContext, text: bool = True) -> CopyPage | None:
        """What the Library's page of one copy shows (its text only where `text`): `copy`
        is the page's context, as `library.html` and `library_item.html` are given it."""
        return self.watch.page(copy, text)

    def watch_report(self) -> Summary | None:
        """The last watch's counts of addresses by state, category and age of the source."""
        return self.watch.report()

    # A source as reference managers read it.

    def citation_meta(self, source: Source) -> list[tuple[str, str]]:
        """The citation_* meta tags of a source's own page, for Zotero's connector."""
        from sourcebook.publish.site.formats.citation_meta import citation_meta

        source = self._read(source)  # type: ignore[assignment]
        page = self.links.absolute(self.links.source_page(source))
        return citation_meta(self.record, source, page)

    def coins(self, source: Source) -> str:
        """The source as a COinS title, for reference managers that read those."""
        from sourcebook.publish.site.formats.citation_meta import coins

        return coins(self.record, self._read(source))  # type: ignore[arg-type]

    # What a page calls things.

    def label(self, entity: Entity) -> str:
        """What the entity is, as the exemplar says it: 'Campus', 'Scorecard indicator'."""
        kind = kind_by_name(entity.KIND)
        return kind.label if kind else entity.KIND

    def chapter_label(self, chapter: Chapter) -> str:
        """'Chapter 1'; a chapter numbered 0 (a preface) by its title."""
        chapter = self._read(chapter)  # type: ignore[assignment]
        return f"Chapter {chapter.number}" if chapter.number else chapter.title

    def chapter_name(self, chapter: Chapter) -> str:
        """'Chapter 1 — The Stakes'."""
        chapter = self._read(chapter)  # type: ignore[assignment]
        return f"Chapter {chapter.number} — {chapter.title}" if chapter.number else chapter.title

    def category_label(self, category: str) -> str:
        """A category of sources as its page is headed: 'The press'."""
        return CATEGORY_LABELS.get(category, category.capitalize())


def _roles_by_party(record: Record) -> dict[str, list[tuple[Campus, CampusParty]]]:
    roles: dict[str, list[tuple[Campus, CampusParty]]] = defaultdict(list)
    for campus in record.of("campus"):
        assert isinstance(campus, Campus)
        for entry in campus.parties:
            roles[entry.party].append((campus, entry))
    return roles
