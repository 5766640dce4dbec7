"""The site's full-text search: a Pagefind index of the built pages, made by its binary.

Pagefind reads every page that marks its text with `data-pagefind-body` (the search and
404 pages do not), and takes from each its kind (`data-pagefind-filter` and `-meta`), its
first line (`summary`) and its URL without `.html` (`url`); an entity's title weighs most
(`data-pagefind-weight` on its heading), so terms and entities come before pages that only
mention them. Entities that live at an anchor of a list page (a scorecard row, a
correction) are added as records of their own, so that each is a hit of its own kind.
The index goes into `/vol1/pagefind/`, inside the folder being built: `build` makes it
before the site is swapped in, `serve` after, in the background (see `serve.py`). It is
made in buckets (`buckets.py`), and only those whose pages an edit changed are made again.

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
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import IO, Any

from markupsafe import Markup

from sourcebook.children import orphanless
from sourcebook.publish.site.pages.urls import Urls
from sourcebook.publish.site.search.buckets import (
    ENTRY,
    MANIFEST,
    Bucket,
    Entry,
    pagefind_version,
    readable,
    searched_entry,
    searched_pages,
    split,
)
from sourcebook.publish.site.search.kept import Kept
from sourcebook.publish.site.search.lexicon import (
    WORDS,
    Part,
    packed,
    split_words,
    unpacked,
    words_of,
)
from sourcebook.publish.site.serving.swap import write_file

FOLDER = "pagefind"
WORKERS = 2
"""Pagefinds at work at once, each on a bucket of its own."""
ANCHORED = ("indicator", "correction")
"""Kinds whose entities live at an anchor of a list page: indexed as records of their own."""
_READ_OF_A_PART = (ENTRY, ".pf_meta")
"""Besides its word and filter chunks, what the browser reads of an index it merges."""
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


@dataclass
class Indexed:
    pages: int
    """Pages given to Pagefind: those of the buckets made anew."""
    seconds: float
    records: int = 0
    """Records given to Pagefind, as `pages`."""
    output: Path = field(default_factory=Path)
    buckets: int = 0
    """Buckets of the index; `made` of them made anew, the others kept."""
    made: int = 0
    names: frozenset[str] = frozenset()
    """The folders of the buckets and of the lexicon's parts: what the next index may keep
    (see `Kept`)."""
    parts: int = 0
    """Parts of the lexicon (see `lexicon.py`); `parts_made` of them made anew."""
    parts_made: int = 0
    pages_read: dict[str, str] = field(default_factory=dict)
    """Each page it holds, by its URL: the digest of what Pagefind reads of it (see
    `Kept.pages`)."""


@dataclass(frozen=True)
class SearchJob:
    """What indexing a built site needs, kept so that it may be done after the build."""

    base: str
    language: str
    entries: tuple[Entry, ...] = ()
    pages: tuple[str, ...] = ()
    """The URLs of the pages search indexes."""
    written: frozenset[str] | None = None
    """The URLs of the pages the build wrote, where it kept the others as the last index
    read them (their digests are given again from `Kept.pages`); None where any may have
    changed since."""

    def run(self, site: Path, into: Path, kept: Kept | None = None) -> Indexed:
        """Index the site built at `site`; write the index under `into`, where the site's
        URLs expect it (`into` is the site itself for `build`)."""
        with self.begin(site, into, kept) as indexing:
            return indexing.finish()

    def begin(self, site: Path, into: Path, kept: Kept | None = None) -> Indexing:
        """`run`, to be finished (`finish`) or stopped from another thread (`stop`)."""
        output = into / bundle_path(self.base).strip("/")
        known: dict[str, str] = {}
        if kept is not None and self.written is not None:
            known = {url: d for url, d in kept.pages.items() if url not in self.written}
        return Indexing(site, output, self.language, self.pages, self.entries, kept, known)


def bundle_path(base: str) -> str:
    """Where the index is served: '/vol1/pagefind/'."""
    return f"{base}/{FOLDER}/"


class Indexing:
    """The index of a built site, made bucket by bucket (see `buckets.py`): each bucket
    whose pages and records are those of a bucket the last index made (`kept`) is kept,
    from the folder being written or linked from `kept.folder`; Pagefind is given the
    others."""

    def __init__(
        self,
        site: Path,
        output: Path,
        language: str,
        pages: Sequence[str],
        entries: Sequence[Entry] = (),
        kept: Kept | None = None,
        known: Mapping[str, str] | None = None,
    ):
        self._site = site
        self._known = known
        self._output = output
        self._language = language.split("-", 1)[0].lower() or "en"  # Pagefind takes ISO 639-1
        self._pages = pages
        self._entries = entries
        self._kept = kept
        self._parts_made = 0
        self._services: list[_Service] = []
        self._stopped = False
        self._lock = threading.Lock()

    def __enter__(self) -> Indexing:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def finish(self) -> Indexed:
        """Make the index; the buckets are written into their folders, then the lexicon's
        parts (see `lexicon.py`), then the list of them (`MANIFEST`), then whatever else
        the output folder held is removed."""
        started = time.perf_counter()
        read = list(searched_pages(self._site, self._pages, self._known))
        items = [*read, *map(searched_entry, self._entries)]
        buckets = split(items, self._language)
        kept = self._kept if self._kept is not None else Kept()
        stale = [
            (bucket, self._output / bucket.name)
            for bucket in buckets
            if not (
                bucket.name in kept.names
                and _keep(self._output / bucket.name, kept.folder, (ENTRY, WORDS))
            )
        ]
        self._make(stale)
        parts = self._lexicon(buckets, kept) if len(buckets) > 1 else []
        sent = [item for bucket, _ in stale for item in bucket.items]
        records = sum(item.entry is not None for item in sent)
        pages, made = len(sent) - records, len(stale)
        names = [bucket.name for bucket in buckets]
        manifest = {
            "buckets": [f"{name}/" for name in names],
            "slots": [bucket.slot for bucket in buckets],
            "lexicon": {part.key: f"{part.name}/" for part in parts},
        }
        self._output.mkdir(parents=True, exist_ok=True)
        write_file(self._output / MANIFEST, json.dumps(manifest).encode())
        folders = {*names, *(part.name for part in parts)}
        _remove_others(self._output, {*folders, MANIFEST})
        seconds = time.perf_counter() - started
        return Indexed(
            pages,
            seconds,
            records,
            self._output,
            len(buckets),
            made,
            frozenset(folders),
            len(parts),
            self._parts_made,
            {item.url: item.digest for item in read},
        )

    def _lexicon(self, buckets: Sequence[Bucket], kept: Kept) -> list[Part]:
        """The lexicon's parts, of the words of the buckets written: those the last index
        made kept, the others made."""
        words = {}
        for bucket in buckets:
            path = self._output / bucket.name / WORDS
            try:
                words[bucket.slot] = unpacked(path.read_bytes())
            except (OSError, ValueError, EOFError) as exc:
                raise SearchError(f"{path}: a bucket's words cannot be read ({exc})") from None
        parts = split_words(words, f"{pagefind_version()}\0{self._language}")
        stale = [
            part
            for part in parts
            if not (
                part.name in kept.names and _keep(self._output / part.name, kept.folder, (ENTRY,))
            )
        ]
        self._parts_made = len(stale)
        self._across(
            [
                partial(self._write_part, part=part, folder=self._output / part.name)
                for part in stale
            ]
        )
        return parts

    def _make(self, stale: list[tuple[Bucket, Path]]) -> None:
        """Make the buckets of `stale`, into their folders."""
        self._across([partial(self._write, bucket=b, folder=folder) for b, folder in stale])

    def _across(self, jobs: list[Callable[[_Service], None]]) -> None:
        """Do each of `jobs` with a Pagefind: on two or more cores, a Pagefind of its own in
        each of two threads, each taking the next job left."""
        workers = min(len(jobs), WORKERS, os.cpu_count() or 1)
        if workers <= 1:
            if jobs:
                service = self._started()
                for job in jobs:
                    job(service)
            return
        left = list(reversed(jobs))
        failures: list[BaseException] = []

        def work() -> None:
            try:
                service = self._started()
                while True:
                    with self._lock:
                        if not left or failures:
                            return
                        job = left.pop()
                    job(service)
            except BaseException as exc:  # told by the thread that waits for this one
                with self._lock:
                    failures.append(exc)
                self.stop()

        threads = [threading.Thread(target=work, name="pagefind") for _ in range(workers)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            raise failures[0]

    def _write(self, service: _Service, bucket: Bucket, folder: Path) -> None:
        """Have Pagefind index the bucket's pages and records; write its files to `folder`,
        with the words it read of them (`lexicon.WORDS`)."""
        config = {"force_language": self._language, "exclude_selectors": [LISTED]}
        index = service.ask({"type": "NewIndex", "config": config})["index_id"]
        for item in bucket.items:
            if item.entry is not None:
                service.ask(_record(index, item.entry, self._language))
            else:
                html = readable(self._read(item.url))
                message = {"type": "AddFile", "url": indexed_url(item.url), "file_contents": html}
                service.ask({**message, "index_id": index})
        files = _files(service, index, folder)
        fragments = [data for path, data in files if path.startswith("fragment/")]
        files.append((WORDS, packed(words_of(fragments))))
        _write_files(folder, files)

    def _write_part(self, service: _Service, part: Part, folder: Path) -> None:
        """Have Pagefind index a part of the lexicon: records of each bucket's words, each
        with its slot for a filter (`Part.records`). What the browser reads of it is
        written: not its program, which it takes from the first bucket, nor its fragments,
        which it never shows."""
        config = {"force_language": self._language}
        index = service.ask({"type": "NewIndex", "config": config})["index_id"]
        for slot, number, words in part.records():
            service.ask(
                {
                    "type": "AddRecord",
                    "index_id": index,
                    "url": f"/{slot}/{number}",
                    "content": words,
                    "language": self._language,
                    "meta": {},
                    "filters": {"holds": [str(slot)]},
                    "sort": None,
                }
            )
        files = _files(service, index, folder)
        needed = [(path, data) for path, data in files if path.endswith(_READ_OF_A_PART)]
        needed += [(p, data) for p, data in files if p.startswith(("index/", "filter/"))]
        _write_files(folder, needed)

    def _read(self, url: str) -> str:
        return (self._site / Urls.file_for(url)).read_text("utf-8")

    def _started(self) -> _Service:
        with self._lock:
            if self._stopped:
                raise SearchError("Pagefind stopped while indexing the site: it was stopped")
            # begun within the lock: `stop` kills it, or it is never begun
            service = _Service().__enter__()
            self._services.append(service)
            return service

    def stop(self) -> None:
        """Stop Pagefind from another thread: the thread asking it a question is answered by
        a SearchError, and closes this as it would on any."""
        with self._lock:
            self._stopped = True
            services = list(self._services)
        for service in services:
            service.kill()

    def close(self) -> None:
        """Stop Pagefind, whatever it is doing."""
        with self._lock:
            services, self._services = self._services, []
        for service in services:
            service.kill()
            service.__exit__()


def _files(service: _Service, index: int, folder: Path) -> list[tuple[str, bytes]]:
    """The files Pagefind made of `index`, but its own interfaces, each with the path it
    has inside `folder`."""
    # Pagefind's own WriteFiles answers before its files are all on disk, and leaves
    # some empty where the service then ends: the files are taken and written here.
    files = service.ask({"type": "GetFiles", "index_id": index})["files"]
    found = []
    for file in files:
        if file["path"].startswith(UNUSED):
            continue
        path = _inside(folder, file["path"]).relative_to(folder).as_posix()
        found.append((path, base64.b64decode(file["content"])))
    return found


def _write_files(folder: Path, files: Iterable[tuple[str, bytes]]) -> None:
    """Write `files` into `folder`, emptied first; Pagefind's entry file last, so that a
    folder that holds it is whole (see `_keep`)."""
    if folder.is_dir() and not folder.is_symlink():
        shutil.rmtree(folder)  # a bucket of the same name left half made
    elif folder.exists() or folder.is_symlink():
        folder.unlink()
    for relative, data in sorted(files, key=lambda file: file[0] == ENTRY):
        path = folder / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        write_file(path, data)


def _keep(folder: Path, before: Path | None, marks: Sequence[str]) -> bool:
    """Whether the index at `folder` (a bucket, a part of the lexicon) is there, whole (it
    holds each file of `marks`), or could be linked there from the folder of the same name
    in `before` (the last index): its files are never written over, so a link is as good
    as a copy."""
    if all((folder / mark).is_file() for mark in marks) and not folder.is_symlink():
        return True
    if before is None or not all((before / folder.name / mark).is_file() for mark in marks):
        return False
    if folder.exists() or folder.is_symlink():
        shutil.rmtree(folder, ignore_errors=True)
        with contextlib.suppress(OSError):
            folder.unlink()
    try:
        shutil.copytree(before / folder.name, folder, symlinks=True, copy_function=_link)
    except (OSError, shutil.Error):
        shutil.rmtree(folder, ignore_errors=True)
        return False
    return True


def _link(source: str, target: str) -> None:
    try:
        os.link(source, target)
    except OSError:
        shutil.copy2(source, target)


def _remove_others(folder: Path, kept: set[str]) -> None:
    """Remove from `folder` what is not the buckets and their list: the buckets of an index
    made before, and an index of the site before buckets."""
    with contextlib.suppress(FileNotFoundError):
        for entry in os.scandir(folder):
            if entry.name in kept:
                continue
            if entry.is_dir(follow_symlinks=False):
                shutil.rmtree(entry.path, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


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
