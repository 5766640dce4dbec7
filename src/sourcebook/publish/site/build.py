"""build_site: a checked record in, its companion website out, swapped in whole."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from sourcebook.check.result import Checked
from sourcebook.derive import Derived
from sourcebook.incremental import READS, UNCOMPARED, SiteMemo, Token
from sourcebook.library.report import QuoteReport
from sourcebook.link import Graph
from sourcebook.model.addresses import safe_link
from sourcebook.model.record import Record
from sourcebook.publish.site.drawing.machine_page import machine_of
from sourcebook.publish.site.drawing.paper import (
    bibliography_entry,
    paper_authors,
    paper_of,
    paper_sections,
)
from sourcebook.publish.site.drawing.vega import ChartRenderError
from sourcebook.publish.site.formats.cite_formats import cite_formats
from sourcebook.publish.site.formats.feeds import feed
from sourcebook.publish.site.formats.structured import json_ld
from sourcebook.publish.site.formats.twins import with_twins
from sourcebook.publish.site.kept_site import (
    PROSE_TOKENS,
    PageMade,
    SiteMade,
    Snapshot,
    folder_of,
    site_made,
    site_plain,
)
from sourcebook.publish.site.pages.page import (
    CSV_TEMPLATE,
    FEED_TEMPLATE,
    NOT_FOUND_URL,
    PDF_TEMPLATE,
    ROBOTS_URL,
    ROOT_URL,
    Page,
)
from sourcebook.publish.site.pages.releases import (
    Release,
    ReleaseReadError,
    read_releases,
    release_files,
)
from sourcebook.publish.site.pages.render import (
    PARALLEL_FROM,
    ProseWorkers,
    RenderError,
    Writer,
    copy_files,
    default_jobs,
    environment,
    static_files,
    write_pages,
)
from sourcebook.publish.site.pages.sections import DRAWN_TEMPLATES, site_urls
from sourcebook.publish.site.pages.series import InSeries
from sourcebook.publish.site.pages.site_pages import grouped_pages, navigation
from sourcebook.publish.site.pages.urls import Urls
from sourcebook.publish.site.reads import context_reads
from sourcebook.publish.site.search.index import (
    LEFT_OUT,
    Indexed,
    SearchError,
    SearchJob,
    bundle_path,
    entries,
    page_attributes,
)
from sourcebook.publish.site.search.kept import Kept
from sourcebook.publish.site.search.previews import previews_json, previews_url
from sourcebook.publish.site.serving.policy import HEADERS_FILE, headers_file
from sourcebook.publish.site.serving.swap import (
    SwapError,
    linked_copy,
    remove_file,
    replace_file,
    staged,
    write_file,
)
from sourcebook.publish.site.view.site_view import SiteView
from sourcebook.publish.site.view.wording import book_line, book_title, ordinal
from sourcebook.runtime.collector import collector_paused


def _chart_csv(view: SiteView, page: Page) -> bytes:
    return view.drawn.csv(page.context["chart"]).encode("utf-8")


def _paper_pdf(view: SiteView, page: Page) -> bytes:
    from sourcebook.publish.site.drawing.typeset import paper_pdf

    return paper_pdf(view, page.context["paper"])


FILE_WRITERS = {CSV_TEMPLATE: _chart_csv, PDF_TEMPLATE: _paper_pdf}
"""The files that are not pages, each with what writes it."""


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
    written: int | None = None
    """The files written afresh, where a build kept the rest of the last one's."""


def write_site(
    shown: Checked,
    derived: Derived,
    out_dir: Path | str,
    *,
    jobs: int | None = None,
    notify_url: str | None = None,
    search: bool = True,
    progress: Callable[[int, int], None] | None = None,
    kept: SiteMemo[SiteMade] | None = None,
) -> Built:
    """The publish stage: write the site of `shown` (a checked record as it is published:
    see `compile.published`), with what derive made of it, into `out_dir`; a record with
    errors is never written.

    `progress(done, total)` is called as pages are written. The site is written beside
    `out_dir` and swapped in only once it is whole, with its search index unless `search`
    is False (`serve` makes it after, with `Built.search_job`). `kept`: the last site written
    and what its pages read, so that only what changed is written (see `SiteBuild.write`).
    """
    if not shown.ok or shown.record is None:
        raise BuildError(RECORD_HAS_ERRORS)
    with SiteBuild(
        shown.record, shown.graph, jobs=jobs, notify_url=notify_url, search=search, kept=kept
    ) as site:
        site.cite(shown.proofs)
        return site.write(out_dir, derived, progress=progress)


