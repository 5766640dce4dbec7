"""The URL of every page and entity, under the volume's base path, and the file behind each.

URLs are the exemplar's: no trailing slash and no `.html` (`/vol1/glossary/cluster`).
The page for `/vol1/glossary/cluster` is written to `vol1/glossary/cluster/index.html`, the
one layout every static host serves without configuration (`python -m http.server`,
nginx's defaults, GitHub Pages, Netlify, Cloudflare Pages, an S3 website): each answers the
URL with its trailing slash, and the bare URL with a redirect to it. `sourcebook serve`
does the same.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sourcebook.model.base import Entity
from sourcebook.model.settings import Site
from sourcebook.runtime.memo import memoized


def _term(e: Entity) -> str:
    return f"glossary/{e.id}"


def _chapter(e: Entity) -> str:
    return f"notes/{e.id}"


def _campus(e: Entity) -> str:
    return f"ledger/{e.id}"


def _indicator(e: Entity) -> str:
    return f"scorecard#row-{e.row}"  # type: ignore[attr-defined]


def _test(e: Entity) -> str:
    return f"tests/{e.id}"


def _source(e: Entity) -> str:
    return f"sources/{e.category.value}#{e.id}"  # type: ignore[attr-defined]


def _person(e: Entity) -> str:
    return f"people/{e.id}"


def _party(e: Entity) -> str:
    return f"parties/{e.id}"


def _correction(e: Entity) -> str:
    page = "corrections" if e.scope.value == "book" else "corrections/sources"  # type: ignore[attr-defined]
    return f"{page}#{e.id}"


def _scenario(e: Entity, paths: Mapping[str, str]) -> str:
    # A scenario lives at the volume's top level, as the book links it (/vol1/hyperion),
    # unless its id is a section's: then under futures/, so that neither hides the other.
    taken = {path.split("/", 1)[0] for path in paths.values()} | {
        "static",
        "404.html",
        "pagefind",
    }
    return f"futures/{e.id}" if e.id in taken else e.id


def _chart(e: Entity) -> str:
    return f"observatory#{e.id}"


def _paper(e: Entity) -> str:
    return "paper"  # a record has one paper (check says so): the navigation's "The Paper"


_PATHS: dict[str, Callable[[Entity], str]] = {
    "term": _term,
    "chapter": _chapter,
    "campus": _campus,
    "indicator": _indicator,
    "test": _test,
    "source": _source,
    "person": _person,
    "party": _party,
    "correction": _correction,
    "chart": _chart,
    "paper": _paper,
}
"""Where each kind lives but the scenario (`entity_path`); a kind without its own page
lives at an anchor of a list page."""


def entity_path(entity: Entity, paths: Mapping[str, str]) -> str | None:
    """Where `entity` lives below the volume, on a site whose named pages are at `paths`
    (`sections.paths`); None for a kind the site has no page for."""
    if entity.KIND == "scenario":
        return _scenario(entity, paths)
    where = _PATHS.get(entity.KIND)
    return where(entity) if where is not None else None


def normalize_base_path(base_path: str) -> str:
    """'/vol1' from 'vol1', '/vol1/' or '/vol1'; '' for the site's root."""
    stripped = base_path.strip().strip("/")
    return f"/{stripped}" if stripped else ""


class Urls:
    """Site-relative URLs (starting with /) and absolute ones for canonical links and feeds."""

    def __init__(self, site: Site, paths: Mapping[str, str]):
        """`paths`: where each named page lives below the volume (`sections.paths`; a
        site's are made by `sections.site_urls`)."""
        self.base = normalize_base_path(site.base_path)
        self.paths = dict(paths)
        origin = site.base_url.strip().rstrip("/")
        self.origin = origin if origin.startswith(("https://", "http://")) else ""

    def path(self, relative: str) -> str:
        """The URL of a path below the volume: '' is the volume's home, '/vol1/'."""
        return f"{self.base}/{relative}" if relative else f"{self.base}/"

    def section(self, name: str) -> str:
        return self.path(self.paths[name])

    def entity(self, entity: Entity) -> str:
        """The URL of an entity of a kind the site shows (KeyError for any other)."""
        where = entity_path(entity, self.paths)
        if where is None:
            raise KeyError(entity.KIND)
        return self.path(where)

    def page_of(self, entity: Entity) -> str | None:
        """The entity's URL, or None where the site has no page for its kind."""
        where = entity_path(entity, self.paths)
        return self.path(where) if where is not None else None

    def source_category(self, category: str) -> str:
        return self.path(f"sources/{category}")

    def source_page(self, source: Entity) -> str:
        """A source's own small page, for reference managers (see `citation_meta`)."""
        return self.path(f"sources/{source.category.value}/{source.id}")  # type: ignore[attr-defined]

    def chart_csv(self, chart: Entity) -> str:
        """A chart's data as CSV: /vol1/observatory/ID.csv."""
        return self.path(f"{self.paths['observatory']}/{chart.id}.csv")

    def release_file(self, version: str, path: str) -> str:
        """Where a file of a data release is served: /vol1/data/releases/VERSION/PATH."""
        return self.path(f"{self.paths['data']}/{version}/{path}")

    def static(self, name: str) -> str:
        return self.path(f"static/{name}")

    def library_copy(self, shelf: str) -> str:
        """The page of one copy the Library holds: /vol1/library/S4."""
        return self.path(f"{self.paths['library']}/{shelf}")

    def absolute(self, url: str) -> str:
        """The full URL where base_url is set; the site-relative one where it is not."""
        return self.origin + url

    @staticmethod
    @memoized(maxsize=1 << 17)
    def file_for(url: str) -> str:
        """The file, relative to the output folder, that serves `url`: a URL whose last
        segment has no extension is a folder's `index.html` (remembered: every page's file
        is named at every build)."""
        path = url.split("#", 1)[0].lstrip("/")
        if any(part in (".", "..") for part in path.split("/")):
            raise ValueError(f"{url}: a page's URL may not leave the site")
        if path == "" or path.endswith("/"):
            return path + "index.html"
        last = path.rsplit("/", 1)[-1]
        return path if "." in last else path + "/index.html"
