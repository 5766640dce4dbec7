"""Which quotes each copy of a source proves, where the Library holds several of it.

Check proves a quote once, in the first of its source's copies that holds it. A source
with more than one copy (a PDF beside the page, or a page taken again with `library add
--refresh` beside the copy it refreshes) may hold a quote in one and not another: this
looks for each quote in every copy, with the same normalization and matcher, for
`check --quotes` and for the quotes a refreshed copy no longer holds (W007).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass

from sourcebook.library.cache import TextCache
from sourcebook.library.match import locate
from sourcebook.library.normalize import compile_quote
from sourcebook.library.report import QuoteReport
from sourcebook.library.verify import load
from sourcebook.model.library import Item
from sourcebook.model.record import Record
from sourcebook.model.refs import QuoteClaim


@dataclass(frozen=True)
class CopyProofs:
    """One source's copies and, for each of its quotes, whether each copy holds it."""

    source: str
    items: tuple[Item, ...]
    held: dict[QuoteClaim, tuple[bool, ...]]
    """For each quote, in the order of `items`, whether that copy holds it."""

    def proves(self, item: Item) -> int:
        index = self.items.index(item)
        return sum(1 for held in self.held.values() if held[index])

    def lost(self) -> list[tuple[QuoteClaim, Item, Item]]:
        """Each quote a copy holds that the copy taken to refresh it does not:
        (quote, the older copy, the newer)."""
        by_shelf = {item.shelf: index for index, item in enumerate(self.items)}
        out = []
        for newer_index, newer in enumerate(self.items):
            older_index = by_shelf.get(newer.refreshes or "")
            if older_index is None:
                continue
            for claim, held in self.held.items():
                if held[older_index] and not held[newer_index]:
                    out.append((claim, self.items[older_index], newer))
        return out


def copy_proofs(
    record: Record, report: QuoteReport, refreshed_only: bool = False
) -> list[CopyProofs]:
    """For each source with several copies (with `refreshed_only`, those with a copy that
    refreshes another), every quote looked for in every copy; in the order of the ids."""
    library = record.library
    found = []
    with _opened(record) as cache:
        for source in record.of("source"):
            items = tuple(library.holdings(getattr(source, "library", [])))
            if len(items) < 2 or (refreshed_only and not any(i.refreshes for i in items)):
                continue
            claims = [proof.claim for proof in report.for_source(source.id)]
            if not claims:
                continue
            texts = [load(library, item, cache) for item in items]
            held = {
                claim: tuple(
                    locate(compile_quote(claim.text), text.text) is not None for text in texts
                )
                for claim in claims
            }
            found.append(CopyProofs(source.id, items, held))
    return found


@contextlib.contextmanager
def _opened(record: Record) -> Iterator[TextCache]:
    cache = TextCache.for_record(record.root) if len(record.library) else TextCache(None)
    try:
        yield cache
        cache.save()
    finally:
        cache.close()
