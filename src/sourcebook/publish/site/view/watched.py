"""What the site says of each source's addresses as of the last watch, and of each copy the
Library holds: for templates, through `query.addresses`, `query.copies`, `query.held` and
`query.watch_report`.

An address whose live page is dead (or soft-dead) or has changed under a quote sends the
reader to the held copy first (its page in the Library, `/vol1/library/S4`), with the
day of the watch that found it so; a live or moved one is linked as it is, with its state.
The states are check's (`check.watched`), so that the site says what check reports.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sourcebook.check.watched import Watched, watch_summary, watched
from sourcebook.incremental import Table, read_field
from sourcebook.library.report import QuoteReport
from sourcebook.model.base import Entity
from sourcebook.model.library import Item, ItemKind
from sourcebook.model.record import Record
from sourcebook.model.watch import LABELS, AddressState, Soft, State, Summary
from sourcebook.publish.site.pages.copies import CopyContext
from sourcebook.publish.site.pages.urls import Urls
from sourcebook.publish.site.view.wording import day

COPY_FIRST = frozenset({State.DEAD, State.SOFT_DEAD, State.CHANGED})
"""The states in which a reader is sent to the held copy before the live page."""
MAX_SHOWN = 200_000
"""The most characters of a copy's text its page shows."""


@dataclass(frozen=True)
class HeldCopy:
    """A copy in the Library, as a link to its page."""

    shelf: str
    url: str
    label: str
    captured: str


@dataclass(frozen=True)
class Address:
    """One address of a source, with what the live web held there at the last watch."""

    url: str
    host: str
    safe: bool
    state: str
    """The state's name (`model.watch.State`), or '' where no watch has visited it."""
    said: str
    """The state in a reader's words: 'dead since 1 November 2026'."""
    watched: str
    """The day of the last visit, in a reader's words."""
    copy_first: bool
    copies: tuple[HeldCopy, ...]
    moved_to: str = ""
    moved_safe: bool = False
    gone: tuple[str, ...] = ()
    """The quotes the live page no longer carries."""
    watchable: bool = True
    """An http(s) address, which a watch visits (a `mailto:` is not)."""


@dataclass(frozen=True)
class CopyPage:
    """What the page of one Library copy shows."""

    copy: HeldCopy
    title: str
    kind: str
    holds: str
    original: str
    """Where it was taken from ('' for a file)."""
    original_safe: bool
    sources: tuple[tuple[str, str], ...]
    """The sources that hold it: (title, URL)."""
    quotes: tuple[tuple[str, str], ...]
    """The quotes it proves: (words, where in it: 'p. 81' or '')."""
    address: Address | None
    """What the last watch found at the address it was taken from."""
    refreshes: HeldCopy | None
    refreshed_by: tuple[HeldCopy, ...]
    pages: tuple[str, ...]
    """Its text, a PDF page or the whole of anything else each."""
    cut: int
    """Characters of its text not shown."""


