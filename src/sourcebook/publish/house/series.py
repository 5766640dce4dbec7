"""Where the series' sources were wrong: every correction of a source, in every volume,
shown under every book that cites that source, however each volume names it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from markupsafe import Markup

from sourcebook.check.house import volume_name
from sourcebook.check.result import Checked, CheckedHouse
from sourcebook.link.series import SourceKey, Works
from sourcebook.model.base import day_start
from sourcebook.model.kinds import Correction, Source
from sourcebook.model.record import Record
from sourcebook.publish.site.pages.series import InSeries
from sourcebook.publish.site.view.site_view import SiteView
from sourcebook.publish.site.view.wording import book_title, day, ordinal

CORRECTIONS_URL = "/corrections"
COUNTED = (
    ("chapter", "chapter", "chapters"),
    ("term", "term", "terms"),
    ("campus", "campus", "campuses"),
    ("indicator", "scorecard row", "scorecard rows"),
    ("test", "test", "tests"),
    ("source", "source", "sources"),
    ("person", "person", "people"),
    ("party", "party", "parties"),
    ("correction", "correction", "corrections"),
)


def book_url(name: str) -> str:
    """The series' corrections of sources, with this book's part first."""
    return f"{CORRECTIONS_URL}?book={quote(name, safe='/')}"


def group_anchor(name: str, source_id: str) -> str:
    return f"{name}:{source_id}"


@dataclass(frozen=True)
class Book:
    name: str
    """Its base path without slashes: `vol1`."""
    record: Record
    checked: Checked

    @property
    def url(self) -> str:
        return f"/{self.name}/"

    @property
    def anchor(self) -> str:
        return f"book-{self.name}"

    @property
    def title(self) -> Markup:
        return book_title(self.record.settings.book)

    @property
    def plain_title(self) -> str:
        book = self.record.settings.book
        return f"{book.title}: {book.subtitle}" if book.subtitle else book.title

    @property
    def volume(self) -> str:
        return f"the {ordinal(self.record.settings.book.volume)} volume"

    @property
    def closes(self) -> str:
        """The day its record closes, or "" while it is open."""
        closes = self.record.settings.book.closes
        return day(closes) if closes else ""

    def counts(self) -> list[tuple[int, str]]:
        """How many of each kind the record holds, kinds it has none of left out."""
        found = [(len(self.record.entities[kind]), one, many) for kind, one, many in COUNTED]
        return [(n, one if n == 1 else many) for n, one, many in found if n]

    def citation(self) -> Markup:
        """The book in the house style, as the one who says a source was wrong."""
        book = self.record.settings.book
        text = Markup("{}, ").format(book.author) if book.author else Markup("")
        text += Markup("<cite>{}</cite>").format(self.plain_title)
        if book.series:
            text += Markup(", {} of {}").format(self.volume, book.series)
        return text + Markup(" ({}, {})").format(book.house, book.stands_at().year)


@dataclass(frozen=True)
class Logged:
    """One correction of a source, as the volume that logged it has it."""

    book: Book
    correction: Correction

    @property
    def key(self) -> str:
        return f"{self.book.name}:{self.correction.id}"

    @property
    def date(self) -> str:
        return self.correction.date


@dataclass
class Group:
    """One source as one book cites it, and every correction of it across the series."""

    book: Book
    source: Source
    corrections: list[Logged]
    cited_by: list[tuple[Book, Source]] = field(default_factory=list)
    """Every book of the series that cites the same work, this one included."""

    @property
    def anchor(self) -> str:
        return group_anchor(self.book.name, self.source.id)


@dataclass
class Part:
    """One book's part of the page: the wrong sources it cites."""

    book: Book
    groups: list[Group]


@dataclass
class SeriesCorrections:
    books: list[Book]
    parts: list[Part]
    logged: list[Logged]
    """Every correction of a source in the series, newest first."""

    @classmethod
    def gather(cls, checked: CheckedHouse) -> SeriesCorrections:
        assert checked.works is not None
        books = [
            Book(volume_name(one.record), one.record, one)
            for _, one in checked.volumes
            if one.record is not None
        ]
        by_name = {book.name: book for book in books}
        works = checked.works
        by_work: dict[SourceKey, list[Logged]] = {}
        logged = []
        for book in books:
            for correction in _source_corrections(book.record):
                assert correction.source is not None
                item = Logged(book, correction)
                logged.append(item)
                by_work.setdefault(works.work((book.name, correction.source)), []).append(item)
        logged.sort(key=lambda c: (day_start(c.date), c.key), reverse=True)
        for items in by_work.values():
            items.sort(key=lambda c: (day_start(c.date), c.key), reverse=True)
        return cls(books, _parts(books, by_name, works, by_work), logged)

    def in_series(self, name: str) -> InSeries:
        """What volume `name`'s pages say of the series: its link to this page, and each of
        its sources corrected somewhere in the series."""
        url = book_url(name)
        corrected = {
            group.source.id: f"{url}#{group.anchor}"
            for part in self.parts
            if part.book.name == name
            for group in part.groups
        }
        return InSeries(url, corrected, home="/")


