"""The site's sections, in one table: each one's URL, its link in the menu, its template and
the pages it makes.

A section is added here and nowhere else: the site's URLs take its path (`paths`,
`site_urls`), the navigation and the masthead's menu its label and heading, `site_pages`
its pages, in the table's order (the exemplar's). A section exists only where the record
has something to put in it (an entity of its `kind`, or what its `filled` says); the
corrections pages and the consent page always exist: "nothing has been found wrong" is a
statement a reader may want.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from sourcebook.link.backlinks import sort_key
from sourcebook.model.base import Entity, day_start
from sourcebook.model.kinds import Category, Correction, Source
from sourcebook.model.person_names import name_parts
from sourcebook.model.record import Record
from sourcebook.model.settings import Site
from sourcebook.publish.site.pages.copies import copy_contexts
from sourcebook.publish.site.pages.page import (
    CSV_TEMPLATE,
    FEED_TEMPLATE,
    PDF_TEMPLATE,
    MachineContext,
    Page,
)
from sourcebook.publish.site.pages.urls import Urls

if TYPE_CHECKING:
    from sourcebook.publish.site.pages.releases import Release

    Releases = Sequence[Release]

BOOK, BUILDOUT, EVIDENCE, ABOUT = "The book", "The buildout", "The evidence", "About"
MENU_HEADINGS = (BOOK, BUILDOUT, EVIDENCE, ABOUT)
"""The masthead menu's headings, in its order; each section in the menu stands under one."""


@dataclass(frozen=True, slots=True)
class Section:
    """One section of the site, as the table below declares it."""

    name: str
    """What code and templates call it: `links.section('glossary')`."""
    path: str | None
    """Its URL below the volume ('glossary' is /vol1/glossary); None for a section whose
    pages are its entities' own (the scenarios)."""
    label: str
    """Its link in the navigation; '' for a section the menu does not list (the Library)."""
    heading: str
    """The menu's heading it stands under (one of `MENU_HEADINGS`)."""
    template: str
    """The template of its own page (or of each of its pages, where it has no list)."""
    pages: Callable[[Section, Record, Urls, Sequence[Release]], Iterator[Page]]
    """The pages it makes, its own first."""
    kind: str = ""
    """The kind of entity it lists: the section exists where the record has one, and its
    link counts them. '' for a section that lists none."""
    filled: Callable[[Record, Sequence[Release]], bool] | None = None
    """Whether the record fills a section that lists no kind; None for one always there."""
    each: bool = False
    """The menu links each of its entities, named by it, rather than the section."""
    drawn: bool = False
    """Its page shows the charts' drawings, so it is written once the drawing is done."""
    beside: Mapping[str, str] = field(default_factory=dict)
    """Files it writes beside its page, by name: their paths below the volume."""

    def page(self, urls: Urls, context: dict[str, Any], **at: Any) -> Page:
        """The section's own page."""
        return Page(urls.section(self.name), self.template, context, **at)

    @property
    def in_menu(self) -> bool:
        return bool(self.label) or self.each

    def exists(self, record: Record, releases: Sequence[Release]) -> bool:
        if self.filled is not None:
            return self.filled(record, releases)
        return not self.kind or bool(record.of(self.kind))


def ordered(record: Record, kind: str) -> list[Entity]:
    return sorted(record.of(kind), key=sort_key)


def letter(title: str) -> str:
    """The letter a title is filed under: A–Z, or # for anything else."""
    first = unicodedata.normalize("NFKD", title.strip()[:1] or "#")[:1].upper()
    return first if first.isascii() and first.isalpha() else "#"


def bibliography_key(record: Record, source: Entity) -> tuple[str, str, str]:
    """Filed by the first author's surname, else the publication, else the title."""
    assert isinstance(source, Source)
    lead = source.title
    person = record.get("person", source.authors[0]) if source.authors else None
    party = record.get("party", source.publisher) if source.publisher else None
    if person is not None:
        lead = name_parts(person)[1]
    elif source.publication or party is not None:
        lead = source.publication or party.title  # type: ignore[union-attr]
    return (lead.casefold(), source.date or "", source.id)


def chart_list(record: Record) -> list[Entity]:
    return sorted(record.of("chart"), key=lambda c: (c.order, c.id))  # type: ignore[attr-defined]


def scenario_list(record: Record) -> list[Entity]:
    return sorted(record.of("scenario"), key=lambda s: s.id)


