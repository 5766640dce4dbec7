"""The site's full-text search: a Pagefind index of the built pages, made by its binary.

Pagefind reads every page that marks its text with `data-pagefind-body` (the search and
404 pages do not), and takes from each its kind (`data-pagefind-filter` and `-meta`), its
first line (`summary`) and its URL without `.html` (`url`); an entity's title weighs most
(`data-pagefind-weight` on its heading), so terms and entities come before pages that only
mention them. Entities that live at an anchor of a list page (a scorecard row, a
correction) are added as records of their own, so that each is a hit of its own kind.
The index goes into `/vol1/pagefind/`, inside the folder being built: `build` makes it
before the site is swapped in, `serve` after, in the background (see `serve.py`).

Pagefind's Python package starts the same binary as a service and polls it for each
answer every tenth of a second: a thousand records would wait a hundred seconds. This
speaks the service's protocol directly (each message base64-encoded JSON, ended by a
comma), one message after another.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import subprocess
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from markupsafe import Markup

from sourcebook.children import orphanless
from sourcebook.publish.site.pages.urls import Urls
from sourcebook.publish.site.serving.swap import write_file

FOLDER = "pagefind"
ANCHORED = ("indicator", "correction")
"""Kinds whose entities live at an anchor of a list page: indexed as records of their own."""
UNUSED = ("pagefind-ui", "pagefind-modular-ui", "pagefind-component-ui", "pagefind-highlight")
"""Pagefind's own interfaces, which the site does not use (`static/search.js` is its own)."""
LEFT_OUT = ("search.html", "404.html", "library.html", "library_item.html")
"""Templates of the pages search does not index: the Library's copies are the sources'
words, found through the sources."""
PAGE_KIND = "Page"
"""The kind of a page that is not an entity's: the glossary, the ledger, the front page."""
LISTED = f'main[data-kind="{PAGE_KIND}"] > :not(h1):not(.lede)'
"""What search leaves out of a list page: the list, whose every entity is a hit of its own
(the glossary's definitions, a source category's citations). Indexed twice, they would
double the index, and a list would come up for every word of its entities."""
_ATTRIBUTES = Markup(
    ' data-pagefind-body data-pagefind-filter="kind[data-kind]"'
    ' data-pagefind-meta="kind[data-kind], summary[data-summary], url[data-url]"'
    ' data-kind="{}" data-summary="{}" data-url="{}"'
)


class SearchError(Exception):
    """The index could not be made; the message says why, for a person."""


@dataclass(frozen=True)
class Entry:
    """An entity without a page of its own, as search finds it."""

    url: str
    title: str
    kind: str
    summary: str
    content: str


@dataclass
class Indexed:
    pages: int
    seconds: float
    records: int = 0
    output: Path = field(default_factory=Path)


@dataclass(frozen=True)
class SearchJob:
    """What indexing a built site needs, kept so that it may be done after the build."""

    base: str
    language: str
    entries: tuple[Entry, ...] = ()

    def run(self, site: Path, into: Path) -> Indexed:
        """Index the site built at `site`; write the index under `into`, where the site's
        URLs expect it (`into` is the site itself for `build`)."""
        with self.begin(site, into) as indexing:
            return indexing.finish()

    def begin(self, site: Path, into: Path) -> Indexing:
        """`run`, begun in the background; see `Indexing`."""
        return Indexing(site, into / bundle_path(self.base).strip("/"), self.language, self.entries)


def bundle_path(base: str) -> str:
    """Where the index is served: '/vol1/pagefind/'."""
    return f"{base}/{FOLDER}/"


def index_site(site: Path, output: Path, language: str, entries: Sequence[Entry] = ()) -> Indexed:
    """Index the built pages under `site` and `entries`; write the bundle into `output`."""
    with Indexing(site, output, language, entries) as indexing:
        return indexing.finish()


class Indexing:
    """The index of a built site being made while the build goes on: Pagefind reads the
    pages written so far, waited for by a thread of this process (Pagefind works in its
    own), and the pages written after (`finish(later)`) are given to it as text."""

    def __init__(self, site: Path, output: Path, language: str, entries: Sequence[Entry] = ()):
        self._started = time.perf_counter()
        self._output = output
        self._language = language.split("-", 1)[0].lower() or "en"  # Pagefind takes ISO 639-1
        self._entries = entries
        self._pages: dict[str, Any] = {}
        self._error: SearchError | None = None
        self._thread: threading.Thread | None = None
        self._service = _Service()
        self._service.__enter__()
        try:
            config = {"force_language": self._language, "exclude_selectors": [LISTED]}
            self._index = self._service.ask({"type": "NewIndex", "config": config})["index_id"]
        except BaseException:
            self.close()
            raise
        self._thread = threading.Thread(target=self._read, args=(site,), name="pagefind")
        self._thread.start()

    def __enter__(self) -> Indexing:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _read(self, site: Path) -> None:
        try:
            self._pages = self._service.ask(
                {"type": "AddDir", "index_id": self._index, "path": str(site.resolve())}
            )
        except SearchError as exc:
            self._error = exc

    def wait(self) -> None:
        """Wait until Pagefind has read the pages written before it began."""
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._error is not None:
            raise self._error

    def finish(self, later: Sequence[tuple[str, str]] = ()) -> Indexed:
        """Add `later`, (URL, HTML) of the pages written since it began, and the entries;
        write the index."""
        self.wait()
        service, index = self._service, self._index
        pages = int(self._pages.get("page_count", 0))
        for url, html in later:
            service.ask({"type": "AddFile", "index_id": index, "url": url, "file_contents": html})
            pages += 1
        for entry in self._entries:
            service.ask(_record(index, entry, self._language))
        # Pagefind's own WriteFiles answers before its files are all on disk, and leaves
        # some empty where the service then ends: the files are taken and written here.
        files = service.ask({"type": "GetFiles", "index_id": index})["files"]
        service.__exit__()
        written = set()
        for file in files:
            if file["path"].startswith(UNUSED):
                continue
            path = _inside(self._output, file["path"])
            path.parent.mkdir(parents=True, exist_ok=True)
            write_file(path, base64.b64decode(file["content"]))
            written.add(str(path))
        _remove_others(self._output, written)
        seconds = time.perf_counter() - self._started
        return Indexed(pages, seconds, len(self._entries), self._output)

    def stop(self) -> None:
        """Stop Pagefind from another thread: the thread asking it a question is answered by
        a SearchError, and closes this as it would on any."""
        self._service.kill()

    def close(self) -> None:
        """Stop Pagefind, whatever it is doing."""
        self._service.kill()
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        self._service.__exit__()


