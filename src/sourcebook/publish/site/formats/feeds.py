"""Atom feeds (RFC 4287): the record's corrections, and its data releases.

A feed reader needs absolute, permanent ids and links, so the feeds exist only where the
settings give `[site] base_url`, as the sitemap does. Every time is the start of the day
it names, in UTC: a correction logged in "2025-07" is dated 2025-07-01T00:00:00Z.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING

from sourcebook.model.base import day_start
from sourcebook.model.kinds import Correction

_TAG = re.compile(r"<[^>]+>")

if TYPE_CHECKING:
    from sourcebook.publish.site.view.site_view import SiteView


@dataclass(frozen=True, slots=True)
class Entry:
    id: str
    title: str
    updated: str
    url: str
    summary: str
    category: str = ""


@dataclass(frozen=True, slots=True)
class Feed:
    id: str
    title: str
    subtitle: str
    url: str
    """The feed's own absolute URL (rel="self")."""
    page: str
    """The absolute URL of the page the feed follows (rel="alternate")."""
    author: str
    updated: str
    entries: list[Entry] = field(default_factory=list)


def timestamp(day: str | date) -> str:
    """An RFC 3339 time for a record day: its first moment, UTC."""
    start = day if isinstance(day, date) else day_start(day)
    return f"{start.isoformat()}T00:00:00Z"


def _record_day(view: SiteView) -> str:
    """The day the record closes; while it is open, the day it was built as of (a kept
    build notes that it read it, so that the next day's build writes it anew)."""
    return timestamp(view.book.closes or view.computed.as_of)


def make_feed(
    view: SiteView, url: str, page: str, title: str, subtitle: str, entries: list[Entry]
) -> Feed:
    """A feed of `entries`, newest first, updated when its newest entry was (or, with none,
    the day the record stands at)."""
    entries = sorted(entries, key=lambda e: (e.updated, e.id), reverse=True)
    updated = entries[0].updated if entries else _record_day(view)
    return Feed(
        id=view.links.absolute(url),
        title=title,
        subtitle=subtitle,
        url=view.links.absolute(url),
        page=view.links.absolute(page),
        author=view.book.author or view.book.house,
        updated=updated,
        entries=entries,
    )


def corrections_feed(view: SiteView, url: str) -> Feed:
    """Every correction, of the book and of its sources, as it was logged."""
    entries = []
    for correction in view.record.of("correction"):
        assert isinstance(correction, Correction)
        link = view.links.absolute(view.links.url(correction))
        said, right = view.prose.plain(correction, "wrong"), view.prose.plain(correction, "right")
        entries.append(
            Entry(
                id=link,
                title=correction.title,
                updated=timestamp(correction.date),
                url=link,
                summary=f"What was said: {said} What is so: {right}",
                category="the book" if correction.scope.value == "book" else "a source",
            )
        )
    title = f"{view.book.title}: corrections"
    subtitle = "Where the book was wrong, and where its sources were."
    return make_feed(view, url, view.links.section("corrections"), title, subtitle, entries)


def releases_feed(view: SiteView, url: str) -> Feed:
    """Every data release, with what changed in it."""
    entries = []
    page = view.links.section("data")
    for release in view.releases:
        link = view.links.absolute(f"{page}#release-{release.version}")
        summary = " ".join(_TAG.sub(" ", release.changelog).split())
        entries.append(
            Entry(
                id=link,
                title=release.title,
                updated=timestamp(release.date) if release.date else _record_day(view),
                url=link,
                summary=html.unescape(summary),
            )
        )
    title = f"{view.book.title}: data releases"
    subtitle = "The record as versioned, citable data."
    return make_feed(view, url, page, title, subtitle, entries)


FEEDS = {"corrections": corrections_feed, "releases": releases_feed}


def feed(view: SiteView, name: str, url: str) -> Feed:
    """The Atom feed `name` ('corrections', 'releases'), to be served at `url`."""
    return FEEDS[name](view, url)