class SiteWatch:
    """The watch's states of every address and the Library's copies, for the site."""

    def __init__(
        self, record: Record, urls: Urls, library: Table[str, Any], proven: Table[str, Any]
    ):
        self.record = record
        self.urls = urls
        self._library = library
        self._proven = proven
        """What check proved of each source's own quotes (the citations' table), which a
        copy's page lists."""
        self.addresses_table: Table[tuple[str, str], Any] = Table(
            ("watched",),
            lambda: {key: _compared(found) for key, found in self._by_source().items()},
            make=lambda key: self._by_source().get(key, []),
        )
        """Each source's addresses and their states as of the last watch, by source key:
        what check proved of the quotes that cite it decides whether a changed page still
        holds them."""
        self._proofs: QuoteReport | None = None
        self._found: dict[tuple[str, str], list[Watched]] | None = None

    def use_proofs(self, proofs: QuoteReport | None) -> None:
        self._proofs = proofs
        self._found = None

    def _by_source(self) -> dict[tuple[str, str], list[Watched]]:
        if self._found is None:
            found: dict[tuple[str, str], list[Watched]] = {}
            for address in watched(self.record, self._proofs):
                found.setdefault(address.source.key, []).append(address)
            self._found = found
        return self._found

    def held(self, shelf: str) -> HeldCopy:
        item = self._library.get(shelf)
        captured = day(item.captured) if item is not None else ""
        return HeldCopy(shelf, self.urls.library_copy(shelf), f"Library {shelf}", captured)

    def copies(self, source: Entity) -> list[HeldCopy]:
        """The source's copies in the Library, in its order."""
        shelves = read_field(source, "library") if hasattr(source, "library") else []
        return [self.held(shelf) for shelf in shelves if self.record.library.get(shelf)]

    def addresses(self, source: Entity) -> list[Address]:
        """Each address of the source, with its state as of the last watch."""
        return [self._address(found) for found in self.addresses_table[source.key] or []]

    def _address(self, found: Watched) -> Address:
        from sourcebook.model.addresses import safe_link, scheme

        copies = tuple(self.held(item.shelf) for item in found.copies)
        state = found.state
        host = urlsplit(found.url).hostname or found.url
        if state is None:
            watchable = scheme(found.url) in ("http", "https")
            return Address(
                found.url, host, safe_link(found.url), "", "", "", False, copies,
                watchable=watchable,
            )  # fmt: skip
        moved = state.moved_to or ""
        return Address(
            found.url,
            host,
            safe_link(found.url),
            state.state.value,
            said(state),
            day(state.day),
            state.state in COPY_FIRST and bool(copies),
            copies,
            moved,
            bool(moved) and safe_link(moved),
            tuple(quote for quote, _since in state.gone),
        )

    def report(self) -> Summary | None:
        """The counts of the last watch, by state, category and age; None before any."""
        if not self.record.watch:
            return None
        return watch_summary(self.record, self._proofs)

    def page(self, copy: CopyContext, text: bool = True) -> CopyPage | None:
        """What the Library page of one copy shows (its text only where `text`)."""
        item = self.record.library.get(copy.shelf)
        if item is None:
            return None
        from sourcebook.model.addresses import safe_link

        found = (self.record.get("source", holder) for holder in copy.holders)
        holders = [source for source in found if source is not None]
        for source in holders:
            self._proven.get(source.id)
        pages, cut = self._text(item) if text else ((), 0)
        return CopyPage(
            copy=self.held(copy.shelf),
            title=item.title or "",
            kind=_kind(item),
            holds=item.holds,
            original=item.url or "",
            original_safe=bool(item.url) and safe_link(item.url or ""),
            sources=tuple((s.title, self.urls.entity(s)) for s in holders),
            quotes=self._quotes(holders, copy.shelf),
            address=self._taken_from(holders, item),
            refreshes=self.held(item.refreshes) if item.refreshes else None,
            refreshed_by=tuple(self.held(shelf) for shelf in copy.refreshed_by),
            pages=pages,
            cut=cut,
        )

    def _quotes(self, holders: list[Entity], shelf: str) -> tuple[tuple[str, str], ...]:
        if self._proofs is None:
            return ()
        found: dict[str, str] = {}
        for source in holders:
            for proof in self._proofs.for_source(source.id):
                if proof.found is not None and proof.found.shelf == shelf:
                    found.setdefault(proof.claim.text, proof.found.locator or "")
        return tuple(found.items())

    def _taken_from(self, holders: list[Entity], item: Item) -> Address | None:
        for source in holders:
            for found in self._by_source().get(source.key, []):
                if item in found.copies and found.state is not None:
                    return self._address(found)
        return None

    def _text(self, item: Item) -> tuple[tuple[str, ...], int]:
        """The copy's text, by pages, and how many characters of it are not shown."""
        path = self.record.library.text_path(item.shelf)
        try:
            with open(path, encoding="utf-8", errors="replace") as file:
                text = file.read(MAX_SHOWN)
                rest = sum(len(part) for part in iter(lambda: file.read(1 << 20), ""))
        except OSError:
            return (), 0
        return tuple(text.split("\f")), rest


def said(state: AddressState) -> str:
    """An address's state in a reader's words, as of the watch that found it."""
    since = day(state.since)
    if state.state is State.DEAD:
        return f"dead since {since}"
    if state.state is State.SOFT_DEAD:
        what = {Soft.PARKED: "a parked domain", Soft.LOGIN: "a login wall"}.get(
            state.last.soft,  # type: ignore[arg-type]
            "a page saying it is not found",
        )
        return f"dead since {since}: it shows {what}"
    if state.state is State.CHANGED:
        count = len(state.gone)
        quotes = "a quote" if count == 1 else f"{count} quotes"
        return f"changed since the copy: it no longer carries {quotes} of it, since {since}"
    if state.state is State.MOVED:
        return "moved"
    return LABELS[state.state]


def _kind(item: Item) -> str:
    return {
        ItemKind.HTML: "a web page",
        ItemKind.PDF: f"a PDF of {item.pages} pages" if item.pages else "a PDF",
        ItemKind.TEXT: "a text",
        ItemKind.IMAGE: "an image, read from its transcription",
    }[item.kind]


def _compared(found: list[Watched]) -> tuple[Any, ...]:
    """A source's addresses as the next build compares them (the source itself is compared
    as an entity)."""
    return tuple((w.index, w.url, w.state, w.copies) for w in found)
