"""schema.org JSON-LD: DefinedTerm in a DefinedTermSet, Place, Organization, Person, articles.

Each function takes the site's view and returns a plain dict; the template writes it
into a `<script type="application/ld+json">` through `json_ld`, escaped as `script_json` escapes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from sourcebook.model.kinds import Campus, Party, Person, Source, Term
from sourcebook.publish.site.formats.json_text import script_json

if TYPE_CHECKING:
    from sourcebook.publish.site.view.site_view import SiteView

CONTEXT = "https://schema.org"
ARTICLE_TYPES = {
    "press": "NewsArticle",
    "research": "ScholarlyArticle",
    "company": "Article",
    "other": "Article",
}


def _book(view: SiteView) -> dict[str, Any]:
    book = view.book
    data: dict[str, Any] = {"@type": "Book", "name": book.title}
    if book.author:
        data["author"] = {"@type": "Person", "name": book.author}
    data["url"] = view.links.absolute(view.links.section("about"))
    return data


def about(view: SiteView) -> dict[str, Any]:
    """The about page: the book itself."""
    book = view.book
    data = {"@context": CONTEXT, **_book(view)}
    if book.subtitle:
        data["alternativeHeadline"] = book.subtitle
    if book.publisher or book.house:
        data["publisher"] = {"@type": "Organization", "name": book.publisher or book.house}
    if book.series:
        data["isPartOf"] = {"@type": "BookSeries", "name": book.series}
        data["position"] = book.volume
    if view.links.safe_url(view.site.book_url):
        data["offers"] = {"@type": "Offer", "url": view.site.book_url}
    return data


def glossary(view: SiteView) -> dict[str, Any]:
    return {
        "@type": "DefinedTermSet",
        "@id": view.links.absolute(view.links.section("glossary")),
        "name": f"Glossary of {view.book.title}",
        "url": view.links.absolute(view.links.section("glossary")),
        "isPartOf": _book(view),
    }


def glossary_page(view: SiteView, terms: list[Term]) -> dict[str, Any]:
    data = {"@context": CONTEXT, **glossary(view)}
    data["hasDefinedTerm"] = [
        {"@type": "DefinedTerm", "name": t.title, "url": view.links.absolute(view.links.url(t))}
        for t in terms
    ]
    return data


def term(view: SiteView, entity: Term) -> dict[str, Any]:
    return {
        "@context": CONTEXT,
        "@type": "DefinedTerm",
        "name": entity.title,
        "alternateName": entity.aliases,
        "description": view.prose.plain(entity, "definition"),
        "url": view.links.absolute(view.links.url(entity)),
        "inDefinedTermSet": glossary(view),
    }


def campus(view: SiteView, entity: Campus) -> dict[str, Any]:
    return {
        "@context": CONTEXT,
        "@type": "Place",
        "name": entity.title,
        "alternateName": entity.aliases,
        "url": view.links.absolute(view.links.url(entity)),
        "address": {
            "@type": "PostalAddress",
            "addressLocality": entity.location,
            "addressCountry": entity.country,
        },
    }


def party(view: SiteView, entity: Party) -> dict[str, Any]:
    data: dict[str, Any] = {
        "@context": CONTEXT,
        "@type": "GovernmentOrganization" if entity.type.value == "government" else "Organization",
        "name": entity.title,
        "alternateName": entity.aliases,
        "url": view.links.absolute(view.links.url(entity)),
    }
    if entity.url and view.links.safe_url(entity.url):
        data["sameAs"] = entity.url
    return data


def person(view: SiteView, entity: Person) -> dict[str, Any]:
    data: dict[str, Any] = {
        "@context": CONTEXT,
        "@type": "Person",
        "name": entity.title,
        "url": view.links.absolute(view.links.url(entity)),
    }
    if entity.role:
        data["jobTitle"] = entity.role
    if entity.url and view.links.safe_url(entity.url):
        data["sameAs"] = entity.url
    affiliations = (view.record.get("party", p) for p in entity.affiliations)
    data["affiliation"] = [{"@type": "Organization", "name": p.title} for p in affiliations if p]
    return data


def source(view: SiteView, entity: Source) -> dict[str, Any]:
    data: dict[str, Any] = {
        "@type": ARTICLE_TYPES[entity.category.value],
        "@id": view.links.absolute(view.links.url(entity)),
        "name": entity.title,
        "headline": entity.title,
    }
    authors = view.citations.authors(entity)
    if authors:
        data["author"] = [{"@type": "Person", "name": a} for a in authors]
    publication = view.citations.publication(entity)
    if publication:
        data["publisher"] = {"@type": "Organization", "name": publication}
    if entity.date:
        data["datePublished"] = entity.date
    if entity.updated:
        data["dateModified"] = entity.updated
    safe = [u for u in entity.urls if view.links.safe_url(u)]
    if safe:
        data["url"] = safe[0]
    return data


def sources_page(view: SiteView, sources: list[Source]) -> dict[str, Any]:
    return {"@context": CONTEXT, "@graph": [source(view, s) for s in sources]}


def pruned(data: Any) -> Any:
    """The data without empty values: schema.org readers take a missing key as unknown."""
    if isinstance(data, dict):
        kept = {}
        for key, value in data.items():
            if isinstance(value, (dict, list)):
                value = pruned(value)
            if value not in _EMPTY:
                kept[key] = value
        return kept
    if isinstance(data, list):
        return [pruned(v) if isinstance(v, (dict, list)) else v for v in data]
    return data


_EMPTY: tuple[Any, ...] = ("", [], {}, None)


DOCUMENTS: dict[str, Callable[..., dict[str, Any]]] = {
    "about": about,
    "glossary": glossary,
    "glossary_page": glossary_page,
    "term": term,
    "campus": campus,
    "party": party,
    "person": person,
    "source": source,
    "sources_page": sources_page,
}
"""What a template may ask JSON-LD of: a name chooses from these, never from the module."""


def json_ld(view: SiteView, kind: str, *args: Any) -> Markup:
    """The JSON-LD of `kind` ('term', 'campus', 'glossary_page', …) for a template."""
    return script_json(pruned(DOCUMENTS[kind](view, *args)))
