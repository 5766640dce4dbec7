"""build_site: a checked record in, its companion website out, swapped in whole."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from sourcebook.check.result import Checked
from sourcebook.derive import Derived, derive_checked
from sourcebook.library.report import QuoteReport
from sourcebook.link import Graph
from sourcebook.model.addresses import safe_link
from sourcebook.model.record import Record
from sourcebook.publish.site.api import with_twins
from sourcebook.publish.site.feeds import feed
from sourcebook.publish.site.pages import FEED_TEMPLATE, Page, navigation, site_pages
from sourcebook.publish.site.releases import (
    Release,
    ReleaseReadError,
    read_releases,
    release_files,
)
from sourcebook.publish.site.render import (
    ProseWorkers,
    RenderError,
    Writer,
    copy_files,
    default_jobs,
    environment,
    static_files,
    write_pages,
)
from sourcebook.publish.site.structured import json_ld
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
    notify_url: str | None = None,
) -> Built:
    """Write the site of `checked` into `out_dir`; a record with errors is never built.

    `derived` is what the derive stage computed from `checked` (computed here where not
    given). `progress(done, total)` is called as pages are written. The site is written beside
    `out_dir` and swapped in only once it is whole.
    """
    if not checked.ok or checked.record is None:
        raise BuildError(RECORD_HAS_ERRORS)
    with SiteBuild(checked.record, checked.graph, jobs, notify_url) as site:
        site.cite(checked.proofs)
        return site.write(out_dir, derived or derive_checked(checked), progress=progress)


RECORD_HAS_ERRORS = "the record has errors: run 'sourcebook check' to see them"


@dataclass
class _Prepared:
    """What every page of a build shares, made from the linked record."""

    record: Record
    urls: Urls
    releases: list[Release]
    view: SiteView
    pages: list[Page]
    jobs: int


class SiteBuild:
    """One build of a linked record's site, in three steps: `render_prose` (optional) has
    workers render the prose every page draws on, which needs nothing but the linked
    record, so that it overlaps with check; `cite` takes check's proof of the quotes, which
    the sources' citations show; `write` writes the pages and swaps the site in. Leaving
    the `with` block stops any worker still running.
    """

    def __init__(
        self, record: Record, graph: Graph, jobs: int | None = None, notify_url: str | None = None
    ):
        self._prepared: _Prepared | None = None
        self._error: BuildError | None = None
        self._prose: ProseWorkers | None = None
        self._proofs: QuoteReport | None = None
        try:
            self._prepared = _prepare(record, graph, jobs, notify_url)
        except BuildError as exc:
            self._error = exc  # told by `write`, after what check found

    def __enter__(self) -> SiteBuild:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._prose is not None:
            self._prose.cancel()

    def render_prose(self) -> None:
        """On two or more cores, start workers rendering the prose while this process goes
        on (checking the record)."""
        site = self._prepared
        if site is None or site.jobs <= 1 or self._prose is not None:
            return
        try:
            self._prose = ProseWorkers(site.view, site.jobs)
        except RenderError as exc:
            self._error = BuildError(str(exc))

    def cite(self, proofs: QuoteReport | None) -> None:
        """What check proved of the quotes; the workers render the sources' citations."""
        self._proofs = proofs
        if self._prepared is not None:
            self._prepared.view.use_proofs(proofs)
        if self._prose is not None:
            self._prose.cite(proofs)

    def write(
        self,
        out_dir: Path | str,
        derived: Derived,
        *,
        progress: Callable[[int, int], None] | None = None,
    ) -> Built:
        started = time.perf_counter()
        if self._error is not None:
            raise self._error
        site = self._prepared
        assert site is not None
        pages, urls, view, done = site.pages, site.urls, site.view, 0
        view.use_derived(derived)

        def tick(count: int) -> None:
            nonlocal done
            done += count
            if progress is not None:
                progress(done, len(pages))

        releases = Urls.file_for(urls.section("data")).removesuffix(".html")
        copies = static_files(site.record.root, urls)
        copies |= {f"{releases}/{path}": at for path, at in release_files(site.releases).items()}
        files = {*copies, *(Urls.file_for(page.url) for page in pages)}
        try:
            self._adopt_prose()
            with staged(Path(out_dir), files) as staging:
                copy_files(copies, staging)
                assert view.env is not None
                write_pages(Writer(view.env, view, staging), pages, site.jobs, tick)
        except (SwapError, RenderError) as exc:
            raise BuildError(str(exc)) from None
        return Built(Path(out_dir), len(pages), time.perf_counter() - started, site.jobs)

    def _adopt_prose(self) -> None:
        """The prose every page draws on, brought back from the workers (started here if
        `render_prose` did not)."""
        if self._prose is None:
            self.render_prose()
            if self._error is not None:
                raise self._error
            if self._prose is None:
                return
            self._prose.cite(self._proofs)
        try:
            self._prose.adopt()
        finally:
            self._prose.cancel()


def _prepare(
    record: Record, graph: Graph, jobs: int | None, notify_url: str | None = None
) -> _Prepared:
    urls = Urls(record.settings.site)
    try:
        releases = read_releases(record.root)
    except ReleaseReadError as exc:
        raise BuildError(str(exc)) from None
    nav = navigation(record, urls, releases)
    view = SiteView(record, graph, urls, nav, releases=releases)
    pages = with_twins(site_pages(record, urls, releases), urls.base)
    feeds = [(p.context["feed_title"], p.url) for p in pages if p.template == FEED_TEMPLATE]
    globals_ = {**template_globals(view), **notify_globals(view, notify_url), "feeds": feeds}
    view.env = environment(record.root, globals_)
    return _Prepared(record, urls, releases, view, pages, jobs or default_jobs(len(pages)))


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
        "structured": partial(json_ld, view),
        "feed": partial(feed, view),
    }


def notify_globals(view: SiteView, service_url: str | None = None) -> dict[str, Any]:
    """The sign-up form where the record has a service for it; the footer's link leads there."""
    from sourcebook.notify.site import signup_form

    form = signup_form(view.record.settings, service_url)
    if form is None:
        return {"notify": None}
    return {"notify": form, "notify_url": f"{view.section('home')}#notify"}
