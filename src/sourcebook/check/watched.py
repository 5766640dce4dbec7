"""What the last watch saw of each source's addresses (watch/), as warnings at the source's
address: dead, moved, soft-dead, changed under a quote, redirected where a fetch may not
go, forbidden by robots.txt; and each quote a refreshed copy no longer holds.

Nothing here goes to the network: the log is a file of the record like any other,
written by `sourcebook watch`. Every verdict is a warning, so that a dead link never
blocks a build.
"""

from __future__ import annotations

from dataclasses import dataclass

from sourcebook.diagnostics import Diagnostics, Pos
from sourcebook.library.copies import copy_proofs
from sourcebook.library.report import QuoteReport
from sourcebook.model.base import Entity, day_start
from sourcebook.model.library import Item
from sourcebook.model.record import Record
from sourcebook.model.watch import (
    AddressState,
    State,
    Summary,
    address_state,
    copies_for,
    summarize,
)

SHOWN = 90
"""The most characters of a quote a message repeats."""


@dataclass(frozen=True)
class Watched:
    """One address of one source, with its state as of the last watch."""

    source: Entity
    index: int
    """Its place in the source's `urls`."""
    url: str
    state: AddressState | None
    """None where no watch has visited it."""
    copies: tuple[Item, ...]
    """The Library's copies of it."""


def watched(record: Record, proofs: QuoteReport | None) -> list[Watched]:
    """Every address of every source, in the order of the sources' ids and their urls."""
    found = []
    log = record.watch
    for source in record.of("source"):
        items = record.library.holdings(getattr(source, "library", []))
        for index, url in enumerate(getattr(source, "urls", [])):
            visits = log.of(source.id, url)
            copies = tuple(copies_for(items, url, visits))
            shelves = {item.shelf for item in copies}
            proved = (
                {
                    proof.claim.text
                    for proof in proofs.for_source(source.id)
                    if proof.found is not None and proof.found.shelf in shelves
                }
                if proofs is not None
                else set()
            )
            state = address_state(visits, proved)
            found.append(Watched(source, index, url, state, copies))
    return found


def watch_summary(record: Record, proofs: QuoteReport | None) -> Summary:
    """The report of the last watch: every address by state, by category and by age."""
    rows = []
    for address in watched(record, proofs):
        published = getattr(address.source, "date", None)
        category = getattr(address.source, "category", None)
        rows.append(
            (
                category.value if category is not None else "",
                day_start(published) if published else None,
                address.state,
            )
        )
    return summarize(rows)


def check_watch(record: Record, proofs: QuoteReport, diagnostics: Diagnostics) -> None:
    """Each address's state as a warning at its place in the source; each quote a copy
    taken to refresh another no longer holds (W007); log files of no source (W009)."""
    if record.watch:
        for address in watched(record, proofs):
            if address.state is not None:
                _report(address, address.state, diagnostics)
        sources = {source.id for source in record.of("source")}
        for source_id in sorted(set(record.watch.visits) - sources):
            diagnostics.warning(
                Pos(record.watch.files.get(source_id, source_id)),
                "W009",
                f"a watch log of no source: the record has no source '{source_id}'",
                "a source renamed keeps its log under its new id: rename the file, or delete it",
            )
    if any(item.refreshes for item in record.library):
        _check_refreshed(record, proofs, diagnostics)


def _report(address: Watched, state: AddressState, diagnostics: Diagnostics) -> None:
    pos = address.source.pos("urls", address.index)
    url, day = address.url, state.day.isoformat()
    copy = _copy_hint(address)
    last = state.last
    if state.state is State.DEAD:
        what = f"answered {last.status}" if last.status is not None else "gave no answer"
        diagnostics.warning(
            pos,
            "W001",
            f"{url} is dead: it {what} on {state.failures} visits since "
            f"{state.since.isoformat()}, the last on {day}",
            f"{copy}; where the page moved, write its new address in 'urls'",
        )
    elif state.state is State.SOFT_DEAD:
        like = ""
        if last.similarity is not None:
            like = f", {round(100 * last.similarity)}% like the Library's copy"
        diagnostics.warning(
            pos,
            "W003",
            f"{url} answers with a {last.soft} (soft-dead{like}) since {state.since.isoformat()}, "
            f"watched {day}",
            f"{copy}; where the page moved, write its new address in 'urls'",
        )
    elif state.state is State.REFUSED:
        diagnostics.warning(
            pos,
            "W005",
            f"{url} redirects where a fetch may not go, so it was not followed: {last.note}",
            "find where the page now lives and write that address in 'urls'; a redirect "
            "to a private or loopback address is never followed (docs/library.md)",
        )
    elif state.state is State.UNWATCHED:
        diagnostics.warning(
            pos,
            "W006",
            f"{url} was not watched: {last.note} (watched {day})",
            "the site asks robots not to visit it; its Library copy stands for it",
        )
    if state.state is State.CHANGED:
        _report_changed(address, state, diagnostics)
    if state.moved_to is not None and state.state in (State.MOVED, State.CHANGED):
        diagnostics.warning(
            pos,
            "W002",
            f"{url} has moved: it redirects permanently to {state.moved_to} (watched {day})",
            f"write {state.moved_to} in 'urls' in place of {url}",
        )


def _report_changed(address: Watched, state: AddressState, diagnostics: Diagnostics) -> None:
    shelves = ", ".join(item.shelf for item in address.copies)
    quotes = "; ".join(_shown(quote) for quote, _since in state.gone)
    count = len(state.gone)
    diagnostics.warning(
        address.source.pos("urls", address.index),
        "W004",
        f"the live page at {address.url} no longer holds {count} quote{'s' * (count != 1)} "
        f"that {shelves} prove{'s' * (len(address.copies) == 1)}, gone since "
        f"{state.since.isoformat()} (watched {state.day.isoformat()}): {quotes}",
        "the quotes stand proved by the Library's copy, and the site says the live page no "
        "longer carries them; take a new copy beside it with 'sourcebook library add "
        "--refresh SHELF' if the page was rewritten",
    )


def _copy_hint(address: Watched) -> str:
    if address.copies:
        shelves = ", ".join(item.shelf for item in address.copies)
        return (
            f"the Library's copy ({shelves}) still proves its quotes, and the site sends "
            "readers to it"
        )
    return (
        f"the source has no copy in the Library: add one from an archive "
        f"(sourcebook library add FILE --source {address.source.id})"
    )


def _check_refreshed(record: Record, proofs: QuoteReport, diagnostics: Diagnostics) -> None:
    for copies in copy_proofs(record, proofs, refreshed_only=True):
        for claim, older, newer in copies.lost():
            diagnostics.warning(
                claim.pos,
                "W007",
                f"{newer.shelf}, the copy taken on {newer.captured} to refresh {older.shelf}, no "
                f"longer holds a quote {older.shelf} proves: {_shown(claim.text)}",
                f"the quote stands proved by {older.shelf}; the page changed under it between "
                f"{older.captured} and {newer.captured}",
            )


def _shown(text: str) -> str:
    text = " ".join(text.split())
    return f"“{text if len(text) <= SHOWN else text[: SHOWN - 1] + '…'}”"
