"""Where a page sits: the masthead's menu, grouped, and the breadcrumb above the text.

The menu holds the navigation's links (the exemplar's seventeen, as the foot lists them)
under a few headings, so that they fit a line on a desktop and one disclosure on a phone.
The breadcrumb is read from the page's URL: each folder above it that the navigation
names, then the category of a source, then the page itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sourcebook.publish.site.pages.urls import Urls
from sourcebook.publish.site.view.query import CATEGORY_LABELS


@dataclass(frozen=True, slots=True)
class NavItem:
    """One link of the site's navigation."""

    label: str
    url: str
    count: int
    """How many entities the page lists; 0 for a page that is not a list of them."""
    group: str = ""
    """The heading it stands under in the masthead's menu ("The book", …)."""


@dataclass(frozen=True, slots=True)
class MenuGroup:
    heading: str
    items: tuple[NavItem, ...]


def menu(nav: list[NavItem], about: NavItem, order: Sequence[str] = ()) -> list[MenuGroup]:
    """The navigation's links under their headings, the headings in `order` (then any
    other in the navigation's order); the about page of the book first under "About"."""
    groups: dict[str, list[NavItem]] = {heading: [] for heading in order}
    for item in nav:
        groups.setdefault(item.group or "About", []).append(item)
    groups.setdefault("About", []).insert(0, about)
    return [MenuGroup(heading, tuple(items)) for heading, items in groups.items() if items]


@dataclass(frozen=True, slots=True)
class Crumb:
    label: str
    url: str


class Trail:
    """The breadcrumb of each page, from the navigation's names of the site's folders."""

    def __init__(self, urls: Urls, nav: list[NavItem], home_label: str):
        self.urls = urls
        self.home = Crumb(home_label, urls.section("home"))
        self.names = {item.url: item.label for item in nav if item.url.startswith("/")}
        self.names[urls.section("about")] = "About the book"

    def __call__(self, url: str, title: str) -> list[Crumb]:
        """Home, each folder above `url` that has a name, and the page itself (`title`);
        empty for the home page, which needs none."""
        home = self.home.url
        if not url.startswith(home) or url == home:
            return []
        parts = url[len(home) :].split("/")
        crumbs = [self.home]
        for depth in range(1, len(parts)):
            folder = home + "/".join(parts[:depth])
            label = self.names.get(folder) or self._category(parts, depth)
            if label:
                crumbs.append(Crumb(label, folder))
        return [*crumbs, Crumb(title.split(" · ")[0], "")]

    def _category(self, parts: list[str], depth: int) -> str:
        """A source category's folder (`sources/press`) by the name its page has."""
        if depth == 2 and parts[0] == "sources":
            return CATEGORY_LABELS.get(parts[1], parts[1].capitalize())
        return ""
