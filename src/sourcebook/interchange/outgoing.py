"""The record's sources as works, for Zotero to import with the same keys."""

from __future__ import annotations

from sourcebook.interchange.works import Creator, Work
from sourcebook.model.kinds import Category, Party, Source
from sourcebook.model.person_names import name_parts, suffix_of
from sourcebook.model.record import Record

TYPES_BY_CATEGORY = {
    Category.PRESS: "article-newspaper",
    Category.COMPANY: "webpage",
    Category.OTHER: "webpage",
}


def works_of(record: Record) -> list[Work]:
    return [work_of(record, s) for s in record.of("source") if isinstance(s, Source)]


def work_of(record: Record, source: Source) -> Work:
    """The source as Zotero keeps an item: its people and then its organizations as its
    authors, every address (the first as the item's URL), and each field Zotero has."""
    party = record.get("party", source.publisher) if source.publisher else None
    publisher = party.title if isinstance(party, Party) else ""
    authors = [_creator(p) for p in (record.get("person", a) for a in source.authors) if p]
    bodies = (record.get("party", o) for o in source.organizations)
    authors += [Creator(literal=body.title) for body in bodies if body is not None]
    return Work(
        key=source.citation_key or source.id,
        type=source.csl_type or _type(source),
        title=source.title,
        authors=authors,
        container=source.publication or (publisher if _periodical(source) else ""),
        publisher=publisher if not (_periodical(source) and not source.publication) else "",
        date=source.date or "",
        url=source.urls[0] if source.urls else "",
        more_urls=source.urls[1:],
        doi=source.doi or "",
        pages=source.pages or "",
        volume=source.volume or "",
        place=source.publisher_place or "",
        accessed=source.accessed or "",
        language=source.language or "",
    )


def _periodical(source: Source) -> bool:
    """A newspaper's, magazine's or journal's article: Zotero files its publisher's name as
    the publication, the one field such an item has for it."""
    return (source.csl_type or _type(source)).startswith("article")


def _type(source: Source) -> str:
    if source.category is Category.RESEARCH:
        return "report" if source.italic_title else "article-journal"
    return TYPES_BY_CATEGORY[source.category]


def _creator(person: object) -> Creator:
    given, family = name_parts(person)
    if not given:
        return Creator(literal=family)
    return Creator(given=given, family=family, suffix=suffix_of(getattr(person, "title", "")))
