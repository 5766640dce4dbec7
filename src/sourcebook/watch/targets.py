"""What a watch visits: every address every source lists, with what to look for there.

An address is visited with the quotes of its source (every quote the record attributes
to it), the Library's copies of it (the source's copies taken from that address, or from
where it last led; all the source's copies where none was), and what the last visit's
answer said of its version, so that the request can be conditional.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from sourcebook.library.fetch import Validators
from sourcebook.library.verify import Claims, quote_claims
from sourcebook.model.addresses import scheme
from sourcebook.model.base import ID_PATTERN
from sourcebook.model.record import Record
from sourcebook.model.watch import Visit, copies_for


@dataclass(frozen=True)
class Target:
    """One address of one source, as a watch visits it."""

    source: str
    url: str
    quotes: tuple[str, ...] = ()
    copies: tuple[str, ...] = field(default=(), repr=False)
    """The paths of the text files of the Library's copies of this address."""
    last: Visit | None = None
    """The last visit that brought a page back, whose answer a 304 stands for."""

    @property
    def since(self) -> Validators:
        last = self.last
        if last is None or last.sha256 is None:
            return Validators()
        return Validators(last.etag, last.last_modified)


def targets(record: Record, graph: Claims) -> list[Target]:
    """Every http(s) address of every source, in the order of the sources' ids."""
    quotes: dict[str, list[str]] = defaultdict(list)
    for claim in quote_claims(record, graph):
        listed = quotes[claim.source or ""]
        if claim.text not in listed:
            listed.append(claim.text)
    found = []
    for source in record.of("source"):
        if not ID_PATTERN.match(source.id):
            continue
        seen: set[str] = set()
        for url in getattr(source, "urls", []):
            if url in seen or scheme(url) not in ("http", "https"):
                continue
            seen.add(url)
            visits = record.watch.of(source.id, url)
            last = next((v for v in reversed(visits) if v.answered and v.sha256), None)
            held = record.library.holdings(getattr(source, "library", []))
            copies = tuple(
                str(record.library.text_path(item.shelf)) for item in copies_for(held, url, visits)
            )
            found.append(Target(source.id, url, tuple(quotes[source.id]), copies, last))
    return found
