"""The pages of the site: each a URL, a template and what the template needs.

A section's page exists only when the record has something to put in it; the
navigation is made from the pages that exist, so no link ever leads nowhere. The
corrections pages and the consent page always exist: "nothing has been found wrong"
is a statement a reader may want.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from sourcebook.link.backlinks import sort_key
from sourcebook.model.base import Entity, day_start
from sourcebook.model.kinds import Category, Correction, Source
from sourcebook.model.person_names import name_parts
from sourcebook.model.record import Record
from sourcebook.publish.site.pages.releases import Release
from sourcebook.publish.site.pages.urls import SECTIONS, NavItem, Urls

NOT_FOUND_URL = "/404.html"
ROBOTS_URL = "/robots.txt"
ROOT_URL = "/"
"""Where the volume has a base path, the host's root leads to it (not to a folder's listing)."""
FEED_TEMPLATE = "feed.atom"
SEARCH_TEMPLATE = "search.html"


@dataclass(frozen=True, slots=True)
class Page:
    url: str
    template: str
    context: dict[str, Any] = field(default_factory=dict)
    listed: bool = True
    """Listed in the sitemap (the 404 page is not)."""


# The navigation, in the exemplar's order: (section, label).
NAV = (
    ("ledger", "Campuses"),
    ("tests", "Tests"),
    ("scorecard", "Scorecard"),
    ("data", "Data"),
    ("companion", "Chapter by chapter"),
    ("observatory", "The record at a glance"),
    ("machine", "The machine"),
    ("scenarios", ""),  # one item per scenario, named by it: "One campus, four futures"
    ("glossary", "Glossary"),
    ("people", "People"),
    ("sources", "Sources"),
    ("notes", "Notes"),
    ("corrections", "Where the book was wrong"),
    ("source-corrections", "Where its sources were wrong"),
    ("paper", "The Paper"),
    ("consent", "Consent"),
    ("parties", "Who builds and pays"),
)
# The masthead's menu groups the same links so that they fit: (group, its sections).
NAV_GROUPS = (
    ("The book", ("companion", "notes", "glossary", "paper", "corrections")),
    ("The buildout", ("ledger", "parties", "people", "machine", "scenarios")),
    ("The evidence", ("scorecard", "tests", "observatory", "sources", "source-corrections")),
    ("About", ("data", "consent")),
)
GROUP_OF = {name: group for group, names in NAV_GROUPS for name in names}
SECTION_KINDS = {
    "ledger": "campus",
    "tests": "test",
    "scorecard": "indicator",
    "companion": "chapter",
    "notes": "chapter",
    "glossary": "term",
    "people": "person",
    "sources": "source",
    "parties": "party",
    "scenarios": "scenario",
    "observatory": "chart",
    "paper": "paper",
}


def sections(record: Record, releases: Sequence[Release] = ()) -> list[str]:
    """The sections this record fills, in the navigation's order."""
    filled = {"data": bool(releases) or bool(record.watch), "machine": bool(record.of("campus"))}
    return [
        name
        for name, _ in NAV
        if filled.get(name, name not in SECTION_KINDS or bool(record.of(SECTION_KINDS[name])))
    ]


def navigation(
    record: Record, urls: Urls, releases: Sequence[Release] = (), series_url: str = ""
) -> list[NavItem]:
    """The navigation's links, to pages that exist; the series' page where there is one."""
    present = set(sections(record, releases))
    out = []
    for name, label in NAV:
        if name not in present:
            continue
        url = urls.section(name) if name in SECTIONS else ""
        if name == "source-corrections" and series_url:
            url = series_url
        group = GROUP_OF.get(name, "")
        if name == "scenarios":
            out += [
                NavItem(scenario_label(s.title), urls.entity(s), 0, group)
                for s in _scenario_list(record)
            ]
            continue
        kind = SECTION_KINDS.get(name)
        out.append(NavItem(label, url, len(record.entities[kind]) if kind else 0, group))
    return out


def scenario_label(title: str) -> str:
    """A scenario's name in the navigation: its title after the campus's name, where the
    title leads with one ("Hyperion: one campus, four futures" → "One campus, four futures")."""
    _, colon, rest = title.partition(": ")
    rest = rest.strip() if colon else title
    return rest[:1].upper() + rest[1:]


