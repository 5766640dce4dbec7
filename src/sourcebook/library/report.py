"""What check proved of each quote: where it stands, or why it could not be shown."""

from __future__ import annotations

import os
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from enum import StrEnum
from typing import NamedTuple

from sourcebook.library.nearest import Nearest
from sourcebook.model.refs import Key, QuoteClaim


class Status(StrEnum):
    VERIFIED = "verified"
    NOT_FOUND = "not found"
    ELSEWHERE = "found in another source"
    UNVERIFIABLE = "unverifiable"


# Found and Proof are named tuples, not frozen dataclasses: a large record makes one of
# each per quote, and a frozen dataclass takes several times as long to build.
class Found(NamedTuple):
    """Where a quote stands: the item, and for a PDF the pages."""

    shelf: str
    first_page: int | None = None
    last_page: int | None = None
    read_as_image: bool = False

    @property
    def locator(self) -> str | None:
        """As the site shows it: "p. 81", "pp. 80–81", "read as an image", or None."""
        if self.read_as_image:
            return "read as an image"
        if self.first_page is None:
            return None
        if self.last_page is None or self.last_page == self.first_page:
            return f"p. {self.first_page}"
        return f"pp. {self.first_page}–{self.last_page}"


class Proof(NamedTuple):
    """The verification of one quote claim."""

    claim: QuoteClaim
    status: Status
    searched: tuple[str, ...] = ()
    """Shelf ids of the source's items that were searched."""
    found: Found | None = None
    nearest: tuple[str, Nearest] | None = None
    """For a quote not found: the shelf and passage that come closest."""
    elsewhere: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """For a quote found only in other sources' items: (shelf, ids of the sources holding it)."""

    @property
    def verified(self) -> bool:
        return self.status is Status.VERIFIED

    @property
    def locator(self) -> str | None:
        return self.found.locator if self.found else None


@dataclass
class Tally:
    """Counts of one source's quotes, or of all of them."""

    source: str
    quotes: int = 0
    verified: int = 0
    not_found: int = 0
    unverifiable: int = 0
    marked: int = 0

    def count(self, proof: Proof) -> None:
        self.quotes += 1
        if proof.status is Status.VERIFIED:
            self.verified += 1
        elif proof.status is Status.UNVERIFIABLE:
            self.unverifiable += 1
        else:
            self.not_found += 1


@dataclass
class QuoteReport:
    """Every quote claim's proof, and the spans marked as not quotes."""

    proofs: list[Proof] = field(default_factory=list)
    marked: list[tuple[Key, str]] = field(default_factory=list)
    """(owner, mark) of each span marked as a scare quote or a title."""
    _index: dict[QuoteClaim, int] = field(default_factory=dict, repr=False)
    _by_source: dict[str | None, list[int]] = field(default_factory=dict, repr=False, compare=False)
    _by_owner: dict[Key, list[int]] = field(default_factory=dict, repr=False, compare=False)
    _grouped: int = field(default=-1, repr=False, compare=False)
    """How many proofs there were when they were last grouped by source and owner."""
    version: bytes = field(default_factory=lambda: os.urandom(16), repr=False, compare=False)
    """This report's own: a report given again from save to save (`verify.verify_quotes`
    in `serve`) keeps it, so that what is made of it alone (a page's proven quotes) is
    known the same by it, without comparing."""

    def add(self, proof: Proof) -> None:
        self.proofs.append(proof)

    def replace(self, proof: Proof) -> None:
        """Put `proof` in the place of the earlier proof of the same claim."""
        index = self._position(proof.claim)
        if index is None:
            raise KeyError("no earlier proof of this claim to replace")
        self.proofs[index] = proof

    def proof_of(self, claim: QuoteClaim) -> Proof | None:
        index = self._position(claim)
        return None if index is None else self.proofs[index]

    def _position(self, claim: QuoteClaim) -> int | None:
        # Built on first use: hashing every claim costs more than most checks need.
        if len(self._index) != len(self.proofs):
            self._index = {proof.claim: i for i, proof in enumerate(self.proofs)}
        return self._index.get(claim)

    def for_source(self, source: str) -> list[Proof]:
        """The proofs of the quotes attributed to `source`, in the order of the record."""
        self._group()
        return [self.proofs[i] for i in self._by_source.get(source, ())]

    def for_owner(self, owner: Key) -> list[Proof]:
        """The proofs of the quotes written in one entity's prose or figures."""
        self._group()
        return [self.proofs[i] for i in self._by_owner.get(owner, ())]

    def _group(self) -> None:
        # Positions, not proofs: `replace` keeps each claim at its place.
        if self._grouped == len(self.proofs):
            return
        self._by_source, self._by_owner = defaultdict(list), defaultdict(list)
        for i, proof in enumerate(self.proofs):
            self._by_source[proof.claim.source].append(i)
            self._by_owner[proof.claim.owner].append(i)
        self._grouped = len(self.proofs)

    def tallies(self) -> list[Tally]:
        """One tally per source with quotes or marked spans, by source id."""
        tallies: dict[str, Tally] = defaultdict(lambda: Tally(""))
        for proof in self.proofs:
            source = proof.claim.source or ""
            tallies[source].source = source
            tallies[source].count(proof)
        for (kind, owner), _mark in self.marked:
            if kind == "source":
                tallies[owner].source = owner
                tallies[owner].marked += 1
        return [tallies[s] for s in sorted(tallies)]

    def total(self) -> Tally:
        total = Tally("total")
        for proof in self.proofs:
            total.count(proof)
        total.marked = len(self.marked)
        return total

    def marks(self) -> Counter[str]:
        """How many spans carry each mark (scare, title)."""
        return Counter(mark for _owner, mark in self.marked)
