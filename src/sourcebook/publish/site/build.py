"""build_site: a checked record in, its companion website out, swapped in whole."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sourcebook.derive import Derived
from sourcebook.pipeline import Checked, derive_checked
from sourcebook.publish.site.api import with_twins
from sourcebook.publish.site.pages import FEED_TEMPLATE, navigation, site_pages
from sourcebook.publish.site.prose import safe_link
from sourcebook.publish.site.releases import ReleaseReadError, copy_releases, read_releases
from sourcebook.publish.site.render import (
    Writer,
    copy_static,
    default_jobs,
    environment,
    write_pages,
)
from sourcebook.publish.site.swap import SwapError, staged
from sourcebook.publish.site.urls import Urls
from sourcebook.publish.site.view import SiteView
from sourcebook.publish.site.wording import book_line, book_title, ordinal


class BuildError(Exception):
    """The site cannot be built; the message says why, for a person."""


@dataclass(frozen=True)
class Built:
    out: Path
    pages: int
    seconds: float
    jobs: int
    """The processes that rendered the pages."""


def build_site(
    checked: Checked,
    out_dir: Path | str,
    *,
    progress: Callable[[int, int], None] | None = None,
    jobs: int | None = None,
    derived: Derived | None = None,
) -> Built:
    """Write the site of `checked` into `out_dir`; a record with errors is never built.

    `derived` is what the derive stage computed from `checked` (computed here where not
    given). `progress(done, total)` is called as pages are written. The site is written beside
    `out_dir` and swapped in only once it is whole.
    """
    started = time.perf_counter()
    if not checked.ok or checked.record is None:
        raise BuildError("the record has errors: run 'sourcebook check' to see them")
    record = checked.record
    urls = Urls(record.settings.site)
    try:
        releases = read_releases(record.root)
    except ReleaseReadError as exc:
        raise BuildError(str(exc)) from None
    nav = navigation(record, urls, releases)
    view = SiteView(record, checked.graph, urls, nav, releases=releases)
    pages = with_twins(site_pages(record, urls, releases), urls.base)
    feeds = [(p.context["feed_title"], p.url) for p in pages if p.template == FEED_TEMPLATE]
    env = view.env = environment(record.root, {**template_globals(view), "feeds": feeds})
    jobs = jobs or default_jobs(len(pages))
    done = 0

    def derive() -> None:
        view.use_derived(derived if derived is not None else derive_checked(checked))

    def tick(count: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress(done, len(pages))

    try:
        with staged(Path(out_dir)) as staging:
            copy_static(record.root, staging, urls)
            copy_releases(
                releases, staging / Urls.file_for(urls.section("data")).removesuffix(".html")
            )
            writer = Writer(env, view, staging)
            write_pages(writer, pages, jobs, tick, meanwhile=derive)
    except SwapError as exc:
        raise BuildError(str(exc)) from None
    return Built(Path(out_dir), len(pages), time.perf_counter() - started, jobs)


def safe(url: str) -> str:
    """A URL from the settings, or '' where it could run code."""
    return url if safe_link(url) else ""


def template_globals(view: SiteView) -> dict[str, Any]:
    """What every template sees besides its page's own context."""
    site = view.site
    return {
        "view": view,
        "home": view.section("home"),
        "static": view.static(""),
        "book": view.book,
        "site": site,
        "book_title": book_title(view.book),
        "book_line": book_line(view.book),
        "volume": ordinal(view.book.volume),
        "book_url": safe(site.book_url),
        "about_url": safe(site.book_url.split("#", 1)[0]),
        "notify_url": safe(site.notify_url),
    }