RECORD_HAS_ERRORS = "the record has errors: run 'sourcebook check' to see them"


@dataclass
class _Prepared:
    """What every page of a build shares, made from the linked record."""

    record: Record
    graph: Graph
    urls: Urls
    releases: list[Release]
    view: SiteView
    pages: list[Page]
    jobs: int
    copies: dict[str, Path] = field(default_factory=dict)
    """Static and release files: where each goes in the site, and where it comes from."""
    previews: str = ""
    """The file of what each entity's link shows."""
    alone: bool = True
    """A volume built alone, not in a house: its site's root is its own (`_headers`)."""
    groups: dict[str, str] = field(default_factory=dict)
    """The group each page was made in (`site_pages.Group`), by its URL."""
    group_reads: dict[str, frozenset[Token]] = field(default_factory=dict)
    """What making each group's pages read."""


class SiteBuild:
    """One build of a linked record's site (the record as published: see
    `link.without_drafts`), in two steps: `cite` takes check's proof of the quotes, which
    the sources' citations show; `write` writes the pages and swaps the site in (a house,
    which holds this site among others, calls `files` and `write_into` instead). On two or
    more cores, workers render the prose every page draws on first. Leaving the `with` block
    stops any worker still running.
    """

    def __init__(
        self,
        record: Record,
        graph: Graph,
        *,
        jobs: int | None = None,
        notify_url: str | None = None,
        series: InSeries | None = None,
        search: bool = True,
        kept: SiteMemo[SiteMade] | None = None,
    ):
        self._search = search
        self._kept = kept
        """The last site written, where the build keeps what its pages read for the next:
        then it writes only what changed since (see `write`)."""
        self._after_kept = kept is not None and kept.found and not kept.in_place
        """A `build` after one it kept: the prose is rendered with the pages that show it."""
        self._prepared: _Prepared | None = None
        self._error: BuildError | None = None
        self._prose: ProseWorkers | None = None
        self._proofs: QuoteReport | None = None
        self.indexed: Indexed | None = None
        """The search index the build made (where `search`)."""
        self.search_job: SearchJob | None = None
        """What indexing the site needs, for `serve` to do after the build."""
        self._last_index: Kept | None = None
        """The buckets of the search index the last build kept, and where they are (see
        `search.buckets`): those whose pages are as they were are kept."""
        self._reads: dict[str, frozenset[Token]] | None = None
        """What each page read, where the build keeps it for the next."""
        self._contexts: dict[str, tuple[bytes, frozenset[Token] | None]] = {}
        """Each page's context as the next build compares it (its digest), and the entities
        it holds (None where the context was taken as the last build's, until the page is
        written)."""
        try:
            self._prepared = _prepare(record, graph, jobs, notify_url, series)
        except BuildError as exc:
            self._error = exc  # told by `write`, after what check found

    def __enter__(self) -> SiteBuild:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._prose is not None:
            self._prose.cancel()

    def _start_prose(self) -> None:
        """On two or more cores, start workers rendering the prose every page draws on."""
        site = self._prepared
        if site is None or site.jobs <= 1 or self._prose is not None:
            return
        if self._after_kept:
            return  # it renders few pages, and their prose with them
        try:
            self._prose = ProseWorkers(site.view, site.jobs, noting=self._kept is not None)
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
        """Write the site into `out_dir`, swapped in once it is whole. Where the build keeps
        what its pages read (`kept`) and the site there is the last one kept, only what an
        edit changed is written: by `serve`, into the site it serves, each file put in place
        in one step; by `build`, into a copy of the site (its files linked, not copied),
        swapped in whole."""
        started = time.perf_counter()
        files = self.files()
        site = self._prepared
        assert site is not None
        out = Path(os.path.abspath(out_dir))
        kept = self._kept
        last = kept.lookup(site_made) if kept is not None else None
        if kept is not None and not kept.in_place and last is not None:
            bundle = bundle_path(site.urls.base).strip("/")
            self._last_index = Kept(last.index, last.out / bundle, last.searched)
        changed = None
        if kept is not None:
            now = self._snapshot(derived, last.snapshot if last is not None else None)
            if last is not None and last.holds(out):
                changed = now.changes(last.snapshot)
            prose_only = changed is not None and all(t[0] in PROSE_TOKENS for t in changed)
            self._note_contexts(last, changed, prose_only)
            kept.forget()  # until the site at `out` is whole again
        written = None
        try:
            if changed is not None and last is not None and kept is not None and kept.in_place:
                written = self._rewrite(out, derived, last, changed, files, in_place=True)
            elif changed is not None and last is not None and self._as_before(last, changed, files):
                written = 0  # the site there is this build's already: no copy, no index
            elif changed is not None and last is not None:
                index = bundle_path(site.urls.base).strip("/") if self._search else ""
                with linked_copy(out, files, also=index) as (staging, missing):
                    copy_files({p: at for p, at in site.copies.items() if p in missing}, staging)
                    written = self._rewrite(staging, derived, last, changed, files, missing)
                    self._index(staging)
            else:
                with staged(out, files) as staging:
                    self.write_into(staging, derived, progress=progress)
        except SwapError as exc:
            raise BuildError(str(exc)) from None
        if kept is not None:
            indexed = self.indexed
            buckets = indexed.names if indexed is not None else frozenset()
            searched = indexed.pages_read if indexed is not None else {}
            if written == 0 and last is not None:
                # the site there, its index with it, is as it was
                buckets, searched = last.index, last.searched
            made = self._made(out, now, files, last, buckets)
            made.searched = searched
            kept.record(made, site_plain)
        seconds = time.perf_counter() - started
        pages = len(site.pages)
        return Built(out, pages, seconds, site.jobs, self.indexed, self.search_job, written)

    @collector_paused()  # what it makes is kept until the next build
    def _snapshot(self, derived: Derived, last: Snapshot | None) -> Snapshot:
        """What the pages could read, to compare with the last build's (`last`)."""
        site = self._prepared
        assert site is not None
        view = site.view
        shared = [view.nav, view.releases, view.series, view.notify]  # and the settings
        tables = view.compared_tables(derived)
        return Snapshot.of(site.record, site.graph, tables, shared, last)

    @collector_paused()  # what it makes is kept until the next build
    def _note_contexts(
        self, last: SiteMade | None, changed: set[Token] | None, prose_only: bool = False
    ) -> None:
        """Have each page note what it reads, and what it was given: its context. A page
        whose group of pages (a section's, `site_pages.Group`) read nothing the edit
        `changed` when the last build made it has the context it had there, not shown again
        (what it holds is shown where the page is written: `_context`); nor has any page,
        where the edit changed only what prose says and refers to (`prose_only`: see
        `kept_site.PROSE_TOKENS`)."""
        site = self._prepared
        assert site is not None
        self._reads = {}
        as_before = set()
        if last is not None and changed is not None:
            for name, read in last.groups.items():
                if prose_only or (UNCOMPARED not in read and read.isdisjoint(changed)):
                    as_before.add(name)
        seen: dict[int, Any] = {}  # the pages' objects live through the loop: ids are theirs
        for page in site.pages:
            group = site.groups.get(page.url, "")
            made = last.pages.get(page.url) if last is not None and group in as_before else None
            if made is not None and made.template == page.template:
                self._contexts[page.url] = (made.context, None)
            else:
                self._contexts[page.url] = self._context(page, seen)

    @staticmethod
    def _context(page: Page, seen: dict[int, Any] | None = None) -> tuple[bytes, frozenset[Token]]:
        """A page's context as the next build compares it (its digest), and the entities
        it holds."""
        context, held = context_reads(page.context, seen)
        return hashlib.sha256(context.encode()).digest(), held

    @collector_paused()  # what it makes is kept until the next build
    def _made(
        self,
        out: Path,
        now: Snapshot,
        files: set[str],
        last: SiteMade | None,
        index: frozenset[str],
    ) -> SiteMade:
        """What this build wrote, for the next: each page with what it read (a page it did
        not write, as the last build noted it), and the buckets of its search index."""
        site = self._prepared
        assert site is not None and self._reads is not None
        made = SiteMade(out, now, site.view, files=files, folder=folder_of(out), index=index)
        made.tokens = last.tokens if last is not None else None  # its pages' places kept
        made.groups = dict(site.group_reads)
        for page in site.pages:
            read = self._reads.get(page.url)
            if read is None:  # kept from the last build
                assert last is not None
                made.pages[page.url] = last.pages[page.url]
            else:
                context, held = self._contexts[page.url]
                if held is None:  # its context taken as it was: what it holds shown now
                    context, held = self._context(page)
                made.pages[page.url] = PageMade(page.template, context, held | read)
        made.pages[site.previews] = PageMade("", b"", self._reads[site.previews])
        return made

    def _as_before(self, last: SiteMade, changed: set[Token], files: set[str]) -> bool:
        """Whether the site the last build wrote is this one's already: the same files, and
        none that read what changed or has another context. The previews read as before."""
        site = self._prepared
        assert site is not None and self._reads is not None
        previews = last.pages.get(site.previews)
        if last.files != files or _stale(previews, "", b"", changed):
            return False
        for page in site.pages:
            if _stale(
                last.pages.get(page.url), page.template, self._contexts[page.url][0], changed
            ):
                return False
        assert previews is not None
        self._reads[site.previews] = previews.reads
        return True

    @collector_paused()  # the pages' objects live no longer than the build
    def _rewrite(
        self,
        out: Path,
        derived: Derived,
        last: SiteMade,
        changed: set[Token],
        files: set[str],
        missing: set[str] | None = None,
        *,
        in_place: bool = False,
    ) -> int:
        """Write into the site at `out` only the pages that read what changed, or are new,
        or have a context unlike the last build's, or whose file it lacks (`missing`);
        remove the files it no longer holds. `in_place`: `out` is being served, and each
        file is put in place in one step. The number of files written."""
        site = self._prepared
        assert site is not None and self._reads is not None
        view = site.view

        def stale(url: str, template: str, context: bytes) -> bool:
            lost = missing is not None and Urls.file_for(url) in missing
            return lost or _stale(last.pages.get(url), template, context, changed)

        stale_pages = [p for p in site.pages if stale(p.url, p.template, self._contexts[p.url][0])]
        written = len(stale_pages)
        if last.view is not None:
            view.carry(last.view, changed)
        try:
            view.use_derived(derived)
            self._adopt_prose()
            assert view.env is not None
            writer = Writer(view.env, view, out, FILE_WRITERS)
            writer.reads = self._reads
            drawn = [page for page in stale_pages if page.template in DRAWN_TEMPLATES]
            others = [page for page in stale_pages if page.template not in DRAWN_TEMPLATES]
            if in_place:
                for page in others:
                    replace_file(writer.path(page), writer.content(page))
            else:  # a copy no one reads yet
                write_pages(writer, others, site.jobs if len(others) >= PARALLEL_FROM else 1)
            if drawn:
                self._drawings_done()
                for page in drawn:
                    replace_file(writer.path(page), writer.content(page))
            if stale(site.previews, "", b"") or site.previews in (missing or ()):
                replace_file(out / site.previews, self._previews().encode("utf-8"))
                written += 1
            else:
                self._reads[site.previews] = last.pages[site.previews].reads
            if site.alone:
                replace_file(out / HEADERS_FILE, headers_file([view]))
            # a page not written is the file the last index read, but where `serve` may
            # not have finished indexing the site it writes into
            written_now = None if in_place else frozenset(p.url for p in stale_pages)
            self.search_job = self._search_job(written_now)
        except RenderError as exc:
            raise BuildError(str(exc)) from None
        finally:
            view.drawn.close()
        for gone in sorted(last.files - files):
            # only inside the site, whatever a kept map says
            if ".." not in gone.split("/") and not gone.startswith("/"):
                remove_file(out / gone, out)
        return written

    def _search_job(self, written: frozenset[str] | None = None) -> SearchJob:
        """What indexing the site needs; `written`: the pages this build wrote, where it
        kept the others from the last (see `SearchJob.written`)."""
        site = self._prepared
        assert site is not None
        pages = tuple(page.url for page in site.pages if _searched(page))
        language = site.record.settings.site.language
        return SearchJob(site.view.urls.base, language, entries(site.view), pages, written)

    def _index(self, folder: Path) -> None:
        """Make the search index of the site written at `folder`, where the build makes
        one: the buckets of the last index whose pages are as they were are kept (see
        `search.buckets`), where the build keeps what it made."""
        site, job = self._prepared, self.search_job
        if not self._search or job is None or site is None:
            return
        try:
            self.indexed = job.run(folder, folder, self._last_index)
        except (SearchError, OSError) as exc:
            raise BuildError(str(exc)) from None

    def _previews(self) -> str:
        """The file of what each entity's link shows; what it read noted, where kept."""
        site = self._prepared
        assert site is not None
        if self._reads is None:
            return previews_json(site.view)
        with READS.page() as read:
            made = previews_json(site.view)
        self._reads[site.previews] = frozenset(read)
        return made

    def files(self) -> set[str]:
        """Every file the site will hold, relative to its folder."""
        if self._error is not None:
            raise self._error
        site = self._prepared
        assert site is not None
        site.copies = static_files(site.record.root, site.urls)
        releases = Urls.file_for(site.urls.section("data")).removesuffix("/index.html")
        site.copies |= {f"{releases}/{p}": at for p, at in release_files(site.releases).items()}
        site.previews = Urls.file_for(previews_url(site.urls.base))
        own = [HEADERS_FILE] if site.alone else []
        pages = (Urls.file_for(page.url) for page in site.pages)
        return {*site.copies, site.previews, *own, *pages}

    def write_into(
        self,
        staging: Path,
        derived: Derived,
        *,
        progress: Callable[[int, int], None] | None = None,
    ) -> int:
        """Write the site's files (see `files`) into `staging`; the number of pages."""
        site = self._prepared
        assert site is not None and site.previews
        pages, view, done = site.pages, site.view, 0

        def tick(count: int) -> None:
            nonlocal done
            done += count
            if progress is not None:
                progress(done, len(pages))

        try:
            view.use_derived(derived)  # begins drawing the charts
            self._adopt_prose()
            copy_files(site.copies, staging)
            if site.alone:
                write_file(staging / HEADERS_FILE, headers_file([view]))
            assert view.env is not None
            writer = Writer(view.env, view, staging, FILE_WRITERS)
            writer.reads = self._reads
            drawn = [page for page in pages if page.template in DRAWN_TEMPLATES]
            others = [page for page in pages if page.template not in DRAWN_TEMPLATES]
            write_pages(writer, others, site.jobs, tick)
            write_file(staging / site.previews, self._previews().encode("utf-8"))
            self.search_job = self._search_job()
            self._drawings_done()  # drawn beside the other pages
            for page in drawn:
                writer.write(page, writer.content(page))
                tick(1)
        except RenderError as exc:
            raise BuildError(str(exc)) from None
        finally:
            view.drawn.close()
        self._index(staging)
        return len(pages)

    def _drawings_done(self) -> None:
        """Wait for the charts' drawings; a chart that cannot be drawn is an error at its
        spec."""
        site = self._prepared
        assert site is not None
        try:
            site.view.drawn.finish()
        except ChartRenderError as exc:
            chart = site.record.get("chart", exc.chart)
            where = f"{chart.pos('spec')}: " if chart is not None else ""
            raise RenderError(f"{where}{exc}") from None

    def _adopt_prose(self) -> None:
        """The prose every page draws on, rendered by workers and brought back."""
        if self._prose is None:
            self._start_prose()
            if self._error is not None:
                raise self._error
            if self._prose is None:
                return
            self._prose.cite(self._proofs)
        try:
            self._prose.adopt()
        finally:
            self._prose.cancel()

    @property
    def view(self) -> SiteView:
        """The prepared site's view: what its templates ask, for pages beyond its own."""
        if self._error is not None:
            raise self._error
        assert self._prepared is not None
        return self._prepared.view