def _remove_others(folder: Path, written: set[str]) -> None:
    """Remove from `folder` the files of an index made before, written over by this one."""
    for parent, _, names in os.walk(folder):
        for name in names:
            path = os.path.join(parent, name)
            if path not in written:
                os.unlink(path)


def indexed_url(url: str) -> str:
    """The URL search gives a page, as Pagefind makes it from the page's file: its folder,
    for an `index.html`."""
    path = "/" + Urls.file_for(url)
    return path.removesuffix("index.html")


def _inside(folder: Path, relative: str) -> Path:
    """Where a file of the index goes: below `folder`, whatever its name says."""
    parts = [p for p in relative.replace("\\", "/").split("/") if p not in ("", ".")]
    if not parts or ".." in parts:
        raise SearchError(f"Pagefind named a file outside its folder: {relative!r}")
    return folder.joinpath(*parts)


def _record(index: int, entry: Entry, language: str) -> dict[str, Any]:
    return {
        "type": "AddRecord",
        "index_id": index,
        "url": entry.url,
        "content": f"{entry.title}. {entry.content}",
        "language": language,
        "meta": {"title": entry.title, "kind": entry.kind, "summary": entry.summary},
        "filters": {"kind": [entry.kind]},
        "sort": None,
    }


def page_attributes(view: Any, page: Any, subject: Any) -> Markup:
    """What a page's `main` tells Pagefind: its kind, first line and URL, or nothing for a
    page search leaves out. `subject` is the entity the page is about, if any."""
    from sourcebook.publish.site.search.previews import kind_label, line

    if page.template in LEFT_OUT:
        return Markup("")
    if subject is None or not view.links.url(subject):
        return _ATTRIBUTES.format(PAGE_KIND, "", page.url)
    return _ATTRIBUTES.format(kind_label(view, subject), line(view, subject), page.url)


def executable() -> Path:
    from pagefind.service import get_executable

    found = get_executable()
    if found is None or not found.is_file():
        raise SearchError(
            "Pagefind's program is missing, so the site cannot be searched: "
            "pip install 'pagefind[bin]'"
        )
    return found


class _Service:
    """`pagefind --service`, asked one message at a time."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._sent = 0

    def __enter__(self) -> _Service:
        try:
            self._process = subprocess.Popen(
                orphanless([str(executable()), "--service"]),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )
        except OSError as exc:
            raise SearchError(f"Pagefind could not be started: {exc}") from None
        return self

    def __exit__(self, *exc_info: object) -> None:
        process = self._process
        if process is None:
            return
        for stream in (process.stdin, process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):  # a service killed leaves a broken pipe
                    stream.close()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def kill(self) -> None:
        """End the service now: a question being waited for is answered by an error."""
        if self._process is not None and self._process.poll() is None:
            self._process.kill()

    def ask(self, payload: dict[str, Any]) -> dict[str, Any]:
        process = self._process
        assert process is not None and process.stdin is not None and process.stdout is not None
        self._sent += 1
        message = {"message_id": self._sent, "payload": payload}
        try:
            process.stdin.write(base64.b64encode(json.dumps(message).encode()) + b",")
            process.stdin.flush()
            answer = _read_message(process.stdout)
        except (OSError, ValueError) as exc:  # ValueError: its pipes closed under it
            raise SearchError(f"Pagefind stopped while indexing the site: {exc}") from None
        found = answer.get("payload") or {}
        if found.get("type") == "Error":
            raise SearchError(f"Pagefind could not index the site: {found.get('message', '')}")
        return found


def _read_message(stream: IO[bytes]) -> dict[str, Any]:
    chunks = []
    while True:
        byte = stream.read1(65536) if hasattr(stream, "read1") else stream.read(1)
        if not byte:
            raise OSError("it ended without an answer")
        head, comma, rest = byte.partition(b",")
        chunks.append(head)
        if comma:
            if rest:  # one message is asked at a time: nothing follows its answer
                raise OSError("it answered more than was asked")
            break
    return json.loads(base64.b64decode(b"".join(chunks)))


def entries(view: Any, kinds: Iterable[str] = ANCHORED) -> tuple[Entry, ...]:
    """Each entity of `kinds` (those without pages of their own) as a search record."""
    from sourcebook.publish.site.search.previews import kind_label, line

    found = []
    for kind in kinds:
        for entity in view.record.of(kind):
            url = view.links.url(entity)
            if not url:
                continue
            summary = line(view, entity)
            text = " ".join(view.prose.plain(entity, name) for name in _prose_fields(entity))
            found.append(Entry(url, entity.title, kind_label(view, entity), summary, text))
    return tuple(found)


def _prose_fields(entity: Any) -> list[str]:
    return [name for name in entity.PROSE_FIELDS if name != "title" and getattr(entity, name, "")]
