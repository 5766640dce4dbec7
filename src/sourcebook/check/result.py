"""What check gives the stages after it: the record it checked and everything it found."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

from sourcebook.diagnostics import Diagnostics
from sourcebook.library.report import QuoteReport
from sourcebook.link.backlinks import BacklinkIndex
from sourcebook.link.graph import Graph
from sourcebook.link.series import Works
from sourcebook.model.record import Record
from sourcebook.read.house import House, VolumeRef


@dataclass
class Checked:
    """A record read, linked and checked, with everything check found."""

    record: Record | None
    graph: Graph
    diagnostics: Diagnostics
    as_of: date | None = None
    """The day the record was checked as of; None for its close."""
    proofs: QuoteReport | None = None
    """The Library's proof of every quote; None where check did not get that far."""
    image: bytes | None = None
    """The compiled record check ran its queries on, serialized: derive reads it again."""

    @property
    def ok(self) -> bool:
        return self.record is not None and not self.diagnostics.has_errors()

    def backlinks(self) -> BacklinkIndex:
        assert self.record is not None
        return BacklinkIndex(self.record, self.graph)


@dataclass
class CheckedHouse:
    """A house read and each of its volumes checked, with everything check found in any."""

    house: House | None
    volumes: list[tuple[VolumeRef, Checked]]
    """The volumes, in series order, each at a base path of its own."""
    diagnostics: Diagnostics
    works: Works | None = None
    """Which sources of the volumes are one work."""

    @property
    def ok(self) -> bool:
        return (
            self.house is not None
            and all(c.ok for _, c in self.volumes)
            and not self.diagnostics.has_errors()
        )

    @property
    def entities(self) -> int:
        return sum(len(one.record) for _, one in self.volumes if one.record is not None)