def _stale(made: PageMade | None, template: str, context: bytes, changed: set[Token]) -> bool:
    """Whether a page the last build `made` must be written again: it is new, or has
    another template or context, or read what `changed`."""
    return (
        made is None
        or made.template != template
        or made.context != context
        or made.read_any(changed)
    )


def _searched(page: Page) -> bool:
    """Whether search indexes the page."""
    return page.template.endswith(".html") and page.template not in LEFT_OUT


def _prepare(
    record: Record,
    graph: Graph,
    jobs: int | None,
    notify_url: str | None = None,
    series: InSeries | None = None,
) -> _Prepared:
    urls = site_urls(record.settings.site)
    try:
        releases = read_releases(record.root)
    except ReleaseReadError as exc:
        raise BuildError(str(exc)) from None
    in_house = series is not None
    series = series or InSeries.alone(record.settings.site.series_corrections_url)
    nav = navigation(record, urls, releases, series.url)
    view = SiteView(record, graph, urls, nav, releases=releases)
    view.series = series
    grouped = grouped_pages(view.record, urls, releases)  # what each group read, noted
    groups = {page.url: group.name for group in grouped for page in group.pages}
    pages = with_twins([page for group in grouped for page in group.pages], urls.base)
    for page in pages:  # a JSON twin is of its page's group
        if page.url not in groups:
            groups[page.url] = groups[page.context["of"].url]
    if in_house:  # the host's root and its not-found page are the house's
        pages = [p for p in pages if p.url not in (ROOT_URL, NOT_FOUND_URL, ROBOTS_URL)]
    feeds = [(p.context["feed_title"], p.url) for p in pages if p.template == FEED_TEMPLATE]
    globals_ = {**template_globals(view), **notify_globals(view, notify_url), "feeds": feeds}
    view.use_templates(environment(record.root, globals_, entities=len(record)))
    jobs = jobs or default_jobs(len(pages))
    reads = {group.name: group.reads for group in grouped}
    return _Prepared(
        record, graph, urls, releases, view, pages, jobs, alone=not in_house,
        groups=groups, group_reads=reads,
    )  # fmt: skip


