"""The Library's pages: the context of each copy's page, made from the record as the pages'
list is made (`sections`); what each page shows of its copy is the view's
(`view.query.held`)."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from sourcebook.model.record import Record


@dataclass(frozen=True)
class CopyContext:
    """A Library page's context: its shelf, what refers to it (found once for every
    page), and the digest of its text, so that the next build writes the page again
    where any of them changed."""

    shelf: str
    text: str
    holders: tuple[str, ...] = ()
    """The ids of the sources that name it in their `library`."""
    refreshed_by: tuple[str, ...] = ()
    """The shelves of the copies taken later to refresh it."""
    whole: bool = True
    """The page shows the copy's text (its own page), not only what it is (the list)."""

    def api_document(self, view: Any) -> dict[str, Any]:
        """The JSON twin's account of the copy: all its page shows."""
        page = view.query.held(self, self.whole)
        return dataclasses.asdict(page) if page is not None else {}


def copy_contexts(record: Record, whole: bool = True) -> list[CopyContext]:
    """The context of each copy's page, in shelf order."""
    holders: dict[str, list[str]] = {}
    for source in record.of("source"):
        for shelf in getattr(source, "library", []):
            holders.setdefault(shelf, []).append(source.id)
    refreshed_by: dict[str, list[str]] = {}
    for item in record.library:
        if item.refreshes:
            refreshed_by.setdefault(item.refreshes, []).append(item.shelf)
    found = []
    for item in record.library:
        digest = record.library.text_digest(item.shelf) or ""
        shelf = item.shelf
        found.append(
            CopyContext(
                shelf,
                digest,
                tuple(holders.get(shelf, ())),
                tuple(refreshed_by.get(shelf, ())),
                whole,
            )
        )
    return found
