"""Take a new copy of a page beside the one the Library holds: `library add --refresh SHELF`.

The page is fetched again from the address the copy was taken from (or one given), under
the same budgets and redirect rules as `library add`. Where its bytes are new, they go on
a shelf of their own, which says which copy it refreshes, and are named in every source
that names the older copy, after it: the older copy is never replaced, so every quote it
proves stays proved, and check shows which quotes each copy proves. Where they are the
bytes of a copy held already, that copy is noted as read again today.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from sourcebook.diagnostics import Diagnostics
from sourcebook.library.attach import attach, source_file
from sourcebook.library.capture import fetch_original
from sourcebook.library.claims import check_claims
from sourcebook.library.fetch import Budget
from sourcebook.library.intake import Details, IntakeError, check_details
from sourcebook.library.refusal import BAD_OPTION, Refused
from sourcebook.library.store import add_original, read_again
from sourcebook.model.library import Item
from sourcebook.read.library import FOLDER, read_library


@dataclass(frozen=True)
class Refreshed:
    item: Item
    """The new copy; or, where the page is as a copy already holds it, that copy."""
    older: Item
    new: bool
    named_in: tuple[str, ...] = ()
    """The sources the new copy was named in."""


def refresh(
    root: Path, shelf: str, url: str | None = None, budget: Budget | None = None
) -> Refreshed:
    """Take a new copy of the page held on `shelf` of the record at `root`, from `url`
    (default: where the copy was taken from)."""
    check_details(root, Details(budget=budget or Budget()))
    older = read_library(root, FOLDER, Diagnostics()).get(shelf)
    if older is None:
        raise IntakeError(f"--refresh {shelf}: the Library holds no {shelf}")
    address = url or older.url
    if not address or not address.startswith(("http://", "https://")):
        raise Refused(
            f"--refresh {shelf}: {shelf} was not taken from the web; give the address to take "
            "a new copy from",
            BAD_OPTION,
        )
    original = fetch_original(address, budget)
    check_claims(original.data, original.name, original.media_type, None, address)
    original.refreshes = shelf
    original.how = (
        f"fetched again with httpx by sourcebook library add --refresh {shelf}; "
        "the exchange is kept as WARC"
    )
    item, new = add_original(root, original)
    today = date.today().isoformat()
    if not new:
        return Refreshed(read_again(root, item, today), older, False)
    named = tuple(source for source in _naming(root, shelf) if _attached(root, source, item))
    return Refreshed(item, older, True, named)


def _naming(root: Path, shelf: str) -> list[str]:
    """The ids of the sources whose `library:` names `shelf`."""
    from sourcebook.read import read_record

    record = read_record(root, Diagnostics())
    if record is None:
        return []
    return [s.id for s in record.of("source") if shelf in getattr(s, "library", [])]


def _attached(root: Path, source: str, item: Item) -> bool:
    path = source_file(root, source)
    return path is not None and attach(path, item.shelf)
