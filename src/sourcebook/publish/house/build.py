"""write_house: every volume of a checked house under its base path, and the house's own
pages, in one site swapped in whole."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from sourcebook.check.house import volume_name
from sourcebook.check.result import Checked, CheckedHouse
from sourcebook.derive import Derived
from sourcebook.publish.house.series import CORRECTIONS_URL, HouseView, SeriesCorrections
from sourcebook.publish.site.build import BuildError, Built, SiteBuild
from sourcebook.publish.site.formats.feeds import timestamp
from sourcebook.publish.site.pages.render import STATIC, template_errors
from sourcebook.publish.site.serving.policy import HEADERS_FILE, headers_file
from sourcebook.publish.site.serving.swap import SwapError, staged, write_file
from sourcebook.publish.site.view.wording import day

HERE = Path(__file__).parent
FEED_URL = "/corrections.atom"
HOME_API = "/api/index.json"
CORRECTIONS_API = "/api/corrections.json"
SITEMAP_URL = "/sitemap.xml"
HOUSE_SITEMAP_URL = "/house-sitemap.xml"
ROBOTS_URL = "/robots.txt"


def write_house(
    checked: CheckedHouse,
    volumes: Sequence[tuple[Checked, Derived]],
    out_dir: Path | str,
    *,
    jobs: int | None = None,
    notify_urls: dict[str, str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Built:
    """The publish stage of a house: write its site into `out_dir`, each volume (as it is
    published, with what derive made of it) as `write_site` writes it under its own base
    path, and the house's pages at the root. A house with errors in any volume is never
    written; the site is swapped in only once it is whole."""
    if not checked.ok or checked.house is None:
        raise BuildError(HOUSE_HAS_ERRORS)
    started = time.perf_counter()
    series = SeriesCorrections.gather(checked)
    done = 0
    with ExitStack() as stack:
        builds = []
        files = set(HOUSE_FILES)
        for shown, derived in volumes:
            assert shown.record is not None
            name = volume_name(shown.record)
            site = SiteBuild(
                shown.record,
                shown.graph,
                jobs=jobs,
                notify_url=(notify_urls or {}).get(name),
                series=series.in_series(name),
            )
            stack.enter_context(site).cite(shown.proofs)
            files |= site.files()
            builds.append((name, site, derived))
        house = HousePages(checked, series, {name: site.view for name, site, _ in builds})
        files |= house.files()
        try:
            with staged(Path(out_dir), files) as staging:
                for _, site, derived in builds:
                    done += site.write_into(staging, derived, progress=_offset(progress, done))
                total = done + house.write(staging)
        except SwapError as exc:
            raise BuildError(str(exc)) from None
    return Built(Path(out_dir), total, time.perf_counter() - started, jobs or 1)


HOUSE_HAS_ERRORS = "the house has errors: run 'sourcebook check' on it to see them"


def _offset(
    progress: Callable[[int, int], None] | None, before: int
) -> Callable[[int, int], None] | None:
    if progress is None:
        return None
    return lambda done, total: progress(before + done, before + total)


HOUSE_FILES = {
    "index.html",
    "corrections/index.html",
    "404.html",
    "static/site.css",
    "static/print.css",
    "static/house.css",
    "static/house.js",
    HOME_API.lstrip("/"),
    CORRECTIONS_API.lstrip("/"),
    HEADERS_FILE,
}


class HousePages:
    """The house's front page, its "Where its sources were wrong", their JSON twins, the
    feed, the not-found page and their static files."""

    def __init__(self, checked: CheckedHouse, series: SeriesCorrections, views: dict[str, Any]):
        assert checked.house is not None
        self.house = checked.house.info
        self.series = series
        self.view = HouseView(series, views)
        self.volumes = list(views.values())
        self.origin = self.house.base_url.rstrip("/")
        self.env = Environment(
            loader=FileSystemLoader(HERE / "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.globals.update(
            house=self.house,
            books=series.books,
            parts=series.parts,
            logged=series.logged,
            hv=self.view,
            day=day,
            timestamp=timestamp,
            feed_url=FEED_URL if self.origin else "",
        )

    def files(self) -> set[str]:
        mapped = {FEED_URL, SITEMAP_URL, HOUSE_SITEMAP_URL} if self.origin else set()
        return {url.lstrip("/") for url in (*mapped, ROBOTS_URL)}

    def write(self, out: Path) -> int:
        """Write every page and file into `out`; the number of pages."""
        (out / "static").mkdir(parents=True, exist_ok=True)
        (out / "api").mkdir(parents=True, exist_ok=True)
        for name in ("site.css", "print.css"):
            write_file(out / "static" / name, (STATIC / name).read_bytes())
        for name in ("house.css", "house.js"):
            write_file(out / "static" / name, (HERE / "static" / name).read_bytes())
        pages = [
            ("index.html", "house_home.html", "/", HOME_API),
            ("corrections/index.html", "house_corrections.html", CORRECTIONS_URL, CORRECTIONS_API),
            ("404.html", "house_404.html", "/404.html", None),
        ]
        (out / "corrections").mkdir(exist_ok=True)
        for file, template, url, api in pages:
            context = {"current": url, "canonical": self.origin + url}
            if api:
                context["api"] = api
            write_file(out / file, self._render(template, context))
        write_file(out / HEADERS_FILE, headers_file(self.volumes))
        write_file(out / HOME_API.lstrip("/"), _json(self._home_json()))
        write_file(out / CORRECTIONS_API.lstrip("/"), _json(self.view.as_json(self.origin)))
        if self.origin:
            updated = timestamp(self.series.logged[0].date) if self.series.logged else None
            context = {
                "origin": self.origin,
                "page_url": FEED_URL,
                "feed_path": FEED_URL,
                "updated": updated
                or timestamp(max(b.record.settings.book.stands_at() for b in self.series.books)),
            }
            write_file(out / FEED_URL.lstrip("/"), self._render("house_feed.atom", context))
        self._write_maps(out)
        return len(pages) + 2 + bool(self.origin)

    def _write_maps(self, out: Path) -> None:
        """robots.txt, and where the house has an address the sitemap of the whole site:
        an index of the house's own pages and of each volume's sitemap, each with the day
        it last changed."""
        robots = "User-agent: *\nAllow: /\n"
        if self.origin:
            robots += f"Sitemap: {self.origin}{SITEMAP_URL}\n"
            closes = max(b.record.settings.book.stands_at() for b in self.series.books).isoformat()
            logged = max([c.date for c in self.series.logged], default="")
            house_day = max(closes, str(logged))
            urls = "".join(
                f"<url><loc>{escape(self.origin + url)}</loc><lastmod>{house_day}</lastmod></url>\n"
                for url in ("/", CORRECTIONS_URL)
            )
            maps = [(HOUSE_SITEMAP_URL, house_day)] + [
                (f"{book.url}sitemap.xml", book.record.settings.book.stands_at().isoformat())
                for book in self.series.books
            ]
            index = "".join(
                f"<sitemap><loc>{escape(self.origin + url)}</loc>"
                f"<lastmod>{when}</lastmod></sitemap>\n"
                for url, when in maps
            )
            head = '<?xml version="1.0" encoding="UTF-8"?>\n'
            space = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'
            write_file(
                out / HOUSE_SITEMAP_URL.lstrip("/"),
                f"{head}<urlset {space}>\n{urls}</urlset>\n".encode(),
            )
            write_file(
                out / SITEMAP_URL.lstrip("/"),
                f"{head}<sitemapindex {space}>\n{index}</sitemapindex>\n".encode(),
            )
        write_file(out / ROBOTS_URL.lstrip("/"), robots.encode())

    def _render(self, template: str, context: dict[str, Any]) -> bytes:
        with template_errors(f"while rendering the house's {template}"):
            return self.env.get_template(template).render(**context).encode("utf-8")

    def _home_json(self) -> dict[str, Any]:
        return {
            "house": self.house.name,
            "series": self.house.series,
            "corrections": CORRECTIONS_URL,
            "volumes": [
                {
                    "book": book.name,
                    "title": book.record.settings.book.title,
                    "subtitle": book.record.settings.book.subtitle,
                    "author": book.record.settings.book.author,
                    "volume": book.record.settings.book.volume,
                    "closes": str(book.record.settings.book.closes or ""),
                    "url": book.url,
                    "counts": {kind: len(book.record.entities[kind]) for kind in _kinds(book)},
                    "quotes": dict(zip(("proved", "made"), self.view.quotes(book), strict=True)),
                }
                for book in self.series.books
            ],
        }


def _kinds(book: Any) -> list[str]:
    return sorted(kind for kind, found in book.record.entities.items() if found)


def _json(data: Any) -> bytes:
    return (json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")
