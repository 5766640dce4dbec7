"""What every page of a build shares, and what its templates may ask, in parts by purpose.

One `SiteView` serves every page of a build. It holds the build's state (the record, its
releases, what derive computed, the charts drawn from it, what check proved of the quotes)
and the parts templates call, each a global of theirs too:

- `links` (`links.py`): every URL a page shows;
- `prose` (`page_prose.py`): the record's prose, citations and list items, rendered once;
- `figures` (`figures.py`): the figures of campuses and parties, worded;
- `query` (`query.py`): entities by id, what refers to what, what a page calls things.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from jinja2 import Environment
from markupsafe import Markup

from sourcebook.derive import Derived
from sourcebook.incremental import READS, SharedMemo, Store, Table, Token, TracedRecord, key_of
from sourcebook.library.report import QuoteReport
from sourcebook.link.graph import Graph
from sourcebook.model.record import Record
from sourcebook.publish.site.drawing.drawn import DrawnCharts
from sourcebook.publish.site.pages.links import Links
from sourcebook.publish.site.pages.releases import Release
from sourcebook.publish.site.pages.sections import ABOUT, MENU_HEADINGS
from sourcebook.publish.site.pages.series import InSeries
from sourcebook.publish.site.pages.urls import Urls
from sourcebook.publish.site.pages.wayfinding import Crumb, NavItem, Trail, menu
from sourcebook.publish.site.view.citations import Citations
from sourcebook.publish.site.view.computed import Computed
from sourcebook.publish.site.view.embedded import Embedded
from sourcebook.publish.site.view.figures import Figures
from sourcebook.publish.site.view.page_prose import PageProse
from sourcebook.publish.site.view.query import Query


class SiteView:
    def __init__(
        self,
        record: Record,
        graph: Graph,
        urls: Urls,
        nav: list[NavItem],
        derived: Derived | None = None,
        releases: Sequence[Release] = (),
    ):
        self.record = record = TracedRecord.of_record(record)
        """The record, each entity a page reads of it noted (see `incremental.Reads`)."""
        self.releases = list(releases)
        """The record's data releases, newest first."""
        derived = derived or Derived("", [], [], [], [])
        self._computed = Computed(derived)
        self._drawn = DrawnCharts(record, derived, urls)
        self.book = record.settings.book
        self.site = record.settings.site
        self.urls = urls
        self.nav = nav
        """The navigation's links, in its order (see `site_pages.navigation`)."""
        self._nav_urls = {item.url for item in nav}
        about = NavItem("About the book", urls.section("about"), 0, ABOUT)
        self.menu = menu(nav, about, MENU_HEADINGS)
        """The navigation's links under the masthead menu's headings."""
        self._menu_urls = {item.url for group in self.menu for item in group.items}
        self._nav_menus = SharedMemo()
        self._trail = Trail(urls, nav, self.book.title)
        self._nav_lists = SharedMemo()  # a record's own nav.html may read the record
        self.citations = Citations(record)
        self.links = Links(urls)
        self.prose = PageProse(record, graph, urls, self.citations)
        self.figures = Figures()
        self.query = Query(record, graph, self.links, self.citations, self.releases)
        self.references: dict[tuple[str, str], dict[str, Any]] = {}
        """Each entity as the JSON twins refer to it, made once (see `twins.reference`)."""
        self.once = SharedMemo()
        """What several pages of a build share, made by the first that asks (the machine,
        the paper); made again once derive's result changes."""
        self.previews = SharedMemo()
        """What each entity's link shows before it is followed (`search.previews`), by the
        entity's key: the next build takes again each that read nothing it changed."""
        self.blocks = SharedMemo()
        """The templates' kept blocks (`pages/kept_blocks.py`), by their keys: the next
        build takes again each that read nothing it changed."""
        self.env: Environment | None = None
        """The templates; set by the build once it has made them (`use_templates`)."""
        self.series = InSeries("")
        """The volume's place in its series (a house's site), set by the build."""
        self.notify: Any = None
        """The sign-up form and the policy the Consent page states, where the record has a
        sign-up service (`notify.site.SignupForm`); set by the build."""

    @property
    def computed(self) -> Computed:
        """What derive computed, as pages show it (each part they read is noted)."""
        return self._computed

    @property
    def drawn(self) -> DrawnCharts:
        """The record's charts, drawn once derive has given their data: drawn apart from
        the pages, from all derive computed and every chart of the record, which a page
        that shows one reads."""
        self._computed.derived, self.record.of("chart")  # noqa: B018
        return self._drawn

    def compared_tables(self, derived: Derived) -> list[Table[Any, Any]]:
        """The tables pages read that the next build compares entry by entry, `derived`'s
        with them (the rest are compared by the record's entities and links:
        `kept_site.Snapshot`)."""
        tables = [*self._computed_of(derived).tables(), self.citations.proven_table,
                  self.citations.library]  # fmt: skip
        return [*tables, self.query.watch.addresses_table, self._drawn.named_figures]

    def _computed_of(self, derived: Derived) -> Computed:
        """`derived` as pages read it: made once for a build, whether the tables are
        compared first or the pages read it first."""
        if self._computed.derived_is(derived):
            return self._computed
        self._computed = Computed(derived)
        return self._computed

    def parts(self) -> dict[str, Any]:
        """The parts, by the names templates know them by."""
        return {
            "links": self.links,
            "prose": self.prose,
            "figures": self.figures,
            "query": self.query,
        }

    def carry(self, last: SiteView, changed: set[Token]) -> None:
        """Take from the last build's view what its pages shared (prose rendered,
        citations, list items) that read nothing `changed`: the next page to show it
        need not make it again."""
        for mine, theirs in zip(self._shared(), last._shared(), strict=True):
            mine.carry(theirs, changed)

    def ready(self) -> None:
        """Index now what each value its pages shared read, for the next build's `carry`."""
        for memo in self._shared():
            memo.ready()

    def _shared(self) -> tuple[SharedMemo, ...]:
        shared = (*self.prose.shared, *self.citations.shared, *self.query.shared)
        return (*shared, self.previews, self.blocks)

    def nav_list(self, current: str) -> Markup:
        """The navigation as `nav.html` lists it, the page at `current` marked: rendered
        once for each page it links to and once for all the others, as every page shows it."""
        marked = current if current in self._nav_urls else ""
        return READS.lookup(self._nav_lists, marked, self._nav_made, marked)

    def _nav_made(self, current: str) -> Markup:
        assert self.env is not None, "the build sets the templates"
        return Markup(self.env.get_template("nav.html").render(current=current))

    def trail(self, url: str, title: str) -> list[Crumb]:
        """The breadcrumb of the page at `url`, whose title is `title`."""
        return self._trail(url, title)

    def nav_menu(self, current: str) -> Markup:
        """The masthead's menu as `nav_menu.html` renders it, the page at `current`
        marked; made once for each page it links to and once for all the others."""
        marked = current if current in self._menu_urls else ""
        return READS.lookup(self._nav_menus, marked, self._menu_made, marked)

    def _menu_made(self, current: str) -> Markup:
        assert self.env is not None, "the build sets the templates"
        return Markup(self.env.get_template("nav_menu.html").render(current=current))

    def use_templates(self, env: Environment) -> None:
        """The templates the pages render with, and the prose's list items too."""
        self.env = self.prose.env = env
        env.kept_blocks = self.blocks  # type: ignore[attr-defined]

    def use_proofs(self, proofs: QuoteReport | None) -> None:
        """What check proved of the quotes, which the sources' citations show. Each
        source's proven quotes are made of the report and the source's id alone: the
        table of them is of the report's version and the sources' ids (`Table.version`)."""
        self.citations.proofs = proofs
        if proofs is not None:
            ids = [source.id for source in Record.of(self.record, "source")]
            self.citations.proven_table.version = key_of("proven", proofs.version, *ids)
        self.query.watch.use_proofs(proofs)

    def use_derived(self, derived: Derived) -> None:
        """What derive computed, for the pages that show it and the prose that says a
        computed value (`embedded.py`). The charts' drawing begins (`drawn.finish` waits
        for it)."""
        self._computed = self._computed_of(derived)
        self.prose.renderer.embedded = Embedded(self._computed, self.record, self.urls).said
        kept = Store.of(self.record.root).folder("charts") if self.record.of("chart") else None
        self._drawn = DrawnCharts(self.record, derived, self.urls, kept)
        self._drawn.start()
        self.once.clear()
