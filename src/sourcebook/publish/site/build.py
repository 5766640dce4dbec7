"""build_site: a checked record in, its companion website out, swapped in whole."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sourcebook.derive import Derived
from sourcebook.link import Graph
from sourcebook.model.addresses import safe_link
from sourcebook.model.record import Record
from sourcebook.pipeline import Checked, derive_checked, published
from sourcebook.publish.site.api import with_twins
from sourcebook.publish.site.pages import (
    CSV_TEMPLATE,
    FEED_TEMPLATE,
    NOT_FOUND_URL,
    ROOT_URL,
    PDF_TEMPLATE,
    Page,
    navigation,
    site_pages,
)
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
from sourcebook.publish.site.series import InSeries
from sourcebook.publish.site.swap import SwapError, staged, write_file
from sourcebook.publish.site.urls import Urls
from sourcebook.publish.site.vega import ChartRenderError
from sourcebook.publish.site.view import SiteView
from sourcebook.publish.site.wording import book_line, book_title, ordinal


def _chart_csv(view: SiteView, page: Page) -> bytes:
    return view.drawn.csv(page.context["chart"]).encode("utf-8")


def _paper_pdf(view: SiteView, page: Page) -> bytes:
    from sourcebook.publish.site.typeset import paper_pdf

    return paper_pdf(view, page.context["paper"])


FILE_WRITERS = {CSV_TEMPLATE: _chart_csv, PDF_TEMPLATE: _paper_pdf}


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
    drafts: bool = False,
    search: bool = True,
) -> Built:
    """Write the site of `checked` into `out_dir`; a record with errors is never built.

    `derived` is what the derive stage computed from `checked` (computed here where not
    given). `progress(done, total)` is called as pages are written. The site is written beside
    `out_dir` and swapped in only once it is whole, with its search index unless `search`
    is False (`serve` makes it after, with `Built.search_job`). Drafts are left out of every
    file of it, unless `drafts`: then they are in, each marked as a draft.
    """
    with SiteBuild(jobs, notify_url, drafts=drafts, search=search) as site:
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
    copies: dict[str, Path] = field(default_factory=dict)
    """Static and release files: where each goes in the site, and where it comes from."""
    previews: str = ""
    """The file of what each entity's link shows."""


