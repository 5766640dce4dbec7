"""The search index in buckets, so that an edit makes again only the buckets it changed.

Each page search indexes, and each record of an entity without a page (`Entry`),
falls into one of a few buckets by a stable hash of its URL; each bucket is an index of
its own, in a folder named by the digest of what it holds: every page's and record's URL
and the digest of what Pagefind reads of it (`readable`: the page's title and its `main`,
which carries `data-pagefind-body`; the navigation, header and footer are not read). A
bucket whose name the last index made too holds the same, and is kept; only the others
are given to Pagefind. The browser loads the first bucket's `pagefind.js` and merges the
others into it (Pagefind's `mergeIndex`), listed in `index.json` beside them, and looks
each term of a query up in the lexicon of the buckets' words first (`lexicon.py`), so that
the buckets find the pages one index would.

The number of buckets grows with the site, by doubling, so that a bucket holds about
`PER_BUCKET` pages; a small site is one bucket, searched as one index. Pagefind ranks
the hits of each bucket by that bucket's own statistics (BM25: how many of its pages hold
a word, their average length), so that their order may differ a little from one index's
(see docs/site.md, "Search").
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from sourcebook.publish.site.pages.urls import Urls


@dataclass(frozen=True)
class Entry:
    """An entity without a page of its own, as search finds it."""

    url: str
    title: str
    kind: str
    summary: str
    content: str


MANIFEST = "index.json"
"""The list of the buckets' folders, beside them, with each one's slot, and the parts of
the lexicon by their letter (see `lexicon.py`): `{"buckets": ["<name>/", …], "slots":
[0, …], "lexicon": {"a": "<name>/", …}}`."""
ENTRY = "pagefind-entry.json"
"""The file Pagefind writes into every index: a bucket's folder without it is not whole."""
PER_BUCKET = 1000
MOST_BUCKETS = 16
"""The browser fetches each bucket's list of words and its metadata: a few dozen
requests at most."""
FORMAT = "2"
"""The way buckets are made: another makes every bucket anew."""

_TITLE = re.compile(r"<title>.*?</title>", re.DOTALL)
_HTML = re.compile(r"<html\b[^>]*>")


@dataclass(frozen=True)
class Item:
    """A page or a record, as a bucket holds it."""

    url: str
    digest: str
    """Of what Pagefind reads of it."""
    entry: Entry | None = None
    """The record, where it is one; else the page at `url`."""


@dataclass(frozen=True)
class Bucket:
    name: str
    items: tuple[Item, ...]
    slot: int = 0
    """Which of the buckets it is, by the hash of its URLs (`bucket_of`)."""


def readable(html: str) -> str:
    """What Pagefind reads of a page, as a page of its own: its `html` tag (the language),
    its title and its `main` (its `data-pagefind-body`, with the kind, first line and URL
    it tells search); an empty string for a page without one."""
    start = html.find("<main")
    end = html.rfind("</main>")
    if start == -1 or end < start:
        return ""
    main = html[start : end + len("</main>")]
    if "data-pagefind-body" not in main[: main.find(">") + 1]:
        return ""
    tag = _HTML.search(html)
    title = _TITLE.search(html)
    head = title.group(0) if title is not None else ""
    opening = tag.group(0) if tag is not None else "<html>"
    return f"<!DOCTYPE html>{opening}<head>{head}</head><body>{main}</body></html>"


def searched_pages(
    site: Path, urls: Iterable[str], known: Mapping[str, str] | None = None
) -> Iterator[Item]:
    """Each page of `urls`, written under `site`, that search indexes, by what it reads;
    a page of `known` by the digest given, its file not read."""
    known = known or {}
    for url in urls:
        digest = known.get(url)
        if digest is not None:
            yield Item(url, digest)
            continue
        html = (site / Urls.file_for(url)).read_text("utf-8")
        text = readable(html)
        if text:
            yield Item(url, hashlib.sha256(text.encode("utf-8")).hexdigest())


def searched_entry(entry: Entry) -> Item:
    fields = [entry.url, entry.title, entry.kind, entry.summary, entry.content]
    digest = hashlib.sha256(json.dumps(fields).encode("utf-8")).hexdigest()
    return Item(entry.url, digest, entry)


def count_for(items: int) -> int:
    """The number of buckets for `items` pages and records: a power of two."""
    count = 1
    while count * PER_BUCKET < items and count < MOST_BUCKETS:
        count *= 2
    return count


def bucket_of(url: str, count: int) -> int:
    return int.from_bytes(hashlib.sha256(url.encode("utf-8")).digest()[:8], "big") % count


def split(items: Sequence[Item], language: str) -> list[Bucket]:
    """The items in buckets, each in the order of its URLs (the order Pagefind is given
    them is in its index's bytes), without the empty ones."""
    count = count_for(len(items))
    held: list[list[Item]] = [[] for _ in range(count)]
    for item in items:
        held[bucket_of(item.url, count)].append(item)
    made = []
    for number, bucket in enumerate(held):
        if not bucket:
            continue
        ordered = tuple(sorted(bucket, key=lambda item: (item.url, item.entry is not None)))
        digest = hashlib.sha256()
        for part in (FORMAT, pagefind_version(), language, f"{number}/{count}"):
            digest.update(part.encode("utf-8") + b"\0")
        for item in ordered:
            kind = "record" if item.entry is not None else "page"
            digest.update(f"{kind}\0{item.url}\0{item.digest}\0".encode())
        made.append(Bucket(digest.hexdigest()[:20], ordered, number))
    return made


def pagefind_version() -> str:
    try:
        return version("pagefind")
    except PackageNotFoundError:
        return ""
