"""The pipeline in one place: read → link → check → compile → derive (→ publish).

Each stage reads only what the stage before it produced; this module only calls them
in order, so that a newcomer can read the whole system here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import partial
from pathlib import Path

from sourcebook import derive as derived
from sourcebook.check import check_record
from sourcebook.compile import compile_in_memory, compile_record, record_day
from sourcebook.derive.queries import check_queries
from sourcebook.derive.sandbox import isolated
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
    as_of: date | None = None
    """The day the record was checked as of; None for its close."""
    image: bytes | None = None
    """The compiled record check ran its queries on, serialized: derive reads it again."""

    @property
    def ok(self) -> bool:
        return self.record is not None and not self.diagnostics.has_errors()

    def backlinks(self) -> BacklinkIndex:
        assert self.record is not None
        return BacklinkIndex(self.record, self.graph)


def check(
    root: Path | str,
    as_of: date | None = None,
    linked: Callable[[Record, Graph], None] | None = None,
) -> Checked:
    """Read, link and check the record at `root`, its own queries run over it as it stood
    on `as_of` (default: its close). Raises RecordError if it is not a record, AsOfError
    for a day after it closes.

    `linked(record, graph)` is called once the record is linked, before it is checked: a
    build starts there the work that needs no more (see `publish.site.SiteBuild`)."""
    diagnostics = Diagnostics()
    record = read_record(root, diagnostics)
    if record is None:
        return Checked(None, Graph(), diagnostics, as_of)
    record_day(record, as_of)  # refuses a day after the close before any work is done
    graph = link_record(record)
    if linked is not None:
        linked(record, graph)
    check_record(record, graph, diagnostics)
    with compile_in_memory(record, graph, as_of) as db:
        image = db.image()
    check_queries(record, image, diagnostics)
    return Checked(record, graph, diagnostics, as_of, image)


def compile(checked: Checked, path: Path | str, as_of: date | None = None) -> Path:
    """Write the checked record to one SQLite database at `path`, as it stood on `as_of`
    (default: the day it was checked as of)."""
    assert checked.record is not None
    return compile_record(checked.record, path, checked.graph, as_of or checked.as_of)


def derive_checked(checked: Checked) -> derived.Derived:
    """Everything computed from a checked record, as of the day it was checked, read from
    the database check compiled."""
    assert checked.image is not None
    return isolated(checked.image, derived.derive_all)


def derive(path: Path | str, as_of: date | None = None) -> derived.Derived:
    """Everything computed from a compiled record: scorecard, verdicts, scenarios,
    conflicts; as it stood on `as_of` where given (default: the day it was compiled as of)."""
    image = Path(path).read_bytes()
    return isolated(image, partial(_derive_as_of, as_of))


def _derive_as_of(as_of: date | None, db: derived.CompiledRecord) -> derived.Derived:
    if as_of is None:
        return derived.derive_all(db)
    with db.as_of(as_of) as then:
        return derived.derive_all(then)
