"""The pages of a record's site, and the navigation over them.

A section's pages exist only when the record has something to put in them (see
`sections.py`); the navigation is made from the sections that exist, so no link ever leads
nowhere. Beside the sections every site has its home, its about and search pages, a 404
page and robots.txt, and a sitemap where it knows its origin.
"""

from __future__ import annotations

from collections.abc import Sequence

from sourcebook.model.record import Record
from sourcebook.publish.site.pages import sections as table
from sourcebook.publish.site.pages.page import (
    NOT_FOUND_URL,
    ROBOTS_URL,
    ROOT_URL,
    SEARCH_TEMPLATE,
    Page,
)
from sourcebook.publish.site.pages.releases import Release
from sourcebook.publish.site.pages.sections import Section, scenario_list
from sourcebook.publish.site.pages.urls import Urls
from sourcebook.publish.site.pages.wayfinding import NavItem


def sections(record: Record, releases: Sequence[Release] = ()) -> list[Section]:
    """The sections this record fills, in the navigation's order."""
    return [section for section in table.SECTIONS if section.exists(record, releases)]


def navigation(
    record: Record, urls: Urls, releases: Sequence[Release] = (), series_url: str = ""
) -> list[NavItem]:
    """The navigation's links, to pages that exist; the series' page where there is one."""
    out = []
    for section in sections(record, releases):
        if section.each:
            out += [
                NavItem(scenario_label(e.title), urls.entity(e), 0, section.heading)
                for e in scenario_list(record)
            ]
            continue
        if not section.label:
            continue
        url = urls.section(section.name) if section.path is not None else ""
        if section.name == "source-corrections" and series_url:
            url = series_url
        count = len(record.entities[section.kind]) if section.kind else 0
        out.append(NavItem(section.label, url, count, section.heading))
    return out


def scenario_label(title: str) -> str:
    """A scenario's name in the navigation: its title after the campus's name, where the
    title leads with one ("Hyperion: one campus, four futures" → "One campus, four futures")."""
    _, colon, rest = title.partition(": ")
    rest = rest.strip() if colon else title
    return rest[:1].upper() + rest[1:]


def site_pages(record: Record, urls: Urls, releases: Sequence[Release] = ()) -> list[Page]:
    present = sections(record, releases)
    listed = [section.name for section in present if section.in_menu]
    pages = [Page(urls.section("home"), "home.html", {"sections": listed})]
    for section in present:
        pages.extend(section.pages(section, record, urls, releases))
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