class ConsentPolicy:
    """The Consent page's context for its JSON twin: what the sign-up service stores, and
    for how long, as the page says it (the page reads the same from its `notify`)."""

    def api_document(self, view: Any) -> dict[str, Any]:
        from sourcebook.notify.site import consent_document

        return consent_document(view.notify)


def _entity_pages(record: Record, urls: Urls, kind: str, template: str) -> Iterator[Page]:
    for entity in record.of(kind):
        yield Page(urls.entity(entity), template, {"entity": entity})


def _ledger(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    yield s.page(urls, {"campuses": ordered(record, "campus")})
    yield from _entity_pages(record, urls, "campus", "campus.html")


def _tests(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    tests = sorted(record.of("test"), key=lambda t: (day_start(t.deadline), sort_key(t)))  # type: ignore[attr-defined]
    yield s.page(urls, {"tests": tests})
    yield from _entity_pages(record, urls, "test", "test.html")


def _scorecard(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    yield s.page(urls, {"rows": ordered(record, "indicator")})


def _data(s: Section, record: Record, urls: Urls, releases: Releases) -> Iterator[Page]:
    yield s.page(urls, {"releases": list(releases)})
    if urls.origin:
        feed = {"feed_name": "releases", "feed_title": "Data releases"}
        yield Page(urls.section("releases-feed"), FEED_TEMPLATE, feed, listed=False)


def _companion(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    yield s.page(urls, {"chapters": ordered(record, "chapter")})


def _observatory(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    charts = chart_list(record)
    yield s.page(urls, {"charts": charts})
    for chart in charts:
        yield Page(urls.chart_csv(chart), CSV_TEMPLATE, {"chart": chart}, listed=False)


def _machine(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    yield s.page(urls, {"machine": MachineContext()})


def _scenarios(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    for scenario in scenario_list(record):
        campus = record.get("campus", scenario.campus)  # type: ignore[attr-defined]
        yield Page(urls.entity(scenario), s.template, {"entity": scenario, "campus": campus})


def _glossary(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    terms = ordered(record, "term")
    groups: dict[str, list[Entity]] = {}
    for term in terms:
        groups.setdefault(letter(term.title), []).append(term)
    yield s.page(urls, {"terms": terms, "groups": groups})
    yield from _entity_pages(record, urls, "term", "term.html")


def _people(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    people = sorted(record.of("person"), key=lambda p: (name_parts(p)[1].casefold(), p.id))
    yield s.page(urls, {"people": people})
    yield from _entity_pages(record, urls, "person", "person.html")


def _sources(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    by_category: dict[str, list[Source]] = {c.value: [] for c in Category}
    for source in sorted(record.of("source"), key=lambda s: bibliography_key(record, s)):
        assert isinstance(source, Source)
        by_category[source.category.value].append(source)
    filled = {c: s for c, s in by_category.items() if s}
    yield s.page(urls, {"categories": filled})
    for category, sources in filled.items():
        context = {"category": category, "sources": sources}
        yield Page(urls.source_category(category), "source_category.html", context)
        for source in sources:
            yield Page(urls.source_page(source), "source.html", {"source": source})


def _notes(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    yield s.page(urls, {"chapters": ordered(record, "chapter")})
    yield from _entity_pages(record, urls, "chapter", "chapter.html")


def _corrections(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    scope = "book" if s.name == "corrections" else "source"
    chosen = [c for c in record.of("correction") if isinstance(c, Correction)]
    chosen = [c for c in chosen if c.scope.value == scope]
    chosen.sort(key=lambda c: (day_start(c.date), c.id), reverse=True)
    context: dict[str, Any] = {"corrections": chosen, "scope": scope}
    if scope == "source":
        context["disputed"] = [s for s in record.of("source") if s.disputed_by]  # type: ignore[attr-defined]
    yield s.page(urls, context)
    if scope == "book" and urls.origin:  # one feed for both; absolute URLs need an origin
        feed = {"feed_name": "corrections", "feed_title": "Corrections"}
        yield Page(urls.section("corrections-feed"), FEED_TEMPLATE, feed, listed=False)


def _paper(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    for paper in sorted(record.of("paper"), key=lambda p: p.id)[:1]:
        yield Page(urls.entity(paper), s.template, {"entity": paper})
        yield Page(urls.section("paper-pdf"), PDF_TEMPLATE, {"paper": paper}, listed=False)


def _consent(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    yield s.page(urls, {"policy": ConsentPolicy()})


def _parties(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    yield s.page(urls, {"parties": ordered(record, "party")})
    yield from _entity_pages(record, urls, "party", "party.html")


LIBRARY_ITEM_TEMPLATE = "library_item.html"


def _library(s: Section, record: Record, urls: Urls, _: Releases) -> Iterator[Page]:
    """The Library: the list of the copies it holds, and a page for each."""
    copies = copy_contexts(record)
    listed = [replace(copy, whole=False) for copy in copies]
    yield s.page(urls, {"copies": listed})
    for copy in copies:
        yield Page(urls.library_copy(copy.shelf), LIBRARY_ITEM_TEMPLATE, {"copy": copy})


SECTIONS: tuple[Section, ...] = (
    Section("ledger", "ledger", "Campuses", BUILDOUT, "ledger.html", _ledger, "campus"),
    Section("tests", "tests", "Tests", EVIDENCE, "tests.html", _tests, "test"),
    Section(
        "scorecard", "scorecard", "Scorecard", EVIDENCE, "scorecard.html", _scorecard, "indicator"
    ),
    Section(
        "data",
        "data/releases",
        "Data",
        ABOUT,
        "data.html",
        _data,
        filled=lambda record, releases: bool(releases) or bool(record.watch),
        beside={"releases-feed": "data/releases.atom"},
    ),
    Section(
        "companion",
        "companion",
        "Chapter by chapter",
        BOOK,
        "companion.html",
        _companion,
        "chapter",
    ),
    Section(
        "observatory",
        "observatory",
        "The record at a glance",
        EVIDENCE,
        "observatory.html",
        _observatory,
        "chart",
        drawn=True,
    ),
    Section(
        "machine",
        "machine",
        "The machine",
        BUILDOUT,
        "machine.html",
        _machine,
        filled=lambda record, _: bool(record.of("campus")),
    ),
    # One link per scenario, named by it: "One campus, four futures".
    Section("scenarios", None, "", BUILDOUT, "scenario.html", _scenarios, "scenario", each=True),
    Section("glossary", "glossary", "Glossary", BOOK, "glossary.html", _glossary, "term"),
    Section("people", "people", "People", BUILDOUT, "people.html", _people, "person"),
    Section("sources", "sources", "Sources", EVIDENCE, "sources.html", _sources, "source"),
    Section("notes", "notes", "Notes", BOOK, "notes.html", _notes, "chapter"),
    Section(
        "corrections",
        "corrections",
        "Where the book was wrong",
        BOOK,
        "corrections.html",
        _corrections,
        beside={"corrections-feed": "corrections.atom"},
    ),
    Section(
        "source-corrections",
        "corrections/sources",
        "Where its sources were wrong",
        EVIDENCE,
        "corrections.html",
        _corrections,
    ),
    Section(
        "paper",
        "paper",
        "The Paper",
        BOOK,
        "paper.html",
        _paper,
        "paper",
        drawn=True,
        beside={"paper-pdf": "paper.pdf"},
    ),
    Section("consent", "consent", "Consent", ABOUT, "consent.html", _consent),
    Section(
        "parties", "parties", "Who builds and pays", BUILDOUT, "parties.html", _parties, "party"
    ),
    Section(
        "library",
        "library",
        "",
        "",
        "library.html",
        _library,
        filled=lambda record, _: bool(len(record.library)),
    ),
)
"""Every section, in the navigation's order (the exemplar's); its pages come in the same
order, the Library's last."""

DRAWN_TEMPLATES = frozenset({s.template for s in SECTIONS if s.drawn} | {PDF_TEMPLATE})
"""The pages that show the charts' drawings: written once the drawing is done."""


PLACES = {
    "home": "",
    "about": "about",
    "search": "search",
    "sitemap": "sitemap.xml",
    "robots": "robots.txt",
}
"""The pages every site has beside its sections, by name: their paths below the volume."""


def paths() -> dict[str, str]:
    """Where each named page lives: the places above, and each section of the table and
    what it writes beside its page (`SECTIONS`, read as it stands)."""
    return PLACES | {
        name: path
        for section in SECTIONS
        for name, path in [(section.name, section.path), *section.beside.items()]
        if path is not None
    }


def site_urls(site: Site) -> Urls:
    """The URLs of the site of a volume whose settings are `site`: its named pages where
    `paths` puts them."""
    return Urls(site, paths())
