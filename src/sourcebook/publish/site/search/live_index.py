"""`serve`'s search index: made in the background after each build is shown, never before.

An edit shows as soon as its build is swapped in; the index of that build is made after,
in a thread of its own, into a folder beside the site (`search-N`), and served at
`/vol1/pagefind/` once it is whole. Until then the index of the build before is served.
An index made while a newer build was swapped in may have read pages of both: it is
thrown away, and the newest build is indexed instead. So the index served is always
that of one build, the newest that has been indexed. An index under way when the next
build begins is stopped (`superseded`), and none is begun until that build is shown:
the next index replaces it soon after, and Pagefind's work over a large site would
otherwise take the cores from the build the author waits for. Each index keeps the
buckets of the last whose pages are as they were, linked from its folder (see
`buckets.py`): after an edit, Pagefind reads only the buckets of the pages it changed.
"""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

from sourcebook.publish.site.search.index import Indexing, SearchError, SearchJob
from sourcebook.publish.site.search.kept import Kept


class LiveSearch:
    def __init__(self, out: Path):
        self.out = out
        self.folder: Path | None = None
        """The newest whole index, served as /vol1/pagefind/; None before the first."""
        self.indexed = -1
        """The build (`LiveSite.version`) whose index `folder` holds."""
        self.failure = ""
        self.last: Kept = Kept()
        """What the index served was made of, for the next to keep."""
        self._changed = threading.Condition()
        self._wanted: tuple[int, SearchJob, Path] | None = None
        self._latest = -1
        self._stopped = False
        self._running: Indexing | None = None
        self._superseded = False
        """A build has begun since the last was shown: no index is worth making."""
        self._thread = threading.Thread(target=self._work, name="search-index", daemon=True)
        self._thread.start()

    def built(self, version: int, job: SearchJob | None, site: Path) -> None:
        """Build `version` of the site is in place at `site`: index it when the thread can.
        A build without a job (one that failed) leaves the last index as it is."""
        with self._changed:
            self._latest = version
            self._superseded = False
            if job is not None:
                self._wanted = (version, job, site)
            self._changed.notify_all()

    def wait(self, version: int, timeout: float) -> bool:
        """Block until the index of build `version` (or a later one) is served."""
        with self._changed:
            return self._changed.wait_for(lambda: self.indexed >= version, timeout=timeout)

    def superseded(self) -> None:
        """A newer build has begun: the index under way is stopped, and none begins until
        that build is shown (`built`)."""
        with self._changed:
            self._superseded = True
            running = self._running
        if running is not None:
            running.stop()

    def close(self) -> None:
        with self._changed:
            self._stopped = True
            self._changed.notify_all()
        self.superseded()
        self._thread.join(timeout=30)

    def _work(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: self._stopped or self._wanted is not None)
                if self._stopped:
                    return
                assert self._wanted is not None
                version, job, site = self._wanted
                self._wanted = None
            self._index(version, job, site)

    def _current(self, version: int) -> bool:
        """Whether the index of `version` is still wanted (called holding the lock)."""
        return not (self._stopped or self._superseded or self._latest != version)

    def _index(self, version: int, job: SearchJob, site: Path) -> None:
        with self._changed:
            if not self._current(version):  # a newer build began meanwhile
                return
        into = self.out / f"search-{version}"
        shutil.rmtree(into, ignore_errors=True)
        failure = ""
        made = None
        try:
            with job.begin(site, into, self.last) as indexing:
                with self._changed:
                    wanted = self._current(version)
                    self._running = indexing if wanted else None
                if wanted:
                    made = indexing.finish()
        except (SearchError, OSError) as exc:  # the site was swapped out under it, or worse
            failure = str(exc)
        with self._changed:
            self._running = None
            if not self._current(version):  # stopped, superseded or overtaken: nothing to tell
                shutil.rmtree(into, ignore_errors=True)
                return
            if failure:
                self.failure = failure
                shutil.rmtree(into, ignore_errors=True)
                return
            old, self.folder, self.indexed, self.failure = self.folder, into, version, ""
            if made is not None:
                self.last = Kept(made.names, made.output)
            self._changed.notify_all()
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
