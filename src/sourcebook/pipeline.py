"""The pipeline in one place: read → link → check (→ compile → derive → publish).

Each stage reads only what the stage before it produced; this module only calls them
in order, so that a newcomer can read the whole system here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from sourcebook.check import check_record
from sourcebook.diagnostics import Diagnostics
from sourcebook.link import Graph, link_record
from sourcebook.link.backlinks import BacklinkIndex
from sourcebook.model.record import Record
from sourcebook.read import read_record


@dataclass
class Checked:
    """A record read, linked and checked, with everything check found."""

    record: Record | None
    graph: Graph
    diagnostics: Diagnostics

    @property
    def ok(self) -> bool:
        return self.record is not None and not self.diagnostics.has_errors()

    def backlinks(self) -> BacklinkIndex:
        assert self.record is not None
        return BacklinkIndex(self.record, self.graph)


def check(root: Path | str) -> Checked:
    """Read, link and check the record at `root`. Raises RecordError if it is not a record."""
    diagnostics = Diagnostics()
    record = read_record(root, diagnostics)
    if record is None:
        return Checked(None, Graph(), diagnostics)
    graph = link_record(record)
    check_record(record, graph, diagnostics)
    return Checked(record, graph, diagnostics)
