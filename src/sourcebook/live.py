"""A record's site kept built as the record changes, for `sourcebook serve`.

`LiveSite` keeps the latest build of a record and, where check finds errors, the errors
instead: every page then shows them, with file and line, rather than a stale site
(`publish.site.serve.SiteServer` serves it). Each build is shown before its search index
is made (see `publish/site/search/live_index.py`). `LiveHouse` does the same for a house.
"""

from __future__ import annotations

import html
import os
import threading
import traceback
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from pathlib import Path

from sourcebook.children import one_line
from sourcebook.diagnostics import Diagnostic
from sourcebook.incremental import NOT_RECORD, Memos, not_record
from sourcebook.pipeline import build, build_house, check_house
from sourcebook.publish.claimed import scratch
from sourcebook.publish.site.build import BuildError
from sourcebook.publish.site.pages.urls import normalize_base_path
from sourcebook.publish.site.search.index import SearchJob
from sourcebook.publish.site.search.live_index import LiveSearch
from sourcebook.publish.site.serving.serve import WAIT_SECONDS
from sourcebook.read.settings import RecordError
from sourcebook.runtime.collector import IDLE_SECONDS, Bursts


class LiveSite:
    """The latest build of a record, or why there is none; rebuilt on demand."""

    def __init__(self, root: Path, out: Path | None = None, notify_url: str | None = None):
        self.root = Path(root)
        self.notify_url = notify_url
        """Where the pages' sign-up form posts, instead of `[notify] url`."""
        self._scratch = ExitStack()
        """The scratch folder the site is served from, claimed while serving (see
        `publish.claimed.scratch`: one that a killed `serve` left is swept by the next)."""
        self.out = out if out is not None else self._scratch.enter_context(scratch("serve-"))
        self.site = self.out / "site"
        self.base_path = ""
        self.version = 0
        self.errors: list[Diagnostic] = []
        self.warnings: list[Diagnostic] = []
        self.failure = ""
        self._changed = threading.Condition()
        self._building = threading.Lock()
        self._begun = 0
        """Rebuilds begun: a watch that was on before the first began is told of every
        change since (`watch`)."""
        self._closed = False
        self.search = LiveSearch(self.out)
        """The search index, made after each build is shown."""
        self.written: int | None = None
        """Files the last build wrote afresh, where it kept the rest; None for all."""
        self.collector = Bursts()
        """The cycle collector, where `serve` holds it: run between saves, not in one."""
        self.kept = Memos.in_memory(serving=True)
        """What the builds before made of the record's files and fields, and the pages
        they wrote: an edit reads again, and writes again, only what it changed."""
        self._readied = 0
        """The last version made ready for the next edit (`ready`)."""

    @property
    def broken(self) -> bool:
        return bool(self.errors or self.failure)

    def rebuild(self, changes: Iterable[tuple[str, str]] | None = None) -> None:
        """Check and build; on errors keep them, and the pages will show them. `changes`:
        what the watcher saw change since the last rebuild began, each (added, modified or
        deleted; the path): the read takes every file not named as it was, without a stat
        (`incremental.FilesSeen.told`); without them, it takes every file's stat."""
        with self._building:
            if self._closed:
                return
            self._begun += 1
            if self.kept.files is not None:
                self.kept.files.told(self.root, changes)
            self.search.superseded()
            errors: list[Diagnostic] = []
            warnings: list[Diagnostic] = []
            failure = ""
            search_job = None
            try:
                errors, warnings, search_job = self.check_and_build()
            except (RecordError, BuildError) as exc:  # said for a person, in one line
                failure = one_line(str(exc), 2000)
            except OSError as exc:  # the record's folder gone, or a file of it, as it was read
                failure = one_line(f"the record cannot be read: {exc}", 2000)
            except Exception:  # a broken template or record file must not stop the server
                failure = traceback.format_exc(limit=8)
            with self._changed:
                self.errors, self.warnings, self.failure = errors, warnings, failure
                self.version += 1
                self._changed.notify_all()
            self.search.built(self.version, search_job, self.site)
            self.collector.worked()

    def ready(self) -> None:
        """Make now what the next rebuild would first make of this one (`Memos.ready`),
        once a build, where no build is under way: the watch calls it while it waits."""
        if self._readied == self.version or not self._building.acquire(blocking=False):
            return
        try:
            if not self._closed:
                self.kept.ready()
                self._readied = self.version
        finally:
            self._building.release()

    def check_and_build(self) -> tuple[list[Diagnostic], list[Diagnostic], SearchJob | None]:
        """Check the record and, where it has no error, build its site, drafts and all,
        without its search index; the errors, the warnings, and the index still to make."""
        done = build(
            self.root,
            self.site,
            drafts=True,
            search=False,
            jobs=1,
            notify_url=self.notify_url,
            kept=self.kept,
        )
        checked = done.checked
        self.written = done.site.written if done.site is not None else None
        if checked.record is not None:
            self.base_path = normalize_base_path(checked.record.settings.site.base_path)
        job = done.site.search_job if done.site is not None else None
        return checked.diagnostics.errors, checked.diagnostics.warnings, job

    def wait(self, version: int, timeout: float = WAIT_SECONDS) -> int:
        """Block until the version differs from `version` (or time runs out)."""
        with self._changed:
            self._changed.wait_for(lambda: self.version != version, timeout=timeout)
            return self.version

    def watch(
        self,
        stop: threading.Event,
        then: Callable[[LiveSite], None] | None = None,
        started: threading.Event | None = None,
    ) -> None:
        """Rebuild on every change to the record's files, until `stop` is set.

        `started` is set once the watch is on: every change from then on is seen (and
        where the watch ends without starting). Each rebuild is told what the watcher saw
        change (`rebuild`), hidden files too (the read walks some: the Library's partial
        files, links among the static files); only a change to a file that is not hidden
        starts one. Where a rebuild began before the watch was on, the first rebuild the
        watch starts takes every stat: what changed before, it did not see."""
        import watchfiles

        root = self.root.resolve()
        ignored = {*NOT_RECORD, "__pycache__"}
        on = _Polled(stop, started, lambda: self._begun)

        def told(change: watchfiles.Change, path: str) -> bool:
            return not not_record(os.path.relpath(path, root))

        def wanted(path: str) -> bool:
            parts = Path(path).relative_to(root).parts
            return not any(p in ignored or p.startswith(".") for p in parts)

        first = True
        try:
            for changes in watchfiles.watch(
                root,
                watch_filter=told,
                stop_event=on,
                debounce=200,
                rust_timeout=int(IDLE_SECONDS * 1000),
                yield_on_timeout=True,  # nothing changed for that long: the collector's turn
            ):
                if not changes:  # nothing changed for a while: ready for the next edit
                    self.ready()
                    if not self._building.locked():
                        self.collector.idle()
                    continue
                said = [(change.name, path) for change, path in changes]
                if not any(wanted(path) for _, path in said):
                    if self.kept.files is not None:
                        self.kept.files.told(self.root, said)
                    continue
                untold = first and on.begun_before != 0
                self.rebuild(None if untold else said)
                first = False
                if then is not None:
                    then(self)
        finally:
            if started is not None:
                started.set()

    def close(self, wait: float = 30.0) -> None:
        """Remove the temporary folder, once a build under way (if any) has finished with
        it, or `wait` seconds have passed; no build starts after this."""
        taken = self._building.acquire(timeout=wait)
        try:
            self._closed = True
            self.search.close()
            self._scratch.close()
        finally:
            if taken:
                self._building.release()

    def error_page(self) -> bytes:
        items = "".join(_diagnostic_html(d) for d in self.errors)
        if self.failure:
            items += f"<li><pre>{html.escape(self.failure)}</pre></li>"
        count = len(self.errors) or 1
        return ERROR_PAGE.format(
            count=count, plural="s" * (count != 1), items=items, version=self.version
        ).encode("utf-8")


