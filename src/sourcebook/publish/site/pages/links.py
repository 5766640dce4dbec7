"""Every URL a page shows, for templates as `links`: an entity's page, a section, a static or
release file, the absolute form of one; and whether an address the record gives may be
linked at all.

Where everything lives is `urls.Urls`; this is what templates ask of it, an entity's page
looked up once per build.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from sourcebook.incremental import Table
from sourcebook.model.addresses import safe_link
from sourcebook.model.base import Entity
from sourcebook.publish.site.pages.releases import Release
from sourcebook.publish.site.pages.urls import Urls


class Links:
    def __init__(self, urls: Urls):
        self.urls = urls
        self._pages: dict[tuple[str, str], str] = {}
        self._read: Table[tuple[str, str], str] = Table(("url",), make=self._pages.__getitem__)
        """Where each entity's page is, read through the engine: a page that links an
        entity reads where its page is, not the entity's other fields."""

    def url(self, entity: Entity) -> str:
        """The entity's URL; '' for a kind the site has no page for (not linked, then)."""
        key = entity.key
        if key not in self._pages:
            self._pages[key] = self.urls.page_of(entity) or ""
        return self._read[key]

    def section(self, name: str) -> str:
        """A section's page: 'glossary' → '/vol1/glossary' (see `sections.SECTIONS`)."""
        return self.urls.section(name)

    def static(self, name: str) -> str:
        return self.urls.static(name)

    def absolute(self, url: str) -> str:
        """The full URL where `[site] base_url` is set; the site-relative one where not."""
        return self.urls.absolute(url)

    def source_page(self, source: Entity) -> str:
        """A source's own small page, the one reference managers read."""
        self.url(source)  # placed as its page is
        return self.urls.source_page(source)

    def source_category(self, category: str) -> str:
        return self.urls.source_category(category)

    def chart_csv(self, chart: Entity) -> str:
        self.url(chart)  # placed as its page is
        return self.urls.chart_csv(chart)

    def release_file(self, release: Release, path: str) -> str:
        return self.urls.release_file(release.version, path)

    def safe_url(self, url: str) -> bool:
        """Whether an address from the record may be a link (not `javascript:` and the like)."""
        return safe_link(url)

    def host(self, url: str) -> str:
        """The host of an address, shown as a link's text: 'www.bloomberg.com'."""
        return urlsplit(url).hostname or url
