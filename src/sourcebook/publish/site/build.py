"""build_site: a checked record in, its companion website out, swapped in whole."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sourcebook.derive import Derived
from sourcebook.link import Graph
from sourcebook.model.addresses import safe_link
from sourcebook.model.record import Record
from sourcebook.pipeline import Checked, derive_checked
from sourcebook.publish.site.api import with_twins
from sourcebook.publish.site.pages import FEED_TEMPLATE, Page, navigation, site_pages
from sourcebook.publish.site.previews import previews_json, previews_url
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
from sourcebook.publish.site.search import Indexed, SearchError, SearchJob, bundle_path, entries
from sourcebook.publish.site.swap import SwapError, staged, write_file
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
    search: Indexed | None = None
    """The search index, where the build made one."""
    search_job: SearchJob | None = None
    """What indexing the site needs, for `serve` to do after the build."""


def build_site(
    checked: Checked,
    out_dir: Path | str,
    *,
    progress: Callable[[int, int], None] | None = None,
    jobs: int | None = None,
    derived: Derived | None = None,
    notify_url: str | None = None,
    search: bool = True,
) -> Built:
    """Write the site of `checked` into `out_dir`; a record with errors is never built.

    `derived` is what the derive stage computed from `checked` (computed here where not
    given). `progress(done, total)` is called as pages are written. The site is written beside
    `out_dir` and swapped in only once it is whole, with its search index unless `search`
    is False (`serve` makes it after, with `Built.search_job`).
    """
    with SiteBuild(jobs, notify_url, search) as site:
        return site.finish(checked, out_dir, progress=progress, derived=derived)


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
    """One build of a record's site, which may begin as soon as the record is linked.

    `begin` (the `linked` step of `pipeline.check`) prepares the pages and, on two or more
    cores, has workers render the prose they draw on while this process checks the record.
    `finish` writes the site, and only for a record that check passed; leaving the `with`
    block stops any worker still running. Without `begin`, `finish` does it all.
    """

    def __init__(self, jobs: int | None = None, notify_url: str | None = None, search: bool = True):
        self._jobs = jobs
        self._search = search
        self._notify_url = notify_url
        """Where the sign-up form posts, instead of `[notify] url` (`serve`'s own service)."""
        self._prepared: _Prepared | None = None
        self._error: BuildError | None = None
        self._prose: ProseWorkers | None = None

    def __enter__(self) -> SiteBuild:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._prose is not None:
            self._prose.cancel()

    def begin(self, record: Record, graph: Graph) -> None:
        try:
            prepared = self._prepared = _prepare(record, graph, self._jobs, self._notify_url)
        except BuildError as exc:
            self._error = exc  # told by `finish`, after what check found
            return
        if prepared.jobs > 1:
            try:
                self._prose = ProseWorkers(prepared.view, prepared.jobs)
            except RenderError as exc:
                self._error = BuildError(str(exc))

    def finish(
        self,
        checked: Checked,
        out_dir: Path | str,
        *,
        progress: Callable[[int, int], None] | None = None,
        derived: Derived | None = None,
    ) -> Built:
        started = time.perf_counter()
        if not checked.ok or checked.record is None:
            raise BuildError("the record has errors: run 'sourcebook check' to see them")
        if self._prepared is None and self._error is None:
            self.begin(checked.record, checked.graph)
        if self._error is not None:
            raise self._error
        site = self._prepared
        assert site is not None and site.record is checked.record
        pages, urls, view, done = site.pages, site.urls, site.view, 0

        def derive() -> None:
            view.use_derived(derived if derived is not None else derive_checked(checked))

        def tick(count: int) -> None:
            nonlocal done
            done += count
            if progress is not None:
                progress(done, len(pages))

        releases = Urls.file_for(urls.section("data")).removesuffix(".html")
        copies = static_files(site.record.root, urls)
        copies |= {f"{releases}/{path}": at for path, at in release_files(site.releases).items()}
        previews = Urls.file_for(previews_url(urls.base))
        files = {*copies, *(Urls.file_for(page.url) for page in pages), previews}
        indexed = None
        try:
            with staged(Path(out_dir), files) as staging:
                copy_files(copies, staging)
                assert view.env is not None
                writer = Writer(view.env, view, staging)
                write_pages(writer, pages, site.jobs, tick, meanwhile=derive, prose=self._prose)
                write_file(staging / previews, previews_json(view).encode("utf-8"))
                job = SearchJob(urls.base, site.record.settings.site.language, entries(view))
                if self._search:
                    indexed = job.run(staging, staging)
        except (SwapError, RenderError, SearchError) as exc:
            raise BuildError(str(exc)) from None
        seconds = time.perf_counter() - started
        return Built(Path(out_dir), len(pages), seconds, site.jobs, indexed, job)


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
        "search_url": view.section("search"),
        "search_bundle": bundle_path(view.urls.base),
        "previews_url": previews_url(view.urls.base),
    }


def notify_globals(view: SiteView, service_url: str | None = None) -> dict[str, Any]:
    """The sign-up form where the record has a service for it; the footer's link leads there."""
    from sourcebook.notify.site import signup_form

    form = signup_form(view.record.settings, service_url)
    if form is None:
        return {"notify": None}
    return {"notify": form, "notify_url": f"{view.section('home')}#notify"}