def site_pages(record: Record, urls: Urls, releases: Sequence[Release] = ()) -> list[Page]:
    present = sections(record, releases)
    pages = [Page(urls.section("home"), "home.html", {"sections": present})]
    for name in present:
        if name == "data":
            pages.extend(_data(releases, urls))
        else:
            pages.extend(SECTION_PAGES[name](record, urls))
    if len(record.library):
        pages.extend(_library(record, urls))
    pages.append(Page(urls.section("about"), "about.html", {}))
    pages.append(Page(urls.section("search"), SEARCH_TEMPLATE, {}, listed=False))
    pages.append(Page(NOT_FOUND_URL, "404.html", {}, listed=False))
    pages.append(Page(ROBOTS_URL, "robots.txt", {}, listed=False))
    if urls.base:
        pages.append(Page(ROOT_URL, "root.html", {}, listed=False))
    if urls.origin:
        sitemap = Page(urls.section("sitemap"), "sitemap.xml", {"pages": pages}, listed=False)
        pages.append(sitemap)
    return pages


def _entity_pages(record: Record, urls: Urls, kind: str, template: str) -> Iterator[Page]:
    for entity in record.of(kind):
        yield Page(urls.entity(entity), template, {"entity": entity})


def ordered(record: Record, kind: str) -> list[Entity]:
    return sorted(record.of(kind), key=sort_key)


def _glossary(record: Record, urls: Urls) -> Iterator[Page]:
    terms = ordered(record, "term")
    groups: dict[str, list[Entity]] = {}
    for term in terms:
        groups.setdefault(letter(term.title), []).append(term)
    context = {"terms": terms, "groups": groups}
    yield Page(urls.section("glossary"), "glossary.html", context)
    yield from _entity_pages(record, urls, "term", "term.html")


def letter(title: str) -> str:
    """The letter a title is filed under: A–Z, or # for anything else."""
    first = unicodedata.normalize("NFKD", title.strip()[:1] or "#")[:1].upper()
    return first if first.isascii() and first.isalpha() else "#"


def _ledger(record: Record, urls: Urls) -> Iterator[Page]:
    yield Page(urls.section("ledger"), "ledger.html", {"campuses": ordered(record, "campus")})
    yield from _entity_pages(record, urls, "campus", "campus.html")


def _scorecard(record: Record, urls: Urls) -> Iterator[Page]:
    yield Page(urls.section("scorecard"), "scorecard.html", {"rows": ordered(record, "indicator")})


def _tests(record: Record, urls: Urls) -> Iterator[Page]:
    tests = sorted(record.of("test"), key=lambda t: (day_start(t.deadline), sort_key(t)))  # type: ignore[attr-defined]
    yield Page(urls.section("tests"), "tests.html", {"tests": tests})
    yield from _entity_pages(record, urls, "test", "test.html")


def _sources(record: Record, urls: Urls) -> Iterator[Page]:
    by_category: dict[str, list[Source]] = {c.value: [] for c in Category}
    for source in sorted(record.of("source"), key=lambda s: bibliography_key(record, s)):
        assert isinstance(source, Source)
        by_category[source.category.value].append(source)
    filled = {c: s for c, s in by_category.items() if s}
    yield Page(urls.section("sources"), "sources.html", {"categories": filled})
    for category, sources in filled.items():
        context = {"category": category, "sources": sources}
        yield Page(urls.source_category(category), "source_category.html", context)
        for source in sources:
            yield Page(urls.source_page(source), "source.html", {"source": source})


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


def _chapters(record: Record, urls: Urls) -> Iterator[Page]:
    yield Page(urls.section("notes"), "notes.html", {"chapters": ordered(record, "chapter")})
    yield from _entity_pages(record, urls, "chapter", "chapter.html")


def _companion(record: Record, urls: Urls) -> Iterator[Page]:
    yield Page(
        urls.section("companion"), "companion.html", {"chapters": ordered(record, "chapter")}
    )


def _people(record: Record, urls: Urls) -> Iterator[Page]:
    people = sorted(record.of("person"), key=lambda p: (name_parts(p)[1].casefold(), p.id))
    yield Page(urls.section("people"), "people.html", {"people": people})
    yield from _entity_pages(record, urls, "person", "person.html")


def _parties(record: Record, urls: Urls) -> Iterator[Page]:
    yield Page(urls.section("parties"), "parties.html", {"parties": ordered(record, "party")})
    yield from _entity_pages(record, urls, "party", "party.html")