class _Polled:
    """`stop` as the watcher polls it (watchfiles' `AbstractEvent`). The watcher polls it
    first once its watch is on, which `started` then says, and `begun_before` notes how
    many rebuilds had begun by then (None while it has not been polled)."""

    def __init__(
        self, stop: threading.Event, started: threading.Event | None, begun: Callable[[], int]
    ) -> None:
        self.stop = stop
        self.started = started
        self.begun = begun
        self.begun_before: int | None = None

    def is_set(self) -> bool:
        if self.begun_before is None:
            self.begun_before = self.begun()
            if self.started is not None:
                self.started.set()
        return self.stop.is_set()


def _diagnostic_html(diagnostic: Diagnostic) -> str:
    hint = f'<br><span class="hint">hint: {html.escape(diagnostic.hint or "")}</span>'
    return (
        f"<li><code>{html.escape(str(diagnostic.pos))}</code>: error "
        f"<code>{html.escape(diagnostic.code)}</code> {html.escape(diagnostic.message)}"
        f"{hint if diagnostic.hint else ''}</li>"
    )


ERROR_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>The record has errors</title>
<style>body{{font:1rem/1.5 Georgia,serif;max-width:48rem;margin:2rem auto;padding:0 1rem;
color:#1f1d1a;background:#fbf9f4}}h1{{color:#7a2e1d}}li{{margin-bottom:.75rem}}
code,pre{{font-size:.9rem}}.hint{{color:#5e5850}}</style></head>
<body><main><h1>The record has {count} error{plural}</h1>
<p>The site is not built while check finds errors. Fix them and this page reloads.</p>
<ol class="diagnostics">{items}</ol></main>
<script src="/__sourcebook/reload.js" data-version="{version}"></script></body></html>
"""


class LiveHouse(LiveSite):
    """The latest build of a house, or why there is none. Every volume is inside the
    house's folder, so watching that folder (`watch`) sees a change to any of them."""

    def __init__(
        self, house: Path, out: Path | None = None, notify_urls: dict[str, str] | None = None
    ):
        folder = house if house.is_dir() else house.parent
        super().__init__(folder, out)
        self.house = house
        self.notify_urls = notify_urls or {}
        """Each volume's sign-up form posts to its own local service, by volume name."""

    def check_and_build(self) -> tuple[list[Diagnostic], list[Diagnostic], None]:
        checked = check_house(self.house)
        self.base_path = ""  # the house's front page is the site's
        errors, warnings = checked.diagnostics.errors, checked.diagnostics.warnings
        if checked.ok:
            build_house(checked, self.site, jobs=1, notify_urls=self.notify_urls, drafts=True)
        return errors, warnings, None  # the index is made with each volume's build
