"""The pages of a record's site, and the navigation over them.

A section's pages exist only when the record has something to put in them (see
`sections.py`); the navigation is made from the sections that exist, so no link ever leads
nowhere. Beside the sections every site has its home, its about and search pages, a 404
page and robots.txt, and a sitemap where it knows its origin.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sourcebook.incremental import READS, Token
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


SITEMAP = "sitemap"
"""The group of the sitemap, made of every other group's pages (`grouped_pages`)."""


@dataclass(frozen=True)
class Group:
    """Pages made together, by one section of the table or by the site itself, with what
    making them read of the record (`incremental.TracedRecord`, through `view.record`): a
    later build whose edit changed none of it makes the same pages, with the same contexts
    (see `SiteBuild._note_contexts`)."""

    name: str
    pages: list[Page]
    reads: frozenset[Token] = frozenset()


def grouped_pages(record: Record, urls: Urls, releases: Sequence[Release] = ()) -> list[Group]:
    """The site's pages in groups: its home; each section's, with what its pages' making
    read; the pages every site has; and the sitemap, where the site knows its origin, made
    of all of them (each page as the sitemap shows it: its URL, its template and whether it
    is listed, not its context), so having read what they read. Which sections exist, and
    what the home page lists, is the navigation's (which every page shows, and a build
    compares whole)."""
    present = sections(record, releases)
    listed = [section.name for section in present if section.in_menu]
    groups = [Group("home", [Page(urls.section("home"), "home.html", {"sections": listed})])]
    for section in present:
        with READS.page() as read:
            made = list(section.pages(section, record, urls, releases))
        groups.append(Group(section.name, made, frozenset(read)))
    own = [
        Page(urls.section("about"), "about.html", {}),
        Page(urls.section("search"), SEARCH_TEMPLATE, {}, listed=False),
        Page(NOT_FOUND_URL, "404.html", {}, listed=False),
        Page(ROBOTS_URL, "robots.txt", {}, listed=False),
    ]
    if urls.base:
        own.append(Page(ROOT_URL, "root.html", {}, listed=False))
    groups.append(Group("site", own))
    if urls.origin:
        pages = [Page(p.url, p.template, listed=p.listed) for g in groups for p in g.pages]
        sitemap = Page(urls.section("sitemap"), "sitemap.xml", {"pages": pages}, listed=False)
        groups.append(Group(SITEMAP, [sitemap], frozenset().union(*(g.reads for g in groups))))
    return groups


def site_pages(record: Record, urls: Urls, releases: Sequence[Release] = ()) -> list[Page]:
    """Every page of the site, in the order of its groups (`grouped_pages`)."""
    return [page for group in grouped_pages(record, urls, releases) for page in group.pages]