def _corrections(scope: str) -> Any:
    def pages(record: Record, urls: Urls) -> Iterator[Page]:
        chosen = [c for c in record.of("correction") if isinstance(c, Correction)]
        chosen = [c for c in chosen if c.scope.value == scope]
        chosen.sort(key=lambda c: (day_start(c.date), c.id), reverse=True)
        name = "corrections" if scope == "book" else "source-corrections"
        context: dict[str, Any] = {"corrections": chosen, "scope": scope}
        if scope == "source":
            context["disputed"] = [s for s in record.of("source") if s.disputed_by]  # type: ignore[attr-defined]
        yield Page(urls.section(name), "corrections.html", context)
        if scope == "book" and urls.origin:  # one feed for both; absolute URLs need an origin
            feed = {"feed_name": "corrections", "feed_title": "Corrections"}
            yield Page(urls.section("corrections-feed"), FEED_TEMPLATE, feed, listed=False)

    return pages


def _scenario_list(record: Record) -> list[Entity]:
    return sorted(record.of("scenario"), key=lambda s: s.id)


def _scenarios(record: Record, urls: Urls) -> Iterator[Page]:
    for scenario in _scenario_list(record):
        campus = record.get("campus", scenario.campus)  # type: ignore[attr-defined]
        yield Page(urls.entity(scenario), "scenario.html", {"entity": scenario, "campus": campus})


def _data(releases: Sequence[Release], urls: Urls) -> Iterator[Page]:
    yield Page(urls.section("data"), "data.html", {"releases": list(releases)})
    if urls.origin:
        feed = {"feed_name": "releases", "feed_title": "Data releases"}
        yield Page(urls.section("releases-feed"), FEED_TEMPLATE, feed, listed=False)


LIBRARY_TEMPLATES = ("library.html", "library_item.html")


def _library(record: Record, urls: Urls) -> Iterator[Page]:
    """The Library: the list of the copies it holds, and a page for each."""
    from sourcebook.publish.site.view.watched import copy_contexts

    copies = copy_contexts(record)
    listed = [replace(copy, whole=False) for copy in copies]
    yield Page(urls.section("library"), LIBRARY_TEMPLATES[0], {"copies": listed})
    for copy in copies:
        yield Page(urls.library_copy(copy.shelf), LIBRARY_TEMPLATES[1], {"copy": copy})


CSV_TEMPLATE = "chart:csv"
PDF_TEMPLATE = "paper:pdf"
"""Pseudo-templates of files that are not pages: a chart's data, the paper typeset."""
DRAWN_TEMPLATES = frozenset({"observatory.html", "paper.html", PDF_TEMPLATE})
"""The pages that show the charts' drawings: written once the drawing is done."""


def chart_list(record: Record) -> list[Entity]:
    return sorted(record.of("chart"), key=lambda c: (c.order, c.id))  # type: ignore[attr-defined]


def _observatory(record: Record, urls: Urls) -> Iterator[Page]:
    charts = chart_list(record)
    yield Page(urls.section("observatory"), "observatory.html", {"charts": charts})
    for chart in charts:
        yield Page(urls.chart_csv(chart), CSV_TEMPLATE, {"chart": chart}, listed=False)


def _paper(record: Record, urls: Urls) -> Iterator[Page]:
    for paper in sorted(record.of("paper"), key=lambda p: p.id)[:1]:
        yield Page(urls.entity(paper), "paper.html", {"entity": paper})
        yield Page(urls.section("paper-pdf"), PDF_TEMPLATE, {"paper": paper}, listed=False)


def _machine(record: Record, urls: Urls) -> Iterator[Page]:
    from sourcebook.publish.site.drawing.machine_page import MachineContext

    yield Page(urls.section("machine"), "machine.html", {"machine": MachineContext()})


class ConsentPolicy:
    """The Consent page's context for its JSON twin: what the sign-up service stores, and
    for how long, as the page says it (the page reads the same from its `notify`)."""

    def api_document(self, view: Any) -> dict[str, Any]:
        from sourcebook.notify.site import consent_document

        return consent_document(view.notify)


def _consent(record: Record, urls: Urls) -> Iterator[Page]:
    yield Page(urls.section("consent"), "consent.html", {"policy": ConsentPolicy()})


SECTION_PAGES = {
    "ledger": _ledger,
    "tests": _tests,
    "scorecard": _scorecard,
    "companion": _companion,
    "machine": _machine,
    "scenarios": _scenarios,
    "glossary": _glossary,
    "people": _people,
    "sources": _sources,
    "notes": _chapters,
    "corrections": _corrections("book"),
    "source-corrections": _corrections("source"),
    "consent": _consent,
    "parties": _parties,
    "observatory": _observatory,
    "paper": _paper,
}