def safe(url: str) -> str:
    """A URL from the settings, or '' where it could run code."""
    return url if safe_link(url) else ""


def on_site(urls: Urls, url: str) -> str:
    """An address of the site's own, as a link that stays on it (`/vol1#notify` for
    `https://dryburgh.com/vol1#notify`); any other address as it is."""
    if urls.origin and url.startswith(urls.origin + "/"):
        return url[len(urls.origin) :]
    return url


def template_globals(view: SiteView) -> dict[str, Any]:
    """What every template sees besides its page's own context: the view, its parts (links,
    prose, figures, query) and the book."""
    site, links = view.site, view.links
    return {
        "view": view,
        **view.parts(),
        "home": links.section("home"),
        "static": links.static(""),
        "book": view.book,
        "site": site,
        "book_title": book_title(view.book),
        "book_line": book_line(view.book),
        "volume": ordinal(view.book.volume),
        "book_url": safe(site.book_url),
        "about_url": links.section("about"),
        "notify_url": on_site(view.urls, safe(site.notify_url)),
        "series_url": view.series.url,
        "series_home": view.series.home,
        "search_url": links.section("search"),
        "search_bundle": bundle_path(view.urls.base),
        "previews_url": previews_url(view.urls.base),
        "structured": partial(json_ld, view),
        "feed": partial(feed, view),
        "machine_view": partial(machine_of, view),
        "paper_of": partial(paper_of, view),
        "paper_authors": partial(paper_authors, view),
        "paper_sections": paper_sections,
        "bibliography_entry": partial(bibliography_entry, view),
        "search_attributes": partial(page_attributes, view),
        "cite_formats": partial(cite_formats, view.record),
    }


def notify_globals(view: SiteView, service_url: str | None = None) -> dict[str, Any]:
    """The sign-up form where the record has a service for it; the footer's link leads there."""
    from sourcebook.notify.site import signup_form

    form = view.notify = signup_form(view.record.settings, service_url)
    if form is None:
        return {"notify": None}
    return {"notify": form, "notify_url": f"{view.links.section('home')}#notify"}