class SiteBuild:
    """One build of a record's site, which may begin as soon as the record is linked.

    `begin` (the `linked` step of `pipeline.check`) prepares the pages and, on two or more
    cores, has workers render the prose they draw on while this process checks the record.
    `finish` writes the site, and only for a record that check passed; leaving the `with`
    block stops any worker still running. Without `begin`, `finish` does it all.
    """

    def __init__(
        self,
        jobs: int | None = None,
        notify_url: str | None = None,
        series: InSeries | None = None,
        drafts: bool = False,
        search: bool = True,
    ):
        self._jobs = jobs
        self._search = search
        self._notify_url = notify_url
        """Where the sign-up form posts, instead of `[notify] url` (`serve`'s own service)."""
        self._series = series
        """The volume's place in a house's site, where it is built as one."""
        self._drafts = drafts
        """Whether the site shows the record's drafts (`serve`, `build --drafts`)."""
        self._prepared: _Prepared | None = None
        self._shown: Checked | None = None
        """What the site shows of the checked record: without its drafts, unless `drafts`."""
        self._error: BuildError | None = None
        self._prose: ProseWorkers | None = None
        self.indexed: Indexed | None = None
        """The search index the build made (where `search`)."""
        self.search_job: SearchJob | None = None
        """What indexing the site needs, for `serve` to do after the build."""

    def __enter__(self) -> SiteBuild:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._prose is not None:
            self._prose.cancel()

    def begin(self, record: Record, graph: Graph) -> None:
        if not self._drafts and record.has_drafts():
            return  # the site is made from the record without them, once it is checked
        self._prepare(record, graph)
        prepared = self._prepared
        if prepared is not None and prepared.jobs > 1:
            try:
                self._prose = ProseWorkers(prepared.view, prepared.jobs)
            except RenderError as exc:
                self._error = BuildError(str(exc))

    def _prepare(self, record: Record, graph: Graph) -> None:
        try:
            self._prepared = _prepare(record, graph, self._jobs, self._notify_url, self._series)
        except BuildError as exc:
            self._error = exc  # told by `finish`, after what check found

    def finish(
        self,
        checked: Checked,
        out_dir: Path | str,
        *,
        progress: Callable[[int, int], None] | None = None,
        derived: Derived | None = None,
    ) -> Built:
        started = time.perf_counter()
        files = self.files(checked)
        try:
            with staged(Path(out_dir), files) as staging:
                pages = self.write(checked, staging, progress=progress, derived=derived)
        except SwapError as exc:
            raise BuildError(str(exc)) from None
        assert self._prepared is not None
        seconds = time.perf_counter() - started
        jobs = self._prepared.jobs
        return Built(Path(out_dir), pages, seconds, jobs, self.indexed, self.search_job)

    def files(self, checked: Checked) -> set[str]:
        """Every file the site will hold, relative to its folder; the pages prepared."""
        if not checked.ok or checked.record is None:
            raise BuildError("the record has errors: run 'sourcebook check' to see them")
        checked = self._shown = published(checked, self._drafts)
        assert checked.record is not None
        if self._prepared is None and self._error is None:
            self._prepare(checked.record, checked.graph)  # the prose is rendered as pages are
        if self._error is not None:
            raise self._error
        site = self._prepared
        assert site is not None and site.record is checked.record
        site.copies = static_files(site.record.root, site.urls)
        releases = Urls.file_for(site.urls.section("data")).removesuffix("/index.html")
        site.copies |= {f"{releases}/{p}": at for p, at in release_files(site.releases).items()}
        site.previews = Urls.file_for(previews_url(site.urls.base))
        return {*site.copies, site.previews, *(Urls.file_for(page.url) for page in site.pages)}

    def write(
        self,
        checked: Checked,
        staging: Path,
        *,
        progress: Callable[[int, int], None] | None = None,
        derived: Derived | None = None,
    ) -> int:
        """Write the site's files (see `files`) into `staging`; the number of pages."""
        site = self._prepared
        assert site is not None and self._shown is not None
        if self._shown is not checked:  # the record without its drafts: derived anew
            checked, derived = self._shown, None
        pages, view, done = site.pages, site.view, 0

        def derive() -> None:
            try:
                view.use_derived(derived if derived is not None else derive_checked(checked))
            except ChartRenderError as exc:
                chart = site.record.get("chart", exc.chart)
                where = f"{chart.pos('spec')}: " if chart is not None else ""
                raise RenderError(f"{where}{exc}") from None

        def tick(count: int) -> None:
            nonlocal done
            done += count
            if progress is not None:
                progress(done, len(pages))

        try:
            copy_files(site.copies, staging)
            assert view.env is not None
            writer = Writer(view.env, view, staging, FILE_WRITERS)
            write_pages(writer, pages, site.jobs, tick, meanwhile=derive, prose=self._prose)
            write_file(staging / site.previews, previews_json(view).encode("utf-8"))
            job = SearchJob(view.urls.base, site.record.settings.site.language, entries(view))
            indexed = job.run(staging, staging) if self._search else None
        except (RenderError, SearchError) as exc:
            raise BuildError(str(exc)) from None
        self.indexed, self.search_job = indexed, job
        return len(pages)

    @property
    def view(self) -> SiteView:
        """The prepared site's view: what its templates ask, for pages beyond its own."""
        assert self._prepared is not None
        return self._prepared.view


def _prepare(
    record: Record,
    graph: Graph,
    jobs: int | None,
    notify_url: str | None = None,
    series: InSeries | None = None,
) -> _Prepared:
    urls = Urls(record.settings.site)
    try:
        releases = read_releases(record.root)
    except ReleaseReadError as exc:
        raise BuildError(str(exc)) from None
    in_house = series is not None
    series = series or InSeries.alone(record.settings.site.series_corrections_url)
    nav = navigation(record, urls, releases, series.url)
    view = SiteView(record, graph, urls, nav, releases=releases)
    view.series = series
    pages = with_twins(site_pages(record, urls, releases), urls.base)
    if in_house:  # the host's root and its not-found page are the house's
        pages = [p for p in pages if p.url not in (ROOT_URL, NOT_FOUND_URL)]
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
        "series_url": view.series.url,
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
