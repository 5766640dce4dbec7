"""One visit to one address: fetched through `library.fetch`, read as the Library reads a
copy, and written down as a `Visit`.

The page's text is taken out as `library add` takes it (HTML's main text, a PDF's pages,
plain text), normalized as the Library normalizes a copy, and each quote of the source is
looked for in it with the same matcher that proves it against the copy. An answer of 304
is the page the last visit saw: what that visit found is carried over.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from urllib.parse import urlsplit

from sourcebook.library.cache import normalize_pages
from sourcebook.library.extract import extract, guess_kind
from sourcebook.library.fetch import Budget, Fetched, FetchError, RedirectRefused, fetch
from sourcebook.library.match import locate
from sourcebook.library.normalize import compile_quote
from sourcebook.library.origins import Resolver
from sourcebook.library.refusal import Refused
from sourcebook.model.library import ItemKind
from sourcebook.model.watch import Failure, Seen, Visit
from sourcebook.watch.soft import judged
from sourcebook.watch.targets import Target

MAX_COPY_CHARS = 16 * 1024 * 1024
"""A copy's text longer than this is not compared with the live page."""


@dataclass(frozen=True)
class Asked:
    """How a visit asks: its budget, who it says it is, and the day it is written under."""

    budget: Budget
    user_agent: str
    day: date
    run: str
    resolve: Resolver | None = None


@dataclass(frozen=True)
class Outcome:
    """A visit, and what it cost."""

    visit: Visit
    requests: int
    size: int
    error: FetchError | None = None
    """The refusal of a fetch with no answer, for the caller to tell a budget's end."""


def visit(target: Target, asked: Asked) -> Outcome:
    """Visit `target`'s address once."""
    start = Visit(day=asked.day, url=target.url, run=asked.run)
    try:
        fetched = fetch(
            target.url,
            asked.budget,
            since=target.since,
            resolve=asked.resolve,
            user_agent=asked.user_agent,
        )
    except RedirectRefused as exc:
        return Outcome(replace(start, failure=Failure.REFUSED, note=_line(exc)), 1, 0, exc)
    except FetchError as exc:
        spent = asked.budget.max_bytes if exc.code == "Q101" else 0
        return Outcome(replace(start, failure=Failure.NO_ANSWER, note=_line(exc)), 1, spent, exc)
    answered = replace(
        start,
        status=fetched.status,
        redirects=tuple(zip(fetched.redirects, fetched.hops, strict=True)),
        final=fetched.url if fetched.redirects else None,
        etag=fetched.header("etag"),
        last_modified=fetched.header("last-modified"),
    )
    requests = 1 + len(fetched.redirects)
    if fetched.status == 304 and target.last is not None:
        return Outcome(_as_before(answered, target.last), requests, len(fetched.raw))
    if not 200 <= fetched.status < 300:
        return Outcome(answered, requests, len(fetched.raw))
    try:
        read = _read(answered, fetched, target)
    except Exception as exc:  # noqa: BLE001 - a page is untrusted: no page stops a watch
        note = f"its text cannot be read: {type(exc).__name__}: {_line(exc)}"
        read = replace(answered, note=note, quotes=tuple(Seen(q, None) for q in target.quotes))
    return Outcome(read, requests, len(fetched.raw))


def _as_before(answered: Visit, last: Visit) -> Visit:
    """A 304: the page is the one the last visit read, and holds what it held."""
    return replace(
        answered,
        sha256=last.sha256,
        size=last.size,
        soft=last.soft,
        similarity=last.similarity,
        quotes=last.quotes,
        etag=answered.etag or last.etag,
        last_modified=answered.last_modified or last.last_modified,
    )


def _read(answered: Visit, fetched: Fetched, target: Target) -> Visit:
    body = fetched.body
    read = replace(answered, sha256=hashlib.sha256(body).hexdigest(), size=len(body))
    name = Path(urlsplit(fetched.url).path).name
    kind = guess_kind(name, fetched.media_type, body[:1024])
    if kind is ItemKind.IMAGE:
        return replace(read, quotes=tuple(Seen(q, None) for q in target.quotes))
    try:
        extracted = extract(kind, body, fetched.media_type)
    except Refused as exc:
        note = f"its text cannot be read: {_line(exc)}"
        return replace(read, note=note, quotes=tuple(Seen(q, None) for q in target.quotes))
    text = normalize_pages(extracted.text).text
    seen = tuple(Seen(q, locate(compile_quote(q), text) is not None) for q in target.quotes)
    soft, similarity = judged(extracted.text, extracted.title, body, _copies(target))
    if similarity is not None:
        similarity = round(similarity, 3)
    return replace(read, quotes=seen, soft=soft, similarity=similarity)


def _copies(target: Target) -> list[str]:
    texts = []
    for path in target.copies:
        try:
            with open(path, encoding="utf-8", errors="replace") as file:
                texts.append(file.read(MAX_COPY_CHARS))
        except OSError:
            continue
    return texts


def _line(exc: Exception) -> str:
    return " ".join(str(exc).split())
