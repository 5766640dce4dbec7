"""The record as it stood on a day, for everything after check: cut, linked and proved.

check reads the whole record, since an author must see every problem in it; what is
compiled, derived and published as of an earlier day is the record cut to what was known
by then (`model.known.record_as_of`), linked again so that no link leads to what was not
yet known, and its quotes proved again against the Library's copies held by then.
"""

from __future__ import annotations

from datetime import date

from sourcebook.incremental import Memo
from sourcebook.library.report import QuoteReport
from sourcebook.library.verify import verify_quotes
from sourcebook.link.graph import Graph, link_record
from sourcebook.model.known import record_as_of
from sourcebook.model.record import Record


def as_it_stood(
    record: Record, graph: Graph, day: date | None, kept: Memo | None = None
) -> tuple[Record, Graph]:
    """The record as it stood on `day` (default: its close), and its links; the record and
    graph themselves where nothing was known only later. `kept`: as for `link_record`."""
    then = record_as_of(record, day or record.settings.book.stands_at())
    if then is record:
        return record, graph
    return then, link_record(then, kept)


def proved_as_it_stood(
    record: Record, graph: Graph, then: Record, then_graph: Graph, proofs: QuoteReport
) -> QuoteReport:
    """The quotes of the record as it stood, proved against the copies held then: check's
    own proofs where nothing was cut."""
    if then is record and then_graph is graph:
        return proofs
    return verify_quotes(then, then_graph)