def _source_corrections(record: Record) -> list[Correction]:
    return [
        c
        for c in record.of("correction")
        if isinstance(c, Correction) and c.scope.value == "source" and c.source
    ]


def _parts(
    books: Sequence[Book],
    by_name: dict[str, Book],
    works: Works,
    by_work: dict[SourceKey, list[Logged]],
) -> list[Part]:
    members = works.members()
    parts = []
    for book in books:
        groups = []
        for work, items in by_work.items():
            for name, source_id in members[work]:
                if name != book.name:
                    continue
                cited = [(by_name[n], works.sources[(n, s)]) for n, s in members[work]]
                groups.append(Group(book, works.sources[(name, source_id)], items, cited))
        groups.sort(key=lambda g: (g.source.title.casefold(), g.source.id))
        parts.append(Part(book, groups))
    return parts


class HouseView:
    """What the house's templates ask of the series: each volume's prose and citations, as
    that volume renders them, so that every link leads to the volume's own pages."""

    def __init__(self, series: SeriesCorrections, views: dict[str, SiteView]):
        self.series = series
        self._views = views

    def _view(self, book: Book) -> SiteView:
        view = self._views[book.name]
        view.prose.begin(CORRECTIONS_URL)
        return view

    def quotes(self, book: Book | None = None) -> tuple[int, int]:
        """(proved, made): the quotes a volume makes (every volume's, where none is named)
        and how many the Library proves, as its compiled record counts them."""
        names = [book.name] if book is not None else list(self._views)
        counted = [self._views[name].computed.derived.overview for name in names]
        made = sum(o.quotes for o in counted if o is not None)
        return sum(o.quotes_proved for o in counted if o is not None), made

    def proved(self) -> str:
        """What the series proves of its quotes, as a sentence counted, never typed."""
        proved, made = self.quotes()
        if made == 0:
            return "No volume quotes a source yet."
        if proved == made:
            return (
                f"Every one of the {made:,} quotes its volumes make is proven against an "
                "archived copy of its source."
            )
        return (
            f"Of the {made:,} quotes its volumes make, {proved:,} are proven against an "
            "archived copy of their source; the rest cite sources of which no copy is held yet."
        )

    def prose(self, logged: Logged, field_name: str) -> Markup:
        return self._view(logged.book).prose.html(logged.correction, field_name, inline=True)

    def plain(self, logged: Logged, field_name: str) -> str:
        return self._view(logged.book).prose.plain(logged.correction, field_name)

    def short(self, book: Book, source: Source) -> str:
        return self._view(book).citations.short(source)

    def cite(self, book: Book, source: Source) -> Markup:
        return self._view(book).prose.cite(source)

    def source_page(self, book: Book, source: Source) -> str:
        return self._views[book.name].urls.source_page(source)

    def logged_at(self, logged: Logged) -> str:
        return self._views[logged.book.name].urls.entity(logged.correction)

    def evidence(self, logged: Logged) -> list[Source]:
        """The sources that show what is right: those the correction cites there."""
        record, graph = logged.book.record, logged.book.checked.graph
        found: dict[str, Source] = {}
        for ref in graph.outgoing(logged.correction.key):
            if ref.via == "cite" and ref.field == "right":
                source = record.get("source", ref.target[1])
                if isinstance(source, Source):
                    found.setdefault(source.id, source)
        return list(found.values())

    def as_json(self, base_url: str) -> dict[str, Any]:
        """The corrections page's JSON twin."""
        return {
            "books": [
                {
                    "book": part.book.name,
                    "title": part.book.plain_title,
                    "url": part.book.url,
                    "anchor": part.book.anchor,
                    "sources": [self._group_json(group) for group in part.groups],
                }
                for part in self.series.parts
            ],
            "corrections": len(self.series.logged),
            "url": base_url + CORRECTIONS_URL,
        }

    def _group_json(self, group: Group) -> dict[str, Any]:
        return {
            "anchor": group.anchor,
            "source": group.source.id,
            "title": group.source.title,
            "citation": self.short(group.book, group.source),
            "url": self.source_page(group.book, group.source),
            "cited_by": [
                {"book": book.name, "source": source.id, "url": self.source_page(book, source)}
                for book, source in group.cited_by
            ],
            "corrections": [self._logged_json(item) for item in group.corrections],
        }

    def _logged_json(self, logged: Logged) -> dict[str, Any]:
        return {
            "id": logged.key,
            "title": logged.correction.title,
            "date": logged.date,
            "wrong": self.plain(logged, "wrong"),
            "right": self.plain(logged, "right"),
            "by": {
                "book": logged.book.name,
                "title": logged.book.plain_title,
                "author": logged.book.record.settings.book.author,
                "url": self.logged_at(logged),
            },
            "evidence": [
                {
                    "source": s.id,
                    "citation": self.short(logged.book, s),
                    "url": self.source_page(logged.book, s),
                }
                for s in self.evidence(logged)
            ],
        }
